"""Tests of anachron.store: every corpus backend and its ranking."""

"""Tests of anachron.core.stats."""

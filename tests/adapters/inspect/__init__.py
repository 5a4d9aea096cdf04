"""Tests of anachron.inspect: the Inspect adapter."""

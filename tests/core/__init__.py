"""Tests of anachron.core: the leakage domain."""

"""Tests of anachron.research: the freeze gate."""

"""Tests of anachron.launch: sealed launchers."""

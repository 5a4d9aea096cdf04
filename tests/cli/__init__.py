"""Tests of anachron.cli: each command as a user runs it."""

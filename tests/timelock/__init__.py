"""Tests of anachron.timelock: the time lock, its backends and its event log."""

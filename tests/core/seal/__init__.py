"""Tests of the seal audit."""

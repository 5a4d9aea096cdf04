"""Tests of the whole project: layering, golden outputs, doctests, packaging, the README."""

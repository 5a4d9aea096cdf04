"""Tests of the adapters over optional extras."""

"""Tests of query intent: the dates and periods a query reaches for."""

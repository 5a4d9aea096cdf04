"""Tests of anachron.forecasts: forecast scoring."""

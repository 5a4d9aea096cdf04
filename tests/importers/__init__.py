"""Tests of anachron.importers: other harnesses' logs as traces."""

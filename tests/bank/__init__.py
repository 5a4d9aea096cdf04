"""Tests of anachron.bank: the question bank."""

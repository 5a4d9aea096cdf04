"""Tests of dating: the date grammar, attribution of open-web items, content leaks."""

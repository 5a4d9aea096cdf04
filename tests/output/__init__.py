"""Tests of anachron.output: streams, records, the HTML report and notebook displays."""

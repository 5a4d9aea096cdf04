"""Tests of anachron.mcp: the time-lock MCP server."""

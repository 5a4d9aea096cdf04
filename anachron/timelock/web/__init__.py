"""Backends over the real web for the time lock (docs/mcp.md)."""

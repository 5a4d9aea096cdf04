"""Text made safe for an HTML page, and numbers written the same way every time.

Agent text is hostile: a sample id, a query or an evidence line may hold
``</script>``, markup, control characters, U+2028 or lone surrogates.
:func:`esc` makes any string safe as element text or as a quoted attribute
value: ``& < > " '`` become character references, and every character an
HTML page must not carry raw (C0 and C1 controls other than tab and
newline, lone surrogates, noncharacters) becomes a visible escape such as
``\\udc80`` (the form the CLI prints), so the page always encodes as UTF-8
and shows what was there.  U+2028 and U+2029 are written as character
references, so no reader that splits lines on them can tear the page.
"""

from __future__ import annotations

import html
import re

__all__ = ["esc", "num", "pct"]

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
_SEPARATORS = re.compile("[\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def esc(value: object) -> str:
    """*value* as text, escaped for HTML element content and quoted attributes."""
    text = _UNSAFE.sub(_visible, str(value))
    return _SEPARATORS.sub(lambda m: f"&#x{ord(m.group()):04x};", html.escape(text, quote=True))


def num(value: float | int | None, digits: int = 3) -> str:
    """A figure as the report shows it: ``n/a`` for None, integers as digits, rates to *digits* places."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f"{value + 0.0:.{digits}f}"  # + 0.0 turns -0.0 into 0.0


def pct(value: float | None) -> str:
    """A rate as a percentage with one decimal, ``n/a`` for None."""
    return "n/a" if value is None else f"{100 * value:.1f}%"

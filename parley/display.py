"""Showing untrusted text literally: bot replies, imported dialogues, tester and rater names, justifications,
error bodies, ids. A leaf module (only rich), used by the TUI and the command line alike.

Such text is *stored unchanged* but never *interpreted* when shown: Rich markup (``[link=…]``, ``[/bold]``) is
not parsed, and terminal control characters and escape sequences (``\\x1b]0;TITLE\\x07``, ``\\x1b[2J``) are
made visible instead of reaching the terminal: C0 controls as Unicode control pictures (``␛[2J``), C1 controls
and bidirectional overrides as ``\\x9b`` / ``\\u202e``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.text import Text

_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_LINES = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")


def _picture(m: re.Match[str]) -> str:
    c = m.group()
    code = ord(c)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC, ␊ for a newline in a one-line field)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: object, *, one_line: bool = False) -> str:
    """``text`` with every control character made visible (tabs and, unless ``one_line``, newlines kept)."""
    return (_UNSAFE_LINES if one_line else _UNSAFE).sub(_picture, str(text))


_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}]")


def json_text(value: object, *, indent: int | None = None, allow_nan: bool = True,
              default: Callable[[object], object] | None = None) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=…, allow_nan=…, default=…)`` safe to print to a
    terminal: JSON already escapes C0 controls; DEL, C1 controls (``\\x9b`` is a one-byte CSI) and
    bidirectional overrides are escaped too (``\\u009b``), so the line decodes to exactly the same value."""
    import json

    return json_controls(json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=allow_nan,
                                    default=default))


def json_controls(text: str) -> str:
    """JSON text with DEL, C1 controls and bidirectional overrides escaped (``\\u009b``): the same value,
    safe to show."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def literal(text: object, style: str = "", *, one_line: bool = False) -> Text:
    """A Rich ``Text`` that shows ``text`` as it is: never parsed as markup, controls made visible."""
    from rich.text import Text

    return Text(visible(text, one_line=one_line), style=style)


def escape(text: object, *, one_line: bool = False) -> str:
    """For the few places that need a markup *string*: controls made visible, then markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(visible(text, one_line=one_line))

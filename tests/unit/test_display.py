"""parley.display shows untrusted text literally (markup and escape sequences never interpreted)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from parley.display import escape, json_text, literal, visible


def test_escape_sequences_become_visible() -> None:
    assert visible("\x1b]0;TITLE\x07 \x1b[2J") == "␛]0;TITLE␇ ␛[2J"
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("a\nb", one_line=True) == "a␊b"
    assert visible("\x9b31m \u202eevil") == "\\x9b31m \\u202eevil"


def test_markup_is_not_parsed() -> None:
    for s in ("x[/bold]y", "[link=file:///etc/passwd]click[/link]", "[red]hi"):
        assert literal(s).plain == s
        assert Text.from_markup(escape(s)).plain == s


@given(st.text())
def test_rendered_output_holds_no_control_characters(s: str) -> None:
    console = Console(file=None, force_terminal=False, width=80, color_system=None)
    with console.capture() as cap:
        console.print(literal(s, one_line=True))
    out = cap.get()
    assert not any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F for c in out)


@given(st.recursive(st.none() | st.text() | st.integers(),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(), kids, max_size=3)))
def test_json_text_holds_no_control_characters_and_decodes_unchanged(value: object) -> None:
    import json

    out = json_text(value)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u202a\u202e\u2066\u2069" for c in out)
    assert json.loads(out) == value

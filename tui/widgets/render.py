"""Pure text rendering for the chat log: typed → final diffs and system internals (no widgets here)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping

from rich.text import Text

from parley.engine.types import SystemTurn

_TOKEN = re.compile(r"\S+|\s+")


def diff_text(typed: str, final: str, *, changed_style: str = "bold reverse") -> Text:
    """``final`` with the words that differ from ``typed`` highlighted (word-level diff)."""
    a = [t for t in _TOKEN.findall(typed) if not t.isspace()]
    b_tokens = _TOKEN.findall(final)
    b_words = [t for t in b_tokens if not t.isspace()]
    same: set[int] = set()
    for block in difflib.SequenceMatcher(a=a, b=b_words, autojunk=False).get_matching_blocks():
        same.update(range(block.b, block.b + block.size))
    out = Text()
    wi = 0
    for tok in b_tokens:
        if tok.isspace():
            out.append(tok)
            continue
        out.append(tok, style="" if wi in same else changed_style)
        wi += 1
    return out


def changed_words(typed: str, final: str) -> list[str]:
    """The words of ``final`` that the diff highlights (for tests and the log)."""
    text = diff_text(typed, final)
    return [text.plain[s.start:s.end] for s in text.spans if s.style]


def _compact(value: object, limit: int = 160) -> str:
    if isinstance(value, str):
        s = value
    else:
        try:
            s = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
        except (TypeError, ValueError):
            s = repr(value)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def format_state(state: Mapping[str, Mapping[str, object]]) -> str:
    parts = []
    for domain, slots in state.items():
        if not slots:
            continue
        inner = ", ".join(f"{k}={_compact(v, 40)}" for k, v in slots.items() if v not in (None, "", []))
        parts.append(f"{domain}: {inner}" if inner else domain)
    return "; ".join(parts) if parts else "(empty)"


def format_acts(acts: Iterable[object] | None) -> str:
    out = []
    for act in acts or ():
        if isinstance(act, Mapping):
            name = act.get("act") or act.get("intent") or act.get("name") or ""
            dom = act.get("domain")
            rest = {k: v for k, v in act.items() if k not in ("act", "intent", "name", "domain")}
            head = "-".join(str(x) for x in (dom, name) if x)
            out.append(head + (f"({_compact(rest, 60)})" if rest else ""))
        else:
            out.append(_compact(act, 60))
    return ", ".join(out) if out else "(none)"


def _snippet_line(sn: object) -> str:
    if not isinstance(sn, Mapping):
        return "  · " + _compact(sn, 100)
    text = sn.get("text") or sn.get("sentence") or sn.get("snippet") or ""
    bits = []
    for key in ("score", "sentiment", "aspect", "entity", "doc_id", "sent_id"):
        if key in sn and sn[key] is not None:
            v = sn[key]
            bits.append(f"{key} {v:.2f}" if isinstance(v, float) else f"{key} {v}")
    return f"  · {_compact(text, 90)}" + (f"  [{', '.join(bits)}]" if bits else "")


def format_knowledge(knowledge: object) -> list[str]:
    """SK-TOD knowledge used for a turn: tracked entities and selected snippets with scores and sentiment."""
    if not isinstance(knowledge, Mapping):
        return [f"knowledge  {_compact(knowledge)}"]
    lines = []
    ents = knowledge.get("entities")
    if ents:
        names = [e.get("name", _compact(e, 40)) if isinstance(e, Mapping) else str(e) for e in ents]
        lines.append("entities   " + ", ".join(names))
    snippets = knowledge.get("snippets") or knowledge.get("selected") or []
    if snippets:
        lines.append(f"snippets   {len(snippets)} selected")
        lines.extend(_snippet_line(s) for s in list(snippets)[:8])
        if len(snippets) > 8:
            lines.append(f"  · … {len(snippets) - 8} more")
    for k, v in knowledge.items():
        if k not in ("entities", "snippets", "selected"):
            lines.append(f"{k:<10} {_compact(v, 100)}")
    return lines or ["knowledge  (none)"]


_DB_KEYS = ("db_count", "db_matches", "matches", "n_matches", "count")


def format_internals(reply: SystemTurn) -> str:
    """Belief state, DB count, acts, knowledge and the other internals of a SystemTurn, one fact per line."""
    internals: Mapping[str, object] = reply.internals or {}  # any system's keys, shown as they are
    lines = [f"state      {format_state(reply.state or {})}"]
    db = next((internals[k] for k in _DB_KEYS if k in internals), None)
    stored = internals.get("db")
    if db is None and isinstance(stored, Mapping):
        db = stored.get("count", stored)
    if db is not None:
        lines.append(f"db         {_compact(db, 100)}")
    listed = internals.get("acts")  # a remote bot may list its acts among its internals
    acts = reply.acts or (listed if isinstance(listed, list | tuple) else None)
    lines.append(f"acts       {format_acts(acts)}")
    if "knowledge" in internals:
        lines.extend(format_knowledge(internals["knowledge"]))
    shown = {"knowledge", "acts", "db", *_DB_KEYS}
    for k, v in internals.items():
        if k not in shown:
            lines.append(f"{k:<10} {_compact(v, 100)}")
    lines.append(f"latency    {reply.latency_ms:.0f} ms")
    return "\n".join(lines)

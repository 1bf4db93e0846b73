"""Reports of scoring results: rich tables for the terminal, a matplotlib PNG and a self-contained HTML page.

Inputs are the plain dicts the scoring functions return (``replay.summarise`` for MultiWOZ conditions,
``satisfaction.analyse(...).to_json()`` for ratings), so the CLI, the TUI and scripts render the same data.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Siro et al. 2022, Table 1 (Spearman ρ, Pearson r with overall impression) and Table 2 (R²)
PAPER_CORRELATIONS: dict[str, tuple[float, float]] = {
    "relevance": (0.5199, 0.5622), "interestingness": (0.3374, 0.3603), "understanding": (0.7589, 0.7928),
    "task_completion": (0.7895, 0.8280), "interest_arousal": (0.7903, 0.8341), "efficiency": (0.5946, 0.5697),
}
PAPER_R2: dict[str, float] = {
    "R": 0.568, "I": 0.258, "R+I": 0.583, "U": 0.629, "TC": 0.686, "IA": 0.696, "E": 0.325, "IA+TC+U+E": 0.825,
    "R+TC": 0.761, "IA+U+I+E": 0.803, "IA+TC+U+I+E+R": 0.844,
}


def _f(x: Any, nd: int = 1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def conditions_table(result: Mapping[str, Any], seconds: Mapping[str, float] | None = None) -> Any:
    """A rich Table of ``replay.summarise`` output: one row per condition, Table VII style."""
    from rich.table import Table

    t = Table(title="MultiWOZ scores by condition", title_justify="left")
    for col in ("condition", "n", "Inform", "Success", "BLEU", "Combined", "drop %", "Combined 95% CI",
                "failed turns"):
        t.add_column(col, justify="left" if col == "condition" else "right")
    if seconds:
        t.add_column("time", justify="right")
    for name, row in result.get("conditions", {}).items():
        drop = (row.get("drop") or {}).get("combined")
        ci = (row.get("ci") or {}).get("combined")
        cells = [name, str(row.get("n", "")), _f(row.get("inform")), _f(row.get("success")), _f(row.get("bleu")),
                 _f(row.get("combined")), "" if drop is None or name == "original" else f"↓ {drop:.1f}"
                 if drop >= 0 else f"↑ {-drop:.1f}", f"{ci[0]:.1f}–{ci[1]:.1f}" if ci else "",
                 str(row.get("failed_turns", ""))]
        if seconds:
            cells.append(f"{seconds.get(name, 0.0):.0f} s")
        t.add_row(*cells)
    return t


def _png_data(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def write_html(path: str | Path, title: str, sections: list[tuple[str, str]], figures: Sequence[Any] = ()) -> Path:
    """A self-contained HTML page: ``sections`` are (heading, inner HTML) pairs; figures are embedded as PNG."""
    p = Path(path)
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, inner in sections:
        body.append(f"<h2>{html.escape(heading)}</h2>\n{inner}")
    for fig in figures:
        body.append(f'<p><img alt="figure" src="data:image/png;base64,{_png_data(fig)}"></p>')
    css = ("body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}"
           "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;"
           "text-align:right}th:first-child,td:first-child{text-align:left}img{max-width:100%}")
    p.write_text(f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
                 f"</title><style>{css}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n",
                 encoding="utf-8")
    return p


def html_table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

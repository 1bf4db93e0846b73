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
from typing import TYPE_CHECKING

from parley.jsontypes import json_object as _map

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.table import Table
    from rich.text import Text

#: Siro et al. 2022, Table 1 (Spearman ρ, Pearson r with overall impression) and Table 2 (R²)
PAPER_CORRELATIONS: dict[str, tuple[float, float]] = {
    "relevance": (0.5199, 0.5622), "interestingness": (0.3374, 0.3603), "understanding": (0.7589, 0.7928),
    "task_completion": (0.7895, 0.8280), "interest_arousal": (0.7903, 0.8341), "efficiency": (0.5946, 0.5697),
}
PAPER_R2: dict[str, float] = {
    "R": 0.568,
    "I": 0.258,
    "R+I": 0.583,
    "U": 0.629,
    "TC": 0.686,
    "IA": 0.696,
    "E": 0.325,
    "IA+TC+U+E": 0.825,
    "R+TC": 0.761,
    "IA+U+I+E": 0.803,
    "IA+TC+U+I+E+R": 0.844,
}


def _f(x: object, nd: int = 1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def plotted(x: object) -> float:
    """A number of the result to plot, 0 for a missing one."""
    return x if isinstance(x, int | float) and x else 0.0


def conditions_table(result: Mapping[str, object], seconds: Mapping[str, float] | None = None) -> Table:
    """A rich Table of ``replay.summarise`` output: one row per condition, Table VII style."""
    from rich.table import Table

    from parley.display import literal

    t = Table(title="MultiWOZ scores by condition", title_justify="left")
    for col in ("condition", "n", "Inform", "Success", "BLEU", "Combined", "drop %", "95% CI", "failed"):
        t.add_column(col, justify="left" if col == "condition" else "right", no_wrap=col != "condition")
    if seconds:
        t.add_column("time", justify="right")
    for name, cond in _map(result.get("conditions")).items():
        row = _map(cond)
        drop = _map(row.get("drop")).get("combined")
        ci = _map(row.get("ci")).get("combined")
        cells: list[str | Text] = [literal(name, one_line=True), str(row.get("n", "")), _f(row.get("inform")),
                            _f(row.get("success")), _f(row.get("bleu")),
                 _f(row.get("combined")), "" if not isinstance(drop, int | float) or name.endswith("original")
                 else f"↓ {drop:.1f}" if drop >= 0 else f"↑ {-drop:.1f}",
                 f"{ci[0]:.1f}–{ci[1]:.1f}" if isinstance(ci, list | tuple) and ci else "",
                 str(row.get("failed_turns", ""))]
        if seconds:
            cells.append(f"{seconds.get(name, 0.0):.0f} s")
        t.add_row(*cells)
    return t


def _png_data(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def write_html(
    path: str | Path, title: str, sections: list[tuple[str, str]], figures: Sequence[Figure] = ()
) -> Path:
    """A self-contained HTML page: ``sections`` are (heading, inner HTML) pairs; figures are embedded as
    PNG."""
    p = Path(path)
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, inner in sections:
        body.append(f"<h2>{html.escape(heading)}</h2>\n{inner}")
    for fig in figures:
        body.append(f'<p><img alt="figure" src="data:image/png;base64,{_png_data(fig)}"></p>')
    css = (
        "body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;"
        "text-align:right}th:first-child,td:first-child{text-align:left}img{max-width:100%}"
    )
    p.write_text(
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{css}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n",
        encoding="utf-8",
    )
    return p


def html_table(header: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def satisfaction_tables(sat: Mapping[str, object]) -> list[Table]:
    """Rich tables of ``SatisfactionReport.to_json()``: correlations (beside the study's Table 1), R² (beside
    Table 2), agreement, distributions. Every title names its unit of analysis (what one data point is)."""
    from rich.table import Table

    title = (f"Correlation with overall impression, rater level (one point per rater × dialogue; a turn "
             f"aspect is that rater's mean over the dialogue's turns) — {sat['n_ratings']} ratings of "
             f"{sat['n_dialogues']} dialogues by {sat['n_raters']} raters{_selection(sat)}")
    t1 = Table(title=title, title_justify="left",
               caption="paper: Siro et al. 2022, Table 1 (its turn aspects per turn position); the table by "
                       "unit of analysis compares like with like", caption_justify="left")
    for col in ("aspect", "n", "Spearman ρ", "p", "Pearson r", "p", "paper ρ", "paper r"):
        t1.add_column(col, justify="left" if col == "aspect" else "right", no_wrap=True)
    for a, corr in _map(sat["correlations"]).items():
        c = _map(corr)
        paper = PAPER_CORRELATIONS.get(a, (None, None))
        t1.add_row(a, str(c["n"]), _f(c["spearman"], 3), _p(c["spearman_p"]), _f(c["pearson"], 3),
                   _p(c["pearson_p"]), _f(paper[0], 3), _f(paper[1], 3))
    tables = [units_table(sat)] if sat.get("units") else []
    t2 = Table(title="OLS of overall impression on aspect sets, rater level (one point per rater × dialogue)",
               title_justify="left")
    for col in ("aspects", "n", "R²", "adj. R²", "paper R²"):
        t2.add_column(col, justify="left" if col == "aspects" else "right")
    for name, reg in _map(sat["regression"]).items():
        r = _map(reg)
        t2.add_row(name, str(r["n"]), _f(r["r2"], 3), _f(r["adj_r2"], 3), _f(PAPER_R2.get(name), 3))
    t3 = Table(title="Inter-rater agreement (item: a dialogue for dialogue aspects, a system turn for turn "
                     "aspects; items rated by ≥ 2 raters)", title_justify="left")
    for col in ("aspect", "items", "Fleiss κ", "κ items × raters", "Krippendorff α"):
        t3.add_column(col, justify="left" if col == "aspect" else "right")
    for a, agr in _map(sat["agreement"]).items():
        g = _map(agr)
        t3.add_row(a, str(g["items"]), _f(g["fleiss_kappa"], 3),
                   f"{g['fleiss_items']} × {g['fleiss_raters']}" if g["fleiss_items"] else "",
                   _f(g["krippendorff_alpha"], 3))
    t4 = Table(title="Distributions (counts of ratings: turn aspects per turn rating, dialogue aspects per "
                     "dialogue rating; n/a: relevance not applicable)", title_justify="left")
    t4.add_column("aspect")
    t4.add_column("counts by value")
    for a, d in _map(sat["distributions"]).items():
        t4.add_row(a, "  ".join(f"{k}: {v}" for k, v in _map(d).items()))
    if source := _map(sat.get("source")):
        t5 = Table(title=f"What the reading kept: {source.get('coding', '')} coding (counts of values "
                         "in the CSV files)", title_justify="left")
        t5.add_column("values")
        t5.add_column("count", justify="right")
        for kind in ("dropped", "outside_paper_scale"):
            for k, v in _map(source.get(kind)).items():
                t5.add_row(f"{kind.replace('_', ' ')}: {k}", str(v))
        tables.append(t5)
    return [t1, t2, t3, *tables, t4]  # the first three are what the TUI's scores screen shows


def _selection(sat: Mapping[str, object]) -> str:
    """`` — raters ann, b*; sources x.json`` when the ratings were kept to some raters or sources."""
    from parley.display import visible

    chosen = _map(sat.get("selection"))
    parts = [f"{key} {', '.join(map(str, names))}" for key in ("raters", "sources")
             if isinstance(names := chosen.get(key), list | tuple) and names]
    return visible(" — only " + "; ".join(parts), one_line=True) if parts else ""


def units_table(sat: Mapping[str, object]) -> Table:
    """Spearman ρ / Pearson r with overall impression in each unit, beside the study's Table 1 (its turn
    aspects are turn level, its dialogue aspects dialogue level over annotators' ratings)."""
    from rich.table import Table

    units = _map(sat["units"])
    t = Table(title="Correlation with overall impression by unit of analysis (ρ / r): rater-level = one "
                    "point per rater × dialogue; dialogue-level = one point per dialogue, averaged over its "
                    "raters; turn-level = per turn position, then the mean over positions",
              title_justify="left")
    for col in (
        "aspect",
        "rater-level",
        "dialogue-level",
        "turn-level (per position, mean)",
        "paper Table 1",
    ):
        t.add_column(col, justify="left" if col == "aspect" else "right", no_wrap=True)
    for a, rater in _map(units["rater"]).items():
        cells = [f"{_f(c.get('spearman'), 3)} / {_f(c.get('pearson'), 3)}" if c else "–"
                 for c in map(_map, (rater, _map(units["dialogue"]).get(a), _map(units["turn"]).get(a)))]
        paper = PAPER_CORRELATIONS.get(a)
        t.add_row(a, *cells, f"{paper[0]:.3f} / {paper[1]:.3f}" if paper else "–")
    return t


def _p(p: object) -> str:
    return "–" if not isinstance(p, int | float) else (f"{p:.1e}" if p < 0.001 else f"{p:.3f}")


def figure(result: Mapping[str, object]) -> Figure:
    """A matplotlib Figure for a ``parley score`` result: correlations beside the study's and the overall
    impression by interest arousal and efficiency (satisfaction), Inform/Success/BLEU by condition
    (multiwoz)."""
    from matplotlib.figure import Figure

    sat = _map(result.get("satisfaction"))
    mwz = _map(_map(result.get("multiwoz")).get("conditions")) or _map(result.get("conditions"))
    panels = (3 if sat else 0) + (1 if mwz else 0)
    fig = Figure(figsize=(5 * max(panels, 1), 4))
    axes = fig.subplots(1, max(panels, 1), squeeze=False)[0]
    k = 0
    if sat:
        ax = axes[k]
        corr = _map(sat["correlations"])
        names = list(corr)
        ours = [plotted(_map(corr[a])["spearman"]) for a in names]
        paper = [PAPER_CORRELATIONS.get(a, (0.0, 0.0))[0] for a in names]
        xs = range(len(names))
        ax.bar([x - 0.2 for x in xs], ours, width=0.4, label="these ratings")
        ax.bar([x + 0.2 for x in xs], paper, width=0.4, label="Siro et al. 2022")
        ax.set_xticks(list(xs), [n.replace("_", "\n") for n in names], fontsize=7)
        ax.set_ylabel("Spearman ρ with overall")
        ax.legend(fontsize=7)
        k += 1
        by = _map(sat.get("overall_by"))
        for aspect in ("interest_arousal", "efficiency"):
            ax = axes[k]
            groups = _map(by.get(aspect))
            labels = sorted(groups)
            if labels:
                counts = [_map(groups[v]).items() for v in labels]
                data = [[int(o) for o, n in c for _ in range(n if isinstance(n, int) else 0)] for c in counts]
                ax.boxplot(data, tick_labels=labels)
            ax.set_xlabel(aspect.replace("_", " "))
            ax.set_ylabel("overall impression")
            k += 1
    if mwz:
        ax = axes[k]
        names = list(mwz)
        for j, metric in enumerate(("inform", "success", "bleu")):
            vals = [plotted(_map(mwz[n]).get(metric)) for n in names]
            ax.bar([x + (j - 1) * 0.27 for x in range(len(names))], vals, width=0.27, label=metric)
        ax.set_xticks(list(range(len(names))), names, fontsize=7, rotation=20)
        ax.legend(fontsize=7)
        ax.set_ylabel("%")
    fig.tight_layout()
    return fig


def html_report(result: Mapping[str, object], path: str | Path, *, title: str = "parley scores") -> Path:
    """Write the self-contained HTML report of a ``parley score`` / ``parley run`` result."""
    sections: list[tuple[str, str]] = []
    mwz = _map(_map(result.get("multiwoz")).get("conditions")) or _map(result.get("conditions"))
    if mwz:
        rows = [[n, r.get("n"), _f(r.get("inform")), _f(r.get("success")), _f(r.get("bleu")),
                 _f(r.get("combined")), _f(_map(r.get("drop")).get("combined"))]
                for n, r in ((n, _map(c)) for n, c in mwz.items())]
        sections.append(("MultiWOZ scores", html_table(
            ["condition", "n", "Inform", "Success", "BLEU", "Combined", "Combined drop %"], rows)))
    sat = _map(result.get("satisfaction"))
    if sat:
        rows = [
            [
                a,
                c["n"],
                _f(c["spearman"], 4),
                _f(c["pearson"], 4),
                _f(PAPER_CORRELATIONS.get(a, (None,))[0], 4),
                _f(PAPER_CORRELATIONS.get(a, (None, None))[1], 4),
            ]
            for a, c in ((a, _map(c)) for a, c in _map(sat["correlations"]).items())
        ]
        sections.append(
            (
                "Correlation with overall impression, rater level (one point per rater × dialogue)",
                html_table(["aspect", "n", "Spearman ρ", "Pearson r", "paper ρ", "paper r"], rows),
            )
        )
        units = _map(sat.get("units"))
        if units:
            rows = [[a, *(_f(_map(_map(units[u]).get(a)).get("spearman"), 3)
                          for u in ("rater", "dialogue", "turn")),
                     _f(PAPER_CORRELATIONS.get(a, (None,))[0], 3)] for a in _map(units["rater"])]
            title = ("Spearman ρ by unit of analysis: rater-level (one point per rater × dialogue), "
                     "dialogue-level (one per dialogue, averaged over its raters), turn-level (per turn "
                     "position, then the mean)")
            header = ["aspect", "rater-level", "dialogue-level", "turn-level", "paper"]
            sections.append((title, html_table(header, rows)))
        rows = [[n, r["n"], _f(r["r2"], 3), _f(PAPER_R2.get(n), 3)]
                for n, r in ((n, _map(r)) for n, r in _map(sat["regression"]).items())]
        sections.append(("OLS R², rater level (one point per rater × dialogue)",
                         html_table(["aspects", "n", "R²", "paper R²"], rows)))
        rows = [[a, g["items"], _f(g["fleiss_kappa"], 3), _f(g["krippendorff_alpha"], 3)]
                for a, g in ((a, _map(g)) for a, g in _map(sat["agreement"]).items())]
        sections.append(("Agreement (item: a dialogue, or a system turn for turn aspects)",
                         html_table(["aspect", "items", "Fleiss κ", "Krippendorff α"], rows)))
        rows = [[a, "  ".join(f"{k}: {v}" for k, v in _map(d).items())]
                for a, d in _map(sat["distributions"]).items()]
        sections.append(("Distributions (counts of ratings)", html_table(["aspect", "counts"], rows)))
    return write_html(path, title, sections, [figure(result)] if (mwz or sat) else [])

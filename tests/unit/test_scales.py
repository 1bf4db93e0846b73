"""One table of rating scales (parley.scales): everything else derives from it, and the schema's CHECK
constraints it generates are the ones old databases carry."""

from __future__ import annotations

from pathlib import Path

from parley import scales
from parley.engine.scoring.satisfaction import SCALES
from parley.store import open_store
from parley.store.annotation import DIALOGUE_SCALES, TURN_SCALES
from parley.store.imports import abredial

#: the CHECK clauses of migration m001, byte for byte, as databases written by every parley version hold them
FROZEN = {
    "relevance": "relevance BETWEEN 1 AND 3",
    "interestingness": "interestingness BETWEEN 1 AND 3",
    "understanding": "understanding BETWEEN 1 AND 3",
    "task_completion": "task_completion BETWEEN 1 AND 3",
    "interest_arousal": "interest_arousal BETWEEN 1 AND 3",
    "efficiency": "efficiency IN (0, 1)",
    "overall": "overall BETWEEN 1 AND 5",
}


#: what migration m006 made of relevance's clause: "not applicable" has a value of its own
M006 = {"relevance": "relevance BETWEEN 1 AND 3 OR relevance = 'n/a'"}


def test_check_constraints_are_generated_unchanged(tmp_path: Path) -> None:
    assert {k: scales.check_sql(k) for k in scales.ASPECTS} == FROZEN
    assert {k: scales.check_sql_allowed(k) for k in scales.ASPECTS} == {**FROZEN, **M006}
    store = open_store(tmp_path / "s.db")
    sql = " ".join(r[0] for r in store.db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    store.close()
    for clause in {**FROZEN, **M006}.values():
        assert f"CHECK ({clause})" in sql


def test_every_copy_of_a_scale_is_the_table() -> None:
    table = {k: (a.lo, a.hi) for k, a in scales.ASPECTS.items()}
    assert table == SCALES
    assert table == {**TURN_SCALES, **DIALOGUE_SCALES}
    assert {k: v[1:] for k, v in {**abredial.TURN_SCALES, **abredial.DIALOGUE_SCALES}.items()} == table

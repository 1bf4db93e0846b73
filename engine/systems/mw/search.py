"""Fast DB look-ups for the policy: ``MultiwozDB.query`` semantics, with the train table indexed by
(departure, destination, day) and results memoised per constraint set."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from parley.engine.mwdb import MultiwozDB, Row
from parley.jsontypes import JSONValue

_KEYS = ("departure", "destination", "day")


class Search:
    """Query helper bound to one database."""

    def __init__(self, db: MultiwozDB) -> None:
        self.db = db
        self._memo: dict[tuple[str, tuple[tuple[str, str], ...]], list[Row]] = {}
        self._trains: dict[tuple[str, str, str], list[Row]] = {}
        for row in db.rows("train"):
            k = tuple(str(row.get(s, "")).lower() for s in _KEYS)
            self._trains.setdefault((k[0], k[1], k[2]), []).append(row)

    def query(self, domain: str, constraints: Mapping[str, JSONValue]) -> list[Row]:
        """Rows of ``domain`` matching ``constraints`` (same answer as ``MultiwozDB.query``)."""
        key = (domain, tuple(sorted((k, str(v)) for k, v in constraints.items() if v is not None)))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if domain == "train":
            want = [str(constraints.get(s) or "").strip().lower() for s in _KEYS]
            exact = [w if w and w not in ("dontcare", "not mentioned", "any", "?") else "" for w in want]
            if all(exact):
                subset = self._trains.get((exact[0], exact[1], exact[2]), [])
                rows = self._times(subset, {k: v for k, v in constraints.items() if k not in _KEYS})
            else:
                rows = self.db.query(domain, constraints)
        else:
            rows = self.db.query(domain, constraints)
        if len(self._memo) > 2000:
            self._memo.clear()
        self._memo[key] = rows
        return rows

    @staticmethod
    def _times(subset: list[Row], rest: Mapping[str, JSONValue]) -> list[Row]:
        from parley.engine.mwdb import DONTCARE, normalise_time

        out = []
        for row in subset:
            ok = True
            for slot, value in rest.items():
                v = str(value).strip().lower()
                if slot.startswith("book_") or not v or v in DONTCARE or v == "not mentioned":
                    continue
                if slot not in ("leaveAt", "arriveBy"):
                    continue
                if not MultiwozDB._match("train", row, slot, normalise_time(v)):
                    ok = False
                    break
            if ok:
                out.append(row)
        return out


@lru_cache(maxsize=4)
def search_for(db: MultiwozDB) -> Search:
    """One search helper per loaded database."""
    return Search(db)

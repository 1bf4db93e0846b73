"""parley's SQLite store: plain records in, plain records out.

store/ knows nothing of engine, audio or tui (an import-linter contract): it stores frozen dataclasses
(``store.records``) as rows and gives them back, so old databases stay readable when engine code changes.
"""

from parley.store.db import SCHEMA_VERSION, Store, StoreError, open_store

__all__ = ["SCHEMA_VERSION", "Store", "StoreError", "open_store"]

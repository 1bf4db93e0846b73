"""Schema evolution with ``sqlite_utils.Migrations``. Add a new function for every change; never edit old
ones."""

from __future__ import annotations

from sqlite_utils import Database, Migrations

from parley.scales import NOT_APPLICABLE, check_sql, check_sql_allowed

MIGRATION_SET = "parley"
migrations = Migrations(MIGRATION_SET)


@migrations()
def m001_initial(db: Database) -> None:
    db.execute("""
        CREATE TABLE raters (
            name TEXT PRIMARY KEY CHECK (length(name) > 0),
            created_at TEXT NOT NULL
        )""")
    db.execute("""
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            tester TEXT NOT NULL DEFAULT '',
            mode TEXT NOT NULL CHECK (mode IN ('live', 'batch', 'annotation')),
            system_name TEXT NOT NULL DEFAULT '',
            system_config TEXT NOT NULL DEFAULT '{}',
            condition TEXT NOT NULL DEFAULT '{}',
            goal TEXT,
            seed INTEGER,
            app_version TEXT NOT NULL DEFAULT '',
            source TEXT,
            locked INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1))
        )""")
    db.execute("""
        CREATE TABLE turns (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            "index" INTEGER NOT NULL CHECK ("index" >= 0),
            role TEXT NOT NULL CHECK (role IN ('user', 'system')),
            text TEXT NOT NULL,
            text_final TEXT,
            rewrite_steps TEXT NOT NULL DEFAULT '[]',
            internals TEXT NOT NULL DEFAULT '{}',
            latency_ms REAL,
            audio_in TEXT,
            audio_out TEXT,
            status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed')),
            error TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (session_id, "index")
        )""")
    db.execute(f"""
        CREATE TABLE turn_ratings (
            turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            rater TEXT NOT NULL REFERENCES raters(name),
            relevance INTEGER CHECK ({check_sql("relevance")}),
            interestingness INTEGER CHECK ({check_sql("interestingness")}),
            created_at TEXT NOT NULL,
            PRIMARY KEY (turn_id, rater)
        )""")
    db.execute(f"""
        CREATE TABLE dialogue_ratings (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rater TEXT NOT NULL REFERENCES raters(name),
            understanding INTEGER NOT NULL CHECK ({check_sql("understanding")}),
            task_completion INTEGER NOT NULL CHECK ({check_sql("task_completion")}),
            interest_arousal INTEGER NOT NULL CHECK ({check_sql("interest_arousal")}),
            efficiency INTEGER NOT NULL CHECK ({check_sql("efficiency")}),
            overall INTEGER NOT NULL CHECK ({check_sql("overall")}),
            justification TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            PRIMARY KEY (session_id, rater)
        )""")
    db.execute('CREATE INDEX idx_turns_session ON turns(session_id, "index")')
    db.execute("CREATE INDEX idx_sessions_started ON sessions(started_at)")


@migrations()
def m002_annotation(db: Database) -> None:
    """Annotation mode (`parley rate`): per-rater state that the ratings themselves cannot hold."""
    db.execute("""
        CREATE TABLE annotation_raters (
            name TEXT PRIMARY KEY REFERENCES raters(name),
            instructions_seen_at TEXT NOT NULL
        )""")
    db.execute("""
        CREATE TABLE annotation_progress (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rater TEXT NOT NULL REFERENCES raters(name),
            turns_locked_at TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (session_id, rater)
        )""")


@migrations()
def m003_runs(db: Database) -> None:
    """Batch runs (`parley run`): a run and the dialogues it has stored, so an interrupted run resumes."""
    db.execute("""
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            key TEXT NOT NULL,
            params TEXT NOT NULL DEFAULT '{}',
            total INTEGER NOT NULL CHECK (total >= 0),
            started_at TEXT NOT NULL,
            finished_at TEXT
        )""")
    db.execute("""
        CREATE TABLE run_items (
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL CHECK (seq >= 0),
            condition TEXT NOT NULL,
            dialogue_id TEXT NOT NULL,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            PRIMARY KEY (run_id, seq)
        )""")
    db.execute("CREATE INDEX idx_runs_key ON runs(key, finished_at)")


@migrations()
def m004_turn_status(db: Database) -> None:
    """Turn status gains ``pending`` (accepted, no outcome yet) and ``cancelled`` (never sent: the tester
    quit).

    SQLite cannot change a CHECK constraint, so ``turns`` is rebuilt from its own stored SQL. Rows of tables
    that reference it (``turn_ratings``, ON DELETE CASCADE) are set aside first: dropping the old table inside
    this transaction (foreign keys on) would otherwise delete them."""
    old = "CHECK (status IN ('ok', 'failed'))"
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'turns'").fetchone()
    if old not in sql:
        raise RuntimeError("m004_turn_status: unexpected turns table definition")
    new = sql.replace(old, "CHECK (status IN ('ok', 'failed', 'pending', 'cancelled'))", 1)
    children = [t for t in db.table_names()
                if any(fk.other_table == "turns" for fk in db.table(t).foreign_keys)]
    for t in children:
        db.execute(f'CREATE TEMP TABLE "keep_{t}" AS SELECT * FROM "{t}"')
        db.execute(f'DELETE FROM "{t}"')
    indexes = [r[0] for r in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'turns' AND sql IS NOT NULL")]
    db.execute(new.replace("CREATE TABLE turns", "CREATE TABLE turns_new", 1))
    db.execute("INSERT INTO turns_new SELECT * FROM turns")
    db.execute("DROP TABLE turns")
    db.execute("ALTER TABLE turns_new RENAME TO turns")
    for index in indexes:
        db.execute(index)
    for t in children:
        db.execute(f'INSERT INTO "{t}" SELECT * FROM temp."keep_{t}"')
        db.execute(f'DROP TABLE temp."keep_{t}"')


@migrations()
def m005_assignments(db: Database) -> None:
    """Annotation studies: dialogues a coordinator assigned to each rater (``parley assign``), in the order
    the rater gets them, and dialogues a rater skipped, with the reason."""
    db.execute("""
        CREATE TABLE assignments (
            rater TEXT NOT NULL REFERENCES raters(name),
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 1),
            created_at TEXT NOT NULL,
            PRIMARY KEY (rater, session_id),
            UNIQUE (rater, position)
        )""")
    db.execute("""
        CREATE TABLE annotation_skips (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rater TEXT NOT NULL REFERENCES raters(name),
            reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
            created_at TEXT NOT NULL,
            PRIMARY KEY (session_id, rater)
        )""")
    db.execute("CREATE INDEX idx_assignments_session ON assignments(session_id)")


@migrations()
def m006_relevance_not_applicable(db: Database) -> None:
    """Relevance gains a value of its own for "not applicable" (``'n/a'``), distinct from NULL, which now only
    means "not rated (yet)": ``turn_ratings`` is rebuilt from its stored SQL with a CHECK that lets it in (no
    table references ``turn_ratings``, so nothing is set aside).

    Before, "not applicable" was stored as NULL beside a given interestingness, the same as a relevance not
    given. Such rows become ``'n/a'`` where nothing else could have written them: every rating of an imported
    or replayed dialogue (``parley rate`` and the importers write complete ratings), and ratings of a live
    session by someone other than its tester. A live session's own tester's ratings stay NULL: the chat
    stores each aspect as it is given, so there a missing relevance may simply not be given yet."""
    old = f"CHECK ({check_sql('relevance')})"
    (sql,) = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'turn_ratings'").fetchone()
    if old not in sql:
        raise RuntimeError("m006_relevance_not_applicable: unexpected turn_ratings table definition")
    new = sql.replace(old, f"CHECK ({check_sql_allowed('relevance')})", 1)
    db.execute(new.replace("CREATE TABLE turn_ratings", "CREATE TABLE turn_ratings_new", 1))
    db.execute("INSERT INTO turn_ratings_new SELECT * FROM turn_ratings")
    db.execute("DROP TABLE turn_ratings")
    db.execute("ALTER TABLE turn_ratings_new RENAME TO turn_ratings")
    db.execute(f"""
        UPDATE turn_ratings SET relevance = '{NOT_APPLICABLE}'
        WHERE relevance IS NULL AND interestingness IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM turns t JOIN sessions s ON s.id = t.session_id
            WHERE t.id = turn_ratings.turn_id AND s.mode = 'live' AND s.tester = turn_ratings.rater)""")

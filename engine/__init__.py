"""parley's headless core: dialogue systems, user-side rewriters, sessions, scoring.

Never imports textual or tui (an import-linter contract and tests/unit/test_headless.py prove it).
"""

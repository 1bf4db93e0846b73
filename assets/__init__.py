"""Small data shipped in the wheel (MultiWOZ databases under MIT, team-written KB, lexicons, templates)."""

from pathlib import Path

ASSETS_DIR = Path(__file__).resolve().parent


def asset_path(*parts: str) -> Path:
    return ASSETS_DIR.joinpath(*parts)

"""parley — a live tester for task-oriented dialogue systems.

One import namespace over the repository's top-level folders (the design card keeps them there):
``parley.engine``, ``parley.audio``, ``parley.store``, ``parley.tui`` and ``parley.assets`` are relative
symlinks in this folder to ``engine/``, ``audio/``, ``store/``, ``tui/`` and ``assets/``; ``parley.cli`` (the
headless command line) and ``parley.errors`` live here. Symlinks rather than a setuptools ``package-dir``
mapping because mypy cannot see packages that an editable install maps with an import hook; the wheel holds
real files.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]

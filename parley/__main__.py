"""``python -m parley``: the same as the ``parley`` command."""

from parley.cli import main

if __name__ == "__main__":
    main()

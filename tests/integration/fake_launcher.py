"""``python -m tests.integration.fake_launcher ARGS``: the parley command line with one more system,
``tui-hold``, whose load waits until the file named by ``PARLEY_TEST_GATE`` exists (a slow load a test holds
as long as it likes, in a real process)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from parley.engine.systems.echo import EchoSystem
from parley.progress import Progress


class HoldSystem(EchoSystem):
    name = "tui-hold"

    def load(self, progress: Progress = None) -> None:
        gate = Path(os.environ["PARLEY_TEST_GATE"])
        while not gate.exists():
            time.sleep(0.05)


if __name__ == "__main__":
    from parley.cli import main
    from parley.engine.systems import SYSTEMS

    SYSTEMS.register("tui-hold", "tests.integration.fake_launcher:HoldSystem", "loads when a test says")
    main(prog_name="parley")

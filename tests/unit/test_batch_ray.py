"""parley run --backend ray on a local Ray instance: results come back to the driver, which alone
writes SQLite, and the stored sessions equal a serial run's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bots import BotServer, serving
from tests.conftest import require_extra
from tests.corpora import write_corpus
from tests.unit.test_batch_run import normalised_export, run_cli

ray = require_extra("ray", "ray", "ray")

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_backend_matches_serial(tmp_path: Path, local_ray: None) -> None:
    corpus = write_corpus(tmp_path / "c.json", 8)
    server: BotServer
    with serving(latency=0.005) as server:
        common = ["--system", f"remote:url={server.url}/ok", "--dialogues", str(corpus), "--condition",
                  "original", "--condition", "disfluency", "--json", "--bootstrap", "50"]
        serial = run_cli(*common, "--db", str(tmp_path / "s.db"))
        on_ray = run_cli(*common, "--db", str(tmp_path / "r.db"), "--workers", "2", "--backend", "ray")
    assert "2 worker(s) on ray" in on_ray.stderr
    assert json.loads(serial.stdout) == json.loads(on_ray.stdout)
    serial_rows = normalised_export(tmp_path / "s.db", tmp_path / "s.jsonl")
    assert serial_rows == normalised_export(tmp_path / "r.db", tmp_path / "r.jsonl")
    assert ray.is_initialized()  # parley leaves a Ray instance it did not start running

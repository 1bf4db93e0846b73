"""The audio rig's own parts (:mod:`parley.audio.rig`): the tapes that record a null sink's monitor with a
clock, the pacat clients, and the microphone feeder that runs in its own process."""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import subprocess
import sys
import threading
import time

import numpy as np

MIC_RATE = 16000
SPEAKER_RATE = 22050
BLOCK_S = 0.02
LEAD_S = 0.6  # how far the feeder writes ahead of the wall clock: rides out stalls of a busy machine
PIPE_S = 1.0  # audio the feeder's pipe holds: how late the microphone can fall behind the feeder's clock


class Tape:
    """A monitor source recorded with a clock: sample ``i`` was heard at ``t0 + i / rate``.

    ``t0`` is the earliest anchor any chunk allows (arrival time minus the samples before it), so a reader
    thread that is late now and then does not move the clock."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.t0: float | None = None
        self._chunks: list[np.ndarray] = []
        self._n = 0
        self._lock = threading.Lock()

    def record(self, proc: subprocess.Popen[bytes], stop: threading.Event) -> None:
        assert proc.stdout is not None
        nbytes = int(self.rate * BLOCK_S) * 2
        while not stop.is_set():
            data = proc.stdout.read(nbytes)
            if not data:
                return
            now = time.monotonic()
            samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
            with self._lock:
                self._chunks.append(samples)
                self._n += samples.size
                anchor = now - self._n / self.rate
                self.t0 = anchor if self.t0 is None else min(self.t0, anchor)

    def audio(self, since: float | None = None) -> tuple[np.ndarray, float]:
        """The tape from monotonic time ``since`` (default: its start), and the time of its first sample."""
        with self._lock:
            if len(self._chunks) > 1:
                self._chunks = [np.concatenate(self._chunks)]
            audio = self._chunks[0] if self._chunks else np.zeros(0, dtype=np.float32)
            t0 = self.t0 if self.t0 is not None else time.monotonic()
        skip = 0 if since is None else min(audio.size, max(0, int((since - t0) * self.rate)))
        return audio[skip:], t0 + skip / self.rate

    def covers(self, t: float) -> bool:
        """The tape has recorded up to monotonic time ``t``."""
        with self._lock:
            return self.t0 is not None and self.t0 + self._n / self.rate >= t

    def end_of(self, said: np.ndarray, start: float, stop: float) -> float | None:
        """Where the tape heard ``said`` end (monotonic time), searching ``start``..``stop``: the best match
        of its last second (normalised cross-correlation after pre-emphasis, so low-frequency room noise does
        not blur the peak). None when the tape holds too little of that span."""
        from scipy.signal import correlate, lfilter

        tail = lfilter([1.0, -0.97], [1.0], said[-self.rate:]).astype(np.float64)
        audio, t0 = self.audio(start - tail.size / self.rate)
        audio = audio[:int((stop - start) * self.rate) + tail.size]
        if audio.size < tail.size:
            return None
        x = lfilter([1.0, -0.97], [1.0], audio).astype(np.float64)
        energy = np.convolve(x * x, np.ones(tail.size), mode="valid")
        score = correlate(x, tail, mode="valid", method="fft") / np.sqrt(np.maximum(energy, 1e-12))
        return t0 + (int(np.argmax(score)) + tail.size) / self.rate


def pacat(env: dict[str, str], procs: list[subprocess.Popen[bytes]], *args: str) -> subprocess.Popen[bytes]:
    """A pacat client, returned once its stream is connected (its verbose output is drained by a thread)."""
    p = subprocess.Popen(["pacat", "-v", "--raw", "--format=s16le", "--channels=1", "--latency-msec=20",
                          *args], env=env,
                         stdin=subprocess.PIPE if "--playback" in args else subprocess.DEVNULL,
                         stdout=subprocess.PIPE if "--record" in args else subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    procs.append(p)
    ready = threading.Event()

    def drain() -> None:
        assert p.stderr is not None
        seen = b""
        while chunk := p.stderr.read1(4096):  # type: ignore[attr-defined]
            if not ready.is_set():
                seen += chunk
                if b"Connected to device" in seen:
                    ready.set()
        ready.set()

    threading.Thread(target=drain, name="rig-pacat-log", daemon=True).start()
    ready.wait(10)
    return p


def feed(noise_dbfs: float | None, seed: int) -> int:
    """The feeder process (``python -m parley.audio.rig --feed``): room noise into the microphone sink, paced
    by the wall clock, with the speech of every raw float32 file named on stdin mixed in; prints, per file,
    the monotonic time its last sample is due in the sink (CLOCK_MONOTONIC is shared by all processes)."""
    with contextlib.suppress(OSError):  # a sound card is not starved by a busy CPU: nor is the rig (as root)
        os.nice(-10)
    procs: list[subprocess.Popen[bytes]] = []
    proc = pacat(dict(os.environ), procs, "--playback", "--device=parley_mic", f"--rate={MIC_RATE}",
                  "--client-name=parley-rig-mic")
    assert proc.stdin is not None
    with contextlib.suppress(OSError, AttributeError):  # keep little audio in flight (Linux)
        fcntl.fcntl(proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, int(PIPE_S * MIC_RATE * 2))
    requests: queue.Queue[str | None] = queue.Queue()

    def read_requests() -> None:
        for line in sys.stdin:
            requests.put(line.strip())
        requests.put(None)

    threading.Thread(target=read_requests, daemon=True).start()
    rng = np.random.default_rng(seed)
    rms = 0.0 if noise_dbfs is None else 10.0 ** (noise_dbfs / 20.0)
    block = int(MIC_RATE * BLOCK_S)
    current: np.ndarray | None = None
    pos = written = 0
    print("ready", flush=True)
    t0 = time.monotonic()
    try:
        while True:
            due = (time.monotonic() - t0 + LEAD_S) * MIC_RATE
            if written > due:
                time.sleep(min(BLOCK_S, (written - due) / MIC_RATE))
                continue
            if written + block < due - 4 * block:  # we fell behind (a stall): re-anchor the clock
                t0 = time.monotonic() + LEAD_S - written / MIC_RATE
            chunk = (rng.standard_normal(block) * rms).astype(np.float32)
            if current is None and not requests.empty():
                name = requests.get()
                if name is None:
                    return 0
                current, pos = np.fromfile(name, dtype="<f4"), 0
            if current is not None:
                part = current[pos:pos + block]
                chunk[:part.size] += part
                pos += part.size
                if pos >= current.size:
                    print(f"{t0 + (written + part.size) / MIC_RATE:.6f}", flush=True)
                    current = None
            proc.stdin.write((np.clip(chunk, -1.0, 1.0) * 32767).astype("<i2").tobytes())
            proc.stdin.flush()
            written += block
    except (BrokenPipeError, OSError, ValueError, KeyboardInterrupt):
        return 0
    finally:
        for p in procs:
            p.terminate()

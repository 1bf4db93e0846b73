"""A loopback microphone and speaker for machines without a sound card, through the real audio stack.

A private PulseAudio server with two null sinks, reached by parley through PortAudio → ALSA → the ALSA pulse
plugin, exactly as a desktop microphone would be:

- ``parley_mic``: the rig speaks into this sink. Its monitor is the server's default source, so PortAudio's
  ALSA ``default`` capture device hears it. The rig writes background noise all the time (a room is never
  silent) and mixes speech in on :meth:`Rig.say`, paced by the wall clock, so speech arrives in real time.
- ``parley_speaker``: the default sink; whatever parley plays lands here. The rig records its monitor
  (:meth:`Rig.heard`), which also keeps the sink's clock running at low latency (an idle null sink sleeps in
  2 s blocks and would delay the first reply by up to 2 s).

Needs the Debian packages ``pulseaudio``, ``pulseaudio-utils`` (pacat) and ``libasound2-plugins`` (the ALSA
pulse plugin); ``./setup.sh test`` installs them. :func:`missing` says what is absent. By hand,
``python -m parley.audio.rig`` starts a rig, prints the environment for parley, and speaks every WAV path (or
sentence, synthesised with piper) typed at it.

A client process needs :attr:`Rig.env` in its environment before PortAudio starts; a process that already
imported sounddevice calls :func:`parley.audio.devices.rescan` after changing its environment.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from parley.audio.rig_tape import BLOCK_S, LEAD_S, MIC_RATE, PIPE_S, SPEAKER_RATE, Tape, feed, pacat
from parley.errors import ParleyError

__all__ = ["BLOCK_S", "MIC_RATE", "SPEAKER_RATE", "Rig", "RigError", "missing"]

ALSA_TOP = Path("/usr/share/alsa/alsa.conf")
_PLUGIN_DIRS = ("/usr/lib/x86_64-linux-gnu/alsa-lib", "/usr/lib/aarch64-linux-gnu/alsa-lib",
                "/usr/lib/alsa-lib", "/usr/lib64/alsa-lib")


class RigError(ParleyError):
    """The rig could not start (packages missing, the server did not come up)."""


def missing() -> list[str]:
    """What the rig needs and this machine lacks (Debian package names); empty when it can run."""
    out = []
    if not shutil.which("pulseaudio"):
        out.append("pulseaudio")
    if not shutil.which("pacat"):
        out.append("pulseaudio-utils")
    if not any(Path(d, "libasound_module_pcm_pulse.so").is_file() for d in _PLUGIN_DIRS):
        out.append("libasound2-plugins")
    if not ALSA_TOP.is_file():
        out.append("libasound2-data")
    return out


def _pulse_script(socket: Path) -> str:
    return "\n".join((
        f"load-module module-null-sink sink_name=parley_mic rate={MIC_RATE} channels=1 "
        "sink_properties=device.description=parley-rig-microphone",
        f"load-module module-null-sink sink_name=parley_speaker rate={SPEAKER_RATE} channels=1 "
        "sink_properties=device.description=parley-rig-speaker",
        f"load-module module-native-protocol-unix socket={socket} auth-anonymous=1",
        "set-default-source parley_mic.monitor",
        "set-default-sink parley_speaker", ""))


_ASOUND = "pcm.!default { type pulse }\nctl.!default { type pulse }\n"


def _short_dir() -> Path:
    """A private folder whose socket path fits the 108-byte limit of unix sockets."""
    base = tempfile.gettempdir()
    if len(base) > 60:
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix="prig-", dir=base))


class Rig:
    """Start with ``with Rig() as rig:``; ``rig.env`` for clients, ``rig.say(wav)``, ``rig.heard()``.

    ``noise_dbfs`` is the level (RMS, dB full scale) of the background noise written between and under the
    speech (None: digital silence). ``seed`` makes the noise reproducible.
    """

    def __init__(self, *, noise_dbfs: float | None = -50.0, seed: int = 0) -> None:
        self.noise_dbfs = noise_dbfs
        self.dir = _short_dir()
        self.socket = self.dir / "native"
        self.env = {"PULSE_SERVER": f"unix:{self.socket}",
                    "ALSA_CONFIG_PATH": f"{ALSA_TOP}:{self.dir / 'asound.conf'}"}
        self.seed = seed
        self._procs: list[subprocess.Popen[bytes]] = []
        self._pending: queue.Queue[tuple[threading.Event, list[float]]] = queue.Queue()
        self._said = 0
        self._say_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.mic_tape = Tape(MIC_RATE)        # what parley's microphone hears (the mic sink's monitor)
        self.speaker_tape = Tape(SPEAKER_RATE)  # what parley played

    # -- life cycle ------------------------------------------------------------------------------------
    def start(self, timeout: float = 15.0) -> Rig:
        lacking = missing()
        if lacking:
            raise RigError(f"the audio rig needs the Debian packages {' '.join(lacking)} "
                           "(./setup.sh test as root)")
        for sub in ("home", "run", "state"):
            (self.dir / sub).mkdir(mode=0o700, exist_ok=True)
        (self.dir / "rig.pa").write_text(_pulse_script(self.socket), encoding="utf-8")
        (self.dir / "asound.conf").write_text(_ASOUND, encoding="utf-8")
        server_env = {**os.environ, "HOME": str(self.dir / "home"), "XDG_RUNTIME_DIR": str(self.dir / "run"),
                      "XDG_CONFIG_HOME": str(self.dir / "home"), "PULSE_RUNTIME_PATH": str(self.dir / "run"),
                      "PULSE_STATE_PATH": str(self.dir / "state")}
        server_env.pop("PULSE_SERVER", None)
        log = open(self.dir / "pulseaudio.log", "wb")  # noqa: SIM115 - kept open for the server's life
        self._procs.append(subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=no",
             "--realtime=no", "--high-priority=yes", "-F", str(self.dir / "rig.pa"), "--log-target=stderr"],
            env=server_env, stdout=log, stderr=log, stdin=subprocess.DEVNULL))
        log.close()
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self._procs[0].poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = (self.dir / "pulseaudio.log").read_text(errors="replace").strip().splitlines()[-1:]
                raise RigError(f"the PulseAudio rig did not start ({' '.join(tail) or 'no output'})")
            time.sleep(0.05)
        for tape, device in ((self.mic_tape, "parley_mic.monitor"),
                             (self.speaker_tape, "parley_speaker.monitor")):
            proc = pacat(self._client_env(), self._procs, "--record", f"--device={device}",
                          f"--rate={tape.rate}", "--client-name=parley-rig-tape")
            self._start_thread(lambda proc=proc, tape=tape: tape.record(proc, self._stop), "rig-tape")
        # an idle null sink sleeps in 2 s blocks: wait until both run, or the feeder would queue up that stall
        while self.speaker_tape.t0 is None or self.mic_tape.t0 is None:
            if time.monotonic() > deadline + 5.0:
                self.stop()
                raise RigError("the rig's sinks delivered no audio")
            time.sleep(0.02)
        self._start_feeder()
        return self

    def __enter__(self) -> Rig:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the feeder, the recorder and the server; remove the rig's folder."""
        self._stop.set()
        for p in reversed(self._procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(self._procs):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        for t in self._threads:
            t.join(5)
        self._procs.clear()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _start_thread(self, target: object, name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)  # type: ignore[arg-type]
        t.start()
        self._threads.append(t)

    def _client_env(self) -> dict[str, str]:
        return {**os.environ, **self.env, "HOME": str(self.dir / "home")}

    # -- the microphone --------------------------------------------------------------------------------
    def say(self, audio: str | os.PathLike[str] | np.ndarray, *, wait: bool = True,
            timeout: float = 120.0) -> float:
        """Speak ``audio`` (a WAV path or 16 kHz float samples) into the microphone, over the background
        noise. With ``wait`` returns once the last sample has been handed to the server: the monotonic time at
        which the microphone heard it (the end of speech: found on the microphone's monitor by
        cross-correlation); without, returns at once (0.0)."""
        samples = _load_16k(audio)
        done, when = threading.Event(), [0.0]
        with self._say_lock:
            self._said += 1
            raw = self.dir / f"say-{self._said}.f32"
            samples.astype("<f4").tofile(raw)
            self._pending.put((done, when))
            feeder = self._feeder
            assert feeder.stdin is not None
            feeder.stdin.write(f"{raw}\n".encode())
            feeder.stdin.flush()
        if not wait:
            return 0.0
        if not done.wait(timeout + samples.size / MIC_RATE):
            raise RigError("the rig's microphone stopped feeding")
        # the feeder's estimate (due when written, up to LEAD_S early), then what the microphone really heard
        start, stop = when[0] - LEAD_S - 0.5, when[0] + PIPE_S + 0.5
        deadline = time.monotonic() + 5.0
        while not self.mic_tape.covers(stop) and time.monotonic() < deadline:
            time.sleep(0.02)
        heard = self.mic_tape.end_of(samples, start, stop)
        return heard if heard is not None else when[0]

    def _start_feeder(self) -> None:
        """The microphone's feeder runs in its own process, so a busy test process cannot starve it."""
        noise = -200.0 if self.noise_dbfs is None else self.noise_dbfs  # -200 dBFS: digital silence
        args = [sys.executable, "-m", "parley.audio.rig", "--feed", f"--seed={self.seed}",
                f"--noise-dbfs={noise}"]
        self._feeder = subprocess.Popen(args, env=self._client_env(), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._procs.append(self._feeder)
        assert self._feeder.stdout is not None
        if self._feeder.stdout.readline().strip() != b"ready":
            raise RigError("the rig's microphone feeder did not start")

        def replies() -> None:
            assert self._feeder.stdout is not None
            for line in self._feeder.stdout:
                done, when = self._pending.get()
                when[0] = float(line)
                done.set()

        self._start_thread(replies, "rig-mic-replies")

    # -- the speaker -----------------------------------------------------------------------------------
    def heard(self, since: float | None = None) -> tuple[np.ndarray, float]:
        """What the speaker played (22.05 kHz float) from monotonic time ``since`` (default: the start), and
        the monotonic time of its first sample."""
        return self.speaker_tape.audio(since)

    def first_sound_after(self, since: float, threshold: float = 0.01) -> float | None:
        """Monotonic time of the first sample above ``threshold`` the speaker played after ``since``."""
        audio, t0 = self.heard(since)
        loud = np.flatnonzero(np.abs(audio) > threshold)
        return None if loud.size == 0 else t0 + float(loud[0]) / SPEAKER_RATE


def _load_16k(audio: str | os.PathLike[str] | np.ndarray) -> np.ndarray:
    from parley.audio.asr import load_audio

    return load_audio(audio, MIC_RATE)


def main(argv: list[str] | None = None) -> int:
    """``python -m parley.audio.rig``: a rig for trying voice mode by hand (see the module doc)."""
    import argparse
    import shlex

    ap = argparse.ArgumentParser(prog="python -m parley.audio.rig", description=main.__doc__)
    ap.add_argument("--noise-dbfs", type=float, default=-50.0, help="room noise level (default -50 dBFS)")
    ap.add_argument("--env-file", default=None, help="also write the environment as shell exports here")
    ap.add_argument("--seed", type=int, default=0, help="noise seed")
    ap.add_argument("--feed", action="store_true", help=argparse.SUPPRESS)  # the rig's own feeder process
    args = ap.parse_args(argv)
    if args.feed:
        return feed(args.noise_dbfs, args.seed)
    lacking = missing()
    if lacking:
        print(f"parley: error: the rig needs the Debian packages {' '.join(lacking)}", file=sys.stderr)
        return 2
    with Rig(noise_dbfs=args.noise_dbfs) as rig:
        exports = "export " + " ".join(f"{k}={shlex.quote(v)}" for k, v in rig.env.items())
        if args.env_file:
            Path(args.env_file).write_text(exports + "\n", encoding="utf-8")
        print(f"rig running. In another terminal:\n  {exports}\n  parley        # ctrl+t: voice mode\n"
              "Type a WAV path or a sentence and press enter to speak it; ctrl+d ends the rig.", flush=True)
        for line in sys.stdin:
            text = line.strip()
            if not text:
                continue
            path = Path(text).expanduser()
            if not path.is_file():
                path = rig.dir / "said.wav"
                from parley.audio.utterances import make_utterance

                make_utterance(text, path, snr_db=None, lead_s=0.0, tail_s=0.0)
            print(f"said it; speech ended at {rig.say(path):.3f} (monotonic)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Voice input (push-to-talk, level meter, ASR) and spoken replies for the chat screen.

:class:`VoiceInput` is the level meter line plus the workers behind it. ``toggle()`` starts recording; a
worker checks the microphone, records until ``toggle()`` again (or the speaker stops, or ``max_seconds``),
transcribes with the configured Whisper model and posts :class:`tui.messages.VoiceTranscript`, which the
screen sends into the session like typed text (``audio_in`` + the ASR details in ``input_info``).
``speak(text)`` says a reply. With no microphone, no PortAudio or no audio package, one clear message is shown
and typed input keeps working; audio errors never end the app. All audio imports happen inside the workers.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from parley.tui import messages as M
from parley.tui.notify import tell
from parley.tui.widgets.level import LevelMeter

if TYPE_CHECKING:
    from parley.tui.app import ParleyApp


class VoiceInput(Widget):
    """The level meter (shown while recording) and the voice and speech workers; posts ``M.Status`` lines and
    ``M.VoiceTranscript`` for the screen."""

    DEFAULT_CSS = "VoiceInput { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stop = threading.Event()
        self.recording = False
        self._speak_warned = False

    @property
    def parley(self) -> ParleyApp:
        return cast("ParleyApp", self.app)

    def compose(self) -> ComposeResult:
        yield LevelMeter(id="level")

    def on_mount(self) -> None:
        self._meter(False)

    def on_unmount(self) -> None:
        self.stop.set()

    def _meter(self, show: bool) -> None:
        self.query_one(LevelMeter).display = show

    def toggle(self) -> None:
        """Start recording, or stop the recording in progress (it is then transcribed)."""
        if self.recording:
            self.stop.set()
            self.post_message(M.Status("transcribing…"))
            return
        settings = self.parley.settings
        if settings is None:
            tell(self, "Still starting up; try again in a moment.", severity="warning")
            return
        self.recording = True
        self.stop = threading.Event()
        stop, audio = self.stop, settings.audio

        def level(value: float) -> None:
            self.post_message(M.Level(float(value)))

        def progress(text: str) -> None:
            self.post_message(M.Status(text))

        def work() -> None:
            try:
                from parley.audio import devices
            except Exception as e:  # the audio package is missing or broken
                self.post_message(M.VoiceUnavailable(f"Voice input is unavailable ({type(e).__name__}: {e}); "
                                                     "typed input keeps working."))
                return
            status = devices.check_input()
            if not status.available:
                self.post_message(M.VoiceUnavailable(status.reason or "No microphone was found."))
                return
            from parley.audio.capture import record_utterance
            from parley.engine.locations import audio_dir, ensure_dir

            out = ensure_dir(audio_dir()) / f"in-{time.strftime('%Y%m%d-%H%M%S')}-{threading.get_ident()}.wav"
            self.post_message(M.Status("recording — press the voice key again to stop"))
            try:
                rec = record_utterance(str(out), stop, on_level=level,
                                       max_seconds=audio.max_seconds, vad=audio.vad)
            except devices.AudioUnavailable as e:  # the microphone vanished or could not be opened
                self.post_message(M.VoiceUnavailable(str(e)))
                return
            self.post_message(M.Status("transcribing…"))
            from parley.audio.asr import get_asr

            asr = get_asr(audio.asr_model, progress=progress)
            tr = asr.transcribe(rec.path)
            info = {"asr": tr.to_json(), "recording": {"seconds": rec.seconds, "sample_rate": rec.sample_rate}}
            self.post_message(M.VoiceTranscript(tr.text.strip(), str(rec.path), info))

        self.run_worker(work, name="voice", group="voice", description="voice input", thread=True,
                        exclusive=True, exit_on_error=False)

    def _done(self) -> None:
        self.recording = False
        self._meter(False)
        self.post_message(M.Status(""))

    @on(M.Level)
    def _level(self, event: M.Level) -> None:
        event.stop()
        self._meter(True)
        self.query_one(LevelMeter).level = event.value

    @on(M.VoiceUnavailable)
    def _unavailable(self, event: M.VoiceUnavailable) -> None:
        event.stop()
        self._done()
        tell(self, event.reason, title="Voice input", severity="warning", timeout=8)

    @on(M.VoiceTranscript)
    def _transcript(self, event: M.VoiceTranscript) -> None:
        self._done()  # the message bubbles on to the screen, which sends the text
        if not event.text:
            event.stop()
            tell(self, "Nothing was recognised; try again or type.", severity="warning")

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if event.state == WorkerState.ERROR:
            error = f"{type(event.worker.error).__name__}: {event.worker.error}"
            if group == "voice":
                self._done()
                tell(self, f"Voice input failed: {error}. Typed input keeps working.", severity="error",
                     timeout=8)
            elif not self._speak_warned:  # say it once, not on every reply
                self._speak_warned = True
                tell(self, f"Speaking replies failed: {error}", severity="warning", timeout=8)
        elif event.state in (WorkerState.SUCCESS, WorkerState.CANCELLED) and group == "voice" \
                and self.recording:
            self._done()

    # -- spoken replies -------------------------------------------------------------------------------------
    def speak(self, text: str) -> None:
        """Say ``text`` with the configured TTS when spoken replies are on (this run's toggle)."""
        settings = self.parley.settings
        if settings is None or not self.parley.toggles.speak_replies or not text.strip():
            return
        backend = settings.audio.tts

        def work() -> None:
            from parley.audio.tts import speak
            from parley.engine.locations import audio_dir, ensure_dir

            out = ensure_dir(audio_dir()) / f"out-{time.strftime('%Y%m%d-%H%M%S')}-{threading.get_ident()}.wav"
            speak(text, backend, str(out))

        self.run_worker(work, name="speak", group="speak", description="speak reply", thread=True,
                        exclusive=True, exit_on_error=False)

    def toggle_speaking(self) -> None:
        """Speak replies, or stop, for this run (saved as a default only from the palette)."""
        if self.parley.settings is None:
            tell(self, "Still starting up; try again in a moment.", severity="warning")
            return
        toggles = self.parley.toggles
        toggles.speak_replies = not toggles.speak_replies
        self._speak_warned = False  # a failure is worth one warning again
        tell(self, ("Replies will be spoken" if toggles.speak_replies else "Replies will not be spoken")
             + " in this run (palette: Save toggles as defaults keeps it).")

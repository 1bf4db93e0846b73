"""Voice input (push-to-talk, level meter, ASR) and spoken replies for the chat screen.

The voice key toggles recording. A worker checks the microphone, records until the key is pressed again (or the
speaker stops, or ``max_seconds``), transcribes with the configured Whisper model and posts the transcript, which
enters the session like typed text (``audio_in`` + the ASR details in ``input_info``). With no microphone, no
PortAudio or no audio package, one clear message is shown and typed input keeps working; audio errors never end
the app. All audio imports happen inside the workers.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from parley.tui import messages as M


class VoiceMixin:
    """Mixed into ChatScreen (which provides post_message, notify, run_worker, query_one, app, submit_turn).

    Handlers use the ``on_<message>`` naming convention because ``@on`` only registers on MessagePump classes.
    """

    voice_stop: threading.Event
    _recording: bool = False
    _speak_warned: bool = False

    def action_voice(self) -> None:
        this: Any = self
        if self._recording:
            self.voice_stop.set()
            this.status.activity = "transcribing…"
            return
        if not getattr(this, "booted", False):
            this.notify("Still starting up; try again in a moment.", severity="warning")
            return
        if getattr(this, "locked", False):
            this.notify("Session locked (dialogue rated) — ctrl+n starts a new session", severity="warning")
            return
        self._recording = True
        self.voice_stop = threading.Event()
        stop = self.voice_stop
        settings = this.app.settings.audio

        def work() -> None:
            try:
                from parley.audio import devices
            except Exception as e:  # the audio package is missing or broken
                this.post_message(M.VoiceUnavailable(f"Voice input is unavailable ({type(e).__name__}: {e}); "
                                                     "typed input keeps working."))
                return
            status = devices.check_input()
            if not status.available:
                this.post_message(M.VoiceUnavailable(status.reason or "No microphone was found."))
                return
            from parley.audio.capture import record_utterance
            from parley.engine.locations import audio_dir, ensure_dir

            out = ensure_dir(audio_dir()) / f"in-{time.strftime('%Y%m%d-%H%M%S')}-{threading.get_ident()}.wav"
            this.post_message(M.Status("recording — press the voice key again to stop"))
            try:
                rec = record_utterance(str(out), stop, on_level=lambda v: this.post_message(M.Level(float(v))),
                                       max_seconds=settings.max_seconds, vad=settings.vad)
            except devices.AudioUnavailable as e:  # the microphone vanished or could not be opened
                this.post_message(M.VoiceUnavailable(str(e)))
                return
            this.post_message(M.Status("transcribing…"))
            from parley.audio.asr import get_asr

            asr = get_asr(settings.asr_model, progress=lambda t: this.post_message(M.Status(t)))
            tr = asr.transcribe(rec.path)
            info = {"asr": tr.to_json(), "recording": {"seconds": rec.seconds, "sample_rate": rec.sample_rate}}
            this.post_message(M.VoiceTranscript(tr.text.strip(), str(rec.path), info))

        this.run_worker(work, name="voice", group="voice", description="voice input", thread=True,
                        exclusive=True, exit_on_error=False)

    def _meter(self, show: bool) -> None:
        this: Any = self
        from parley.tui.widgets.level import LevelMeter

        this.query_one(LevelMeter).display = show

    def on_level(self, event: M.Level) -> None:
        from parley.tui.widgets.level import LevelMeter

        self._meter(True)
        this: Any = self
        this.query_one(LevelMeter).level = event.value

    def on_voice_unavailable(self, event: M.VoiceUnavailable) -> None:
        this: Any = self
        self._recording = False
        self._meter(False)
        this.status.activity = ""
        this.notify(event.reason, title="Voice input", severity="warning", timeout=8)
        this.prompt.focus()

    def on_voice_transcript(self, event: M.VoiceTranscript) -> None:
        this: Any = self
        self._recording = False
        self._meter(False)
        this.status.activity = ""
        if not event.text:
            this.notify("Nothing was recognised; try again or type.", severity="warning")
            return
        this.submit_turn(event.text, audio_in=event.audio_path, info=event.info)

    def voice_failed(self, group: str, error: str) -> None:
        this: Any = self
        if group == "voice":
            self._recording = False
            self._meter(False)
            this.status.activity = ""
            this.notify(f"Voice input failed: {error}. Typed input keeps working.", severity="error", timeout=8)
        elif not self._speak_warned:  # say it once, not on every reply
            self._speak_warned = True
            this.notify(f"Speaking replies failed: {error}", severity="warning", timeout=8)

    def voice_finished(self) -> None:
        self._recording = False
        self._meter(False)

    # -- spoken replies -------------------------------------------------------------------------------------
    def action_toggle_speak(self) -> None:
        this: Any = self
        if this.app.settings is None:
            this.notify("Still starting up; try again in a moment.", severity="warning")
            return
        audio = this.app.settings.audio
        on_ = not audio.speak_replies
        this.app.save_setting(audio=audio.model_copy(update={"speak_replies": on_}))
        self._speak_warned = False
        this.notify("Replies will be spoken." if on_ else "Replies will not be spoken.")

    def maybe_speak(self, text: str) -> None:
        this: Any = self
        if this.app.settings is None:
            return
        audio = this.app.settings.audio
        if not audio.speak_replies or not text.strip():
            return
        backend = audio.tts

        def work() -> None:
            from parley.audio.tts import speak
            from parley.engine.locations import audio_dir, ensure_dir

            out = ensure_dir(audio_dir()) / f"out-{time.strftime('%Y%m%d-%H%M%S')}-{threading.get_ident()}.wav"
            speak(text, backend, str(out))

        this.run_worker(work, name="speak", group="speak", description="speak reply", thread=True,
                        exclusive=True, exit_on_error=False)

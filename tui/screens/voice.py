"""Voice mode for the chat screen: hands-free spoken turns, spoken replies, barge-in, warm models.

The voice key switches voice mode on: a worker loads the models at once (Silero VAD, Whisper, the voice;
progress
in the status bar), opens the microphone and listens. Every utterance the end-pointer cuts
(:class:`parley.audio.listen.Listener`: ``end_silence_ms`` after the speaker stops) is transcribed and enters
the
session like typed text, with its recording and ASR details. Replies are spoken sentence by sentence as they
are made (:func:`parley.audio.speaker.speak_reply`); speaking over a reply stops it (barge-in). The reply WAV
and
the stage latencies are stored on the system turn and shown in the internals view. The voice key again ends
voice mode (an utterance in progress still becomes a turn). With no microphone, no PortAudio or no audio
package,
one clear message is shown and typed input keeps working; audio errors never end the app.

Turning spoken replies (``f6``) or the ``asr-real`` rewriter on loads their models in a worker at once too.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from textual.message import Message

from parley.tui import messages as M

if TYPE_CHECKING:
    from parley.tui.screens.chat import ChatScreen


@dataclass
class VoiceListening(Message):
    """The models are warm and the microphone is open."""

    device: str


@dataclass
class VoiceHeard(Message):
    """An utterance was transcribed (``spoken`` is an audio.voice.SpokenInput)."""

    spoken: Any


@dataclass
class ReplySpoken(Message):
    """A reply was spoken (or only saved); ``timings`` were stored on the system turn."""

    turn_id: str | None
    timings: dict[str, Any]


@dataclass
class ModelsWarm(Message):
    """Models named in ``what`` finished loading in a worker."""

    what: str


class VoiceMixin:
    """Mixed into ChatScreen (which provides post_message, notify, run_worker, query, app, submit_turn).

    Handlers use the ``on_<message>`` naming convention because ``@on`` only registers on MessagePump classes.
    """

    voice_stop: threading.Event
    _listening: bool = False
    _speak_warned: bool = False
    _speak_stop: threading.Event | None = None
    _spoken_inputs: dict[int, Any]

    def voice_init(self) -> None:
        """Called from ChatScreen.__init__."""
        self.voice_stop = threading.Event()
        self._spoken_inputs = {}

    @property
    def _screen(self) -> ChatScreen:
        return cast("ChatScreen", self)

    @property
    def listening(self) -> bool:
        return self._listening

    # -- voice mode
    # -------------------------------------------------------------------------------------------
    def action_voice(self) -> None:
        chat = self._screen
        if self._listening:
            self.voice_stop.set()
            chat.status.activity = "voice off…"
            return
        if not chat.booted:
            chat.notify("Still starting up; try again in a moment.", severity="warning")
            return
        if chat.locked:
            chat.notify("Session locked (dialogue rated) — ctrl+n starts a new session", severity="warning")
            return
        self._listening = True
        self.voice_stop = threading.Event()
        stop = self.voice_stop
        settings = chat.app.settings.audio  # type: ignore[attr-defined]
        speak = settings.speak_replies or settings.hands_free

        def work() -> None:
            try:
                from parley.audio import devices
            except Exception as e:  # the audio package is missing or broken
                chat.post_message(M.VoiceUnavailable(f"Voice input is unavailable ({type(e).__name__}: {e}); "
                                                     "typed input keeps working."))
                return
            status = devices.check_input()
            if not status.available:
                chat.post_message(M.VoiceUnavailable(status.reason or "No microphone was found."))
                return
            device = status.input_devices[0] if status.input_devices else "microphone"
            self._listen(stop, settings, speak, device)

        chat.run_worker(work, name="voice", group="voice", description="voice input", thread=True,
                        exclusive=True, exit_on_error=False)

    def _listen(self, stop: threading.Event, settings: Any, speak: bool, device: str) -> None:
        """The voice worker: warm the models, then listen until ``stop`` (runs in a thread)."""
        from parley.audio.asr import get_asr
        from parley.audio.capture import MicStream, level_of
        from parley.audio.devices import AudioUnavailable
        from parley.audio.listen import Listener
        from parley.audio.voice import from_heard, transcriber

        chat = self._screen
        say = self._progress
        asr = get_asr(settings.asr_model, progress=say)
        if speak:
            from parley.audio.tts import get_tts

            get_tts(settings.tts, say)
        end_silence = settings.end_silence_ms / 1000 if settings.vad else settings.max_seconds + 1
        listener = Listener(transcriber(asr, short_window=settings.short_window), end_silence_s=end_silence,
                            max_seconds=settings.max_seconds,
                            on_speech=self._barge_in if settings.barge_in else None)
        one_shot = not (settings.hands_free and settings.vad)
        try:
            with MicStream() as mic:
                chat.post_message(VoiceListening(device))
                for t, block in mic.blocks(stop):
                    chat.post_message(M.Level(level_of(block)))
                    heard = listener.feed(t, block)
                    for h in heard:
                        spoken = from_heard(h)
                        spoken.info["recording"]["overflows"] = mic.overflows  # audio lost so far
                        chat.post_message(VoiceHeard(spoken))
                    if heard and one_shot:
                        return
                for h in listener.flush():  # the voice key ended voice mode mid-utterance: keep it
                    chat.post_message(VoiceHeard(from_heard(h)))
        except AudioUnavailable as e:  # the microphone vanished or could not be opened
            chat.post_message(M.VoiceUnavailable(str(e)))
        finally:
            listener.close()

    def _progress(self, text: str) -> None:
        self._screen.post_message(M.Status(text))

    def _barge_in(self) -> None:
        """The tester started speaking (listener thread): stop the reply being played."""
        stop = self._speak_stop
        if stop is not None and not stop.is_set():
            stop.set()
            self._screen.post_message(M.Status("barge-in: reply stopped"))

    def on_voice_listening(self, event: VoiceListening) -> None:
        chat = self._screen
        self._meter(True)
        chat.status.activity = f"listening ({event.device}) — speak; the voice key ends voice mode"

    def _meter(self, show: bool) -> None:
        from parley.tui.widgets.level import LevelMeter

        meter = self._screen.query_one(LevelMeter)
        meter.display = show
        meter.label = "listening — the voice key ends voice mode"

    def on_level(self, event: M.Level) -> None:
        from parley.tui.widgets.level import LevelMeter

        if self._listening:
            self._screen.query_one(LevelMeter).level = event.value

    def on_voice_unavailable(self, event: M.VoiceUnavailable) -> None:
        chat = self._screen
        self._voice_ended()
        chat.notify(event.reason, title="Voice input", severity="warning", timeout=8)
        chat.prompt.focus()

    def on_voice_heard(self, event: VoiceHeard) -> None:
        chat = self._screen
        spoken = event.spoken
        if not spoken.text:
            chat.notify("Nothing was recognised; try again or type.", severity="warning")
            return
        ticket = chat.submit_turn(spoken.text, audio_in=spoken.audio_path, info=spoken.info)
        self._spoken_inputs[ticket] = spoken
        if self._listening:
            chat.status.activity = "listening…"

    def _voice_ended(self) -> None:
        self._listening = False
        self._meter(False)
        self._screen.status.activity = ""

    def voice_failed(self, group: str, error: str) -> None:
        chat = self._screen
        if group == "voice":
            self._voice_ended()
            chat.notify(f"Voice input failed: {error}. Typed input keeps working.", severity="error",
                        timeout=8)
        elif not self._speak_warned:  # say it once, not on every reply
            self._speak_warned = True
            chat.notify(f"Speaking replies failed: {error}", severity="warning", timeout=8)

    def voice_finished(self) -> None:
        self._voice_ended()

    def stop_voice(self) -> None:
        """Leaving: stop listening and speaking (their threads end within a block)."""
        self.voice_stop.set()
        if self._speak_stop is not None:
            self._speak_stop.set()

    # -- spoken replies -------------------------------------------------------------------------------------
    def action_toggle_speak(self) -> None:
        chat = self._screen
        app: Any = chat.app
        if app.settings is None:
            chat.notify("Still starting up; try again in a moment.", severity="warning")
            return
        audio = app.settings.audio
        on_ = not audio.speak_replies
        app.save_setting(audio=audio.model_copy(update={"speak_replies": on_}))
        self._speak_warned = False
        chat.notify("Replies will be spoken." if on_ else "Replies will not be spoken.")
        if on_:
            self.warm_voice()

    def maybe_speak(self, ticket: int, exchange: Any) -> None:
        """Speak a reply (spoken replies on, or hands-free voice mode) and store its WAV and latencies."""
        chat = self._screen
        app: Any = chat.app
        replied = time.monotonic()
        spoken_in = self._spoken_inputs.pop(ticket, None)
        if app.settings is None or exchange.reply is None or not exchange.reply.text.strip():
            return
        audio = app.settings.audio
        if not (audio.speak_replies or (self._listening and audio.hands_free)):
            return
        if self._speak_stop is not None:  # a newer reply replaces one still playing
            self._speak_stop.set()
        stop = self._speak_stop = threading.Event()
        session, text, backend = chat.session, exchange.reply.text, audio.tts

        def work() -> None:
            from parley.audio.speaker import speak_reply
            from parley.audio.tts import get_tts
            from parley.audio.voice import reply_timings

            tts = get_tts(backend, self._progress)
            spoken = speak_reply(tts, text, session.reply_audio_path(exchange), stop=stop)
            timings = reply_timings(spoken_in, replied, spoken)
            session.record_speech(exchange, spoken.path, timings)
            chat.post_message(ReplySpoken(exchange.system_turn_id, timings))
            if spoken.error:
                raise RuntimeError(spoken.error)

        chat.run_worker(work, name="speak", group="speak", description="speak reply", thread=True,
                        exit_on_error=False)

    def on_reply_spoken(self, event: ReplySpoken) -> None:
        from rich.text import Text
        from textual.widgets import Static

        from parley.audio.voice import format_timings

        chat = self._screen
        lines = format_timings(event.timings)
        for view in chat.log_view.system_views():
            if view.turn_id == event.turn_id and lines:
                view.mount(Static(Text("\n".join(lines)), classes="internals voice-timings"))
        if chat.status.activity.startswith(("barge-in", "loading", "warming")):
            chat.status.activity = "listening…" if self._listening else ""

    # -- warm models ------------------------------------------------------------------------------------
    def warm_voice(self) -> None:
        """Load the reply voice in a worker now, with progress, not on the first reply."""
        chat = self._screen
        backend = chat.app.settings.audio.tts  # type: ignore[attr-defined]

        def work() -> None:
            from parley.audio.tts import get_tts

            get_tts(backend, self._progress)
            chat.post_message(ModelsWarm(f"voice {backend}"))

        chat.run_worker(work, name="warm voice", group="warm", description="loading the voice", thread=True,
                        exit_on_error=False)

    def warm_chain(self, chain: Any) -> None:
        """Load the models of a chain's rewriters (``asr-real``) in a worker now, with progress."""
        if not any(getattr(s, "name", "") == "asr-real" for s in chain.specs):
            return
        chat = self._screen

        def work() -> None:
            chain.load(self._progress)
            chat.post_message(ModelsWarm(chain.name))

        chat.run_worker(work, name="warm chain", group="warm", description="loading the asr-real models",
                        thread=True, exit_on_error=False)

    def on_models_warm(self, event: ModelsWarm) -> None:
        chat = self._screen
        chat.status.activity = "listening…" if self._listening else ""
        chat.notify(f"Ready: {event.what}", timeout=3)

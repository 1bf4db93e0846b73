"""Voice mode and spoken replies for the chat screen: hands-free spoken turns, barge-in, warm models.

:class:`VoiceInput` is the level meter line plus the workers behind it. ``toggle()`` switches voice mode on: a
worker loads the models at once (Silero VAD, Whisper, the voice; progress in the status bar), opens the
microphone and listens. Every utterance the end-pointer cuts (:class:`parley.audio.listen.Listener`:
``end_silence_ms`` after the speaker stops) is transcribed and posted as
:class:`tui.messages.VoiceTranscript`, which the screen sends into the session like typed text (the recording
as ``audio_in``, the ASR details and timings in ``input_info``) and hands back with its ticket
(:meth:`VoiceInput.heard`).

Replies are spoken sentence by sentence as they are made (:func:`parley.audio.speaker.speak_reply`) when
spoken replies are on (this run's toggle) or in hands-free voice mode; speaking over a reply stops it
(barge-in). The reply WAV and the stage latencies are stored on the system turn (:meth:`VoiceInput.reply`) and
shown in the internals view. ``toggle()`` again ends voice mode (an utterance in progress still becomes a
turn). With no microphone, no PortAudio or no audio package, one clear message is shown and typed input keeps
working; audio errors never end the app. All audio imports happen inside the workers.

Turning spoken replies or the ``asr-real`` rewriter on loads their models in a worker at once too
(:meth:`warm_voice`, :meth:`warm_chain`)."""

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
    from parley.audio.voice import SpokenInput
    from parley.engine.rewrite.chain import Chain
    from parley.engine.session import Exchange, Session
    from parley.engine.settings import AudioSettings
    from parley.tui.app import ParleyApp
    from parley.tui.widgets.dialogue import Dialogue

STARTING = "Still starting up; try again in a moment."
LISTENING = "listening — the voice key ends voice mode"


class VoiceInput(Widget):
    """The level meter (shown while listening) and the voice, speech and warm-up workers; posts ``M.Status``
    lines and ``M.VoiceTranscript`` for the screen."""

    DEFAULT_CSS = "VoiceInput { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stop = threading.Event()
        self.listening = False
        self._speak_warned = False
        self._speak_stop: threading.Event | None = None
        self._spoken_inputs: dict[int, SpokenInput] = {}  # ticket → the SpokenInput it came from
        # the screen's Dialogue, for replies made ahead (read by the listener)
        self._dialogue: Dialogue | None = None

    @property
    def parley(self) -> ParleyApp:
        return cast("ParleyApp", self.app)

    def compose(self) -> ComposeResult:
        yield LevelMeter(id="level")

    def on_mount(self) -> None:
        self._meter(False)

    def on_unmount(self) -> None:
        """Leaving: stop listening and speaking (their threads end within a block)."""
        self.stop.set()
        if self._speak_stop is not None:
            self._speak_stop.set()

    def _meter(self, show: bool) -> None:
        meter = self.query_one(LevelMeter)
        meter.display = show
        meter.label = LISTENING

    def _progress(self, text: str) -> None:
        self.post_message(M.Status(text))

    # -- voice mode -----------------------------------------------------------------------------------------
    def toggle(self) -> None:
        """Switch voice mode on (models warmed, then listening), or off."""
        if self.listening:
            self.stop.set()
            self.post_message(M.Status("voice off…"))
            return
        settings = self.parley.settings
        if settings is None:
            tell(self, STARTING, severity="warning")
            return
        self.listening = True
        self.stop = stop = threading.Event()
        self._dialogue = getattr(self.screen, "dialogue", None)
        audio = settings.audio
        speak = self.parley.toggles.speak_replies or audio.hands_free

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
            device = status.input_devices[0] if status.input_devices else "microphone"
            self._listen(stop, audio, speak, device)

        self.run_worker(work, name="voice", group="voice", description="voice input", thread=True,
                        exclusive=True, exit_on_error=False)

    def _session_any(self) -> Session | None:
        """The session spoken turns go to (listener thread: the recogniser is biased to its names)."""
        dialogue = self._dialogue
        return cast("Session | None", dialogue.session) if dialogue is not None else None

    def _session_now(self) -> Session | None:
        """The session a spoken turn would go to now, if it would run at once (listener thread)."""
        dialogue = self._dialogue
        if dialogue is None or dialogue.waiting or dialogue.locked:
            return None
        return cast("Session | None", dialogue.session)

    def _listen(self, stop: threading.Event, settings: AudioSettings, speak: bool, device: str) -> None:
        """The voice worker: warm the models, then listen until ``stop`` (runs in a thread). With
        ``reply_ahead`` a turn's reply is made during the end-of-turn silence (:mod:`parley.audio.ahead`)."""
        from parley.audio.ahead import preparer
        from parley.audio.asr import get_asr
        from parley.audio.capture import MicStream, level_of
        from parley.audio.devices import AudioUnavailable
        from parley.audio.listen import Listener
        from parley.audio.voice import from_heard, transcriber

        asr = get_asr(settings.asr_model, progress=self._progress)
        tts = None
        if speak:
            from parley.audio.tts import get_tts

            tts = get_tts(settings.tts, self._progress)
        end_silence = settings.end_silence_ms / 1000 if settings.vad else settings.max_seconds + 1
        context = self._session_any if getattr(settings, "bias_names", True) else None
        listener = Listener(transcriber(asr, short_window=settings.short_window, session=context),
                            end_silence_s=end_silence,
                            max_seconds=settings.max_seconds,
                            on_speech=self._barge_in if settings.barge_in else None,
                            prepare=preparer(self._session_now, tts) if settings.reply_ahead else None)
        one_shot = not (settings.hands_free and settings.vad)
        try:
            with MicStream() as mic:
                self.post_message(M.VoiceListening(device))
                for t, block in mic.blocks(stop):
                    self.post_message(M.Level(level_of(block)))
                    heard = listener.feed(t, block)
                    for h in heard:
                        spoken = from_heard(h)
                        spoken.info["recording"]["overflows"] = mic.overflows  # audio lost so far
                        self.post_message(M.VoiceHeard(spoken))
                    if heard and one_shot:
                        return
                for h in listener.flush():  # the voice key ended voice mode mid-utterance: keep it
                    self.post_message(M.VoiceHeard(from_heard(h)))
        except AudioUnavailable as e:  # the microphone vanished or could not be opened
            self.post_message(M.VoiceUnavailable(str(e)))
        finally:
            listener.close()

    def _barge_in(self) -> None:
        """The tester started speaking (listener thread): stop the reply being played."""
        stop = self._speak_stop
        if stop is not None and not stop.is_set():
            stop.set()
            self.post_message(M.Status("barge-in: reply stopped"))

    def _ended(self) -> None:
        self.listening = False
        self._meter(False)
        self.post_message(M.Status(""))

    @on(M.VoiceListening)
    def _listening(self, event: M.VoiceListening) -> None:
        event.stop()
        self._meter(True)
        self.post_message(M.Status(f"listening ({event.device}) — speak; the voice key ends voice mode"))

    @on(M.Level)
    def _level(self, event: M.Level) -> None:
        event.stop()
        if self.listening:
            self.query_one(LevelMeter).level = event.value

    @on(M.VoiceUnavailable)
    def _unavailable(self, event: M.VoiceUnavailable) -> None:
        event.stop()
        self._ended()
        tell(self, event.reason, title="Voice input", severity="warning", timeout=8)

    @on(M.VoiceHeard)
    def _heard(self, event: M.VoiceHeard) -> None:
        event.stop()
        spoken = event.spoken
        if not spoken.text:
            tell(self, "Nothing was recognised; try again or type.", severity="warning")
            return
        self.post_message(M.VoiceTranscript(spoken.text, spoken.audio_path, spoken.info, spoken))
        if self.listening:
            self.post_message(M.Status("listening…"))

    def heard(self, ticket: int, spoken: SpokenInput | None) -> None:
        """The screen queued a spoken turn as ``ticket``: its timings go with the reply's."""
        if spoken is not None:
            self._spoken_inputs[ticket] = spoken

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if event.state == WorkerState.ERROR:
            error = f"{type(event.worker.error).__name__}: {event.worker.error}"
            if group == "voice":
                self._ended()
                tell(self, f"Voice input failed: {error}. Typed input keeps working.", severity="error",
                     timeout=8)
            elif group == "warm":
                tell(self, f"Loading failed: {error}", severity="warning", timeout=8)
            elif not self._speak_warned:  # say it once, not on every reply
                self._speak_warned = True
                tell(self, f"Speaking replies failed: {error}", severity="warning", timeout=8)
        elif event.state in (WorkerState.SUCCESS, WorkerState.CANCELLED) and group == "voice" \
                and self.listening:
            self._ended()

    # -- spoken replies -------------------------------------------------------------------------------------
    def reply(self, ticket: int, exchange: Exchange, session: Session) -> None:
        """A turn of ``session`` was answered: speak the reply (spoken replies on, or hands-free voice mode)
        and store its WAV and the stage latencies on the system turn."""
        replied = time.monotonic()
        spoken_in = self._spoken_inputs.pop(ticket, None)
        settings = self.parley.settings
        if settings is None or exchange.reply is None or not exchange.reply.text.strip():
            return
        audio = settings.audio
        if not (self.parley.toggles.speak_replies or (self.listening and audio.hands_free)):
            return
        if self._speak_stop is not None:  # a newer reply replaces one still playing
            self._speak_stop.set()
        stop = self._speak_stop = threading.Event()
        text, backend = exchange.reply.text, audio.tts

        def work() -> None:
            from parley.audio.speaker import speak_reply
            from parley.audio.tts import get_tts
            from parley.audio.voice import reply_timings

            tts = get_tts(backend, self._progress)
            ahead = spoken_in.ahead.speech_for(text) if spoken_in is not None and spoken_in.ahead else None
            spoken = speak_reply(tts, text, session.reply_audio_path(exchange), stop=stop, ahead=ahead)
            timings = {**reply_timings(spoken_in, replied, spoken), "turn_ahead": exchange.ahead}
            session.record_speech(exchange, spoken.path, timings)
            self.post_message(M.ReplySpoken(exchange.system_turn_id, timings))
            if spoken.error:
                raise RuntimeError(spoken.error)

        self.run_worker(work, name="speak", group="speak", description="speak reply", thread=True,
                        exit_on_error=False)

    @on(M.ReplySpoken)
    def _spoken(self, event: M.ReplySpoken) -> None:
        """The timings bubble on to the screen (shown under the reply); the status line settles."""
        if self.listening:
            self.post_message(M.Status("listening…"))

    def toggle_speaking(self) -> None:
        """Speak replies, or stop, for this run (saved as a default only from the palette); switched on, the
        voice loads at once."""
        if self.parley.settings is None:
            tell(self, STARTING, severity="warning")
            return
        toggles = self.parley.toggles
        toggles.speak_replies = not toggles.speak_replies
        self._speak_warned = False  # a failure is worth one warning again
        tell(self, ("Replies will be spoken" if toggles.speak_replies else "Replies will not be spoken")
             + " in this run (palette: Save toggles as defaults keeps it).")
        if toggles.speak_replies:
            self.warm_voice()

    # -- warm models ----------------------------------------------------------------------------------------
    def warm(self, chain: Chain) -> None:
        """At start-up: the models of the chain's rewriters and, with spoken replies on, the voice."""
        self.warm_chain(chain)
        if self.parley.toggles.speak_replies:
            self.warm_voice()

    def warm_voice(self) -> None:
        """Load the reply voice in a worker now, with progress, not on the first reply."""
        settings = self.parley.settings
        if settings is None:
            return
        backend = settings.audio.tts

        def work() -> None:
            from parley.audio.tts import get_tts

            get_tts(backend, self._progress)
            self.post_message(M.ModelsWarm(f"voice {backend}"))

        self.run_worker(work, name="warm voice", group="warm", description="loading the voice", thread=True,
                        exit_on_error=False)

    def warm_chain(self, chain: Chain) -> None:
        """Load the models of a chain's rewriters (``asr-real``) in a worker now, with progress."""
        if not any(getattr(s, "name", "") == "asr-real" for s in chain.specs):
            return

        def work() -> None:
            chain.load(self._progress)
            self.post_message(M.ModelsWarm(chain.name))

        self.run_worker(work, name="warm chain", group="warm", description="loading the asr-real models",
                        thread=True, exit_on_error=False)

    @on(M.ModelsWarm)
    def _warm(self, event: M.ModelsWarm) -> None:
        event.stop()
        self.post_message(M.Status("listening…" if self.listening else ""))
        tell(self, f"Ready: {event.what}", timeout=3)

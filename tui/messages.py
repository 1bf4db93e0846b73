"""Typed messages that thread workers post back to the UI (the only way results cross from a worker).

Workers never touch widgets: they ``post_message`` one of these, and the screen's handlers update the UI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from parley.audio.ahead import AheadReply
    from parley.audio.voice import SpokenInput
    from parley.engine.types import DialogueSystem
    from parley.tui.boot import BootResult


@dataclass
class SystemReady(Message):
    """A system was built and loaded in a worker; a new session on it can start."""

    spec: str
    system: DialogueSystem


@dataclass
class LoadFailed(Message):
    """Building or loading a system failed; ``error`` is one line for the user."""

    spec: str
    error: str


@dataclass
class Booted(Message):
    """Settings, database, initial chain and goal are ready."""

    result: BootResult


@dataclass
class StoreFailed(Message):
    """The database could not be opened (not SQLite, newer schema, unwritable), or the settings not read: the
    app must stop."""

    error: str


@dataclass
class Status(Message):
    """A short progress/status line from a worker (model loading, recording, transcribing)."""

    text: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Status)


@dataclass
class Level(Message):
    """Microphone input level 0..1; high-rate, so a newer level replaces a queued one."""

    value: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Level)


@dataclass
class VoiceUnavailable(Message):
    """No microphone / no PortAudio / audio package missing: one sentence for the user."""

    reason: str


@dataclass
class VoiceTranscript(Message):
    """A recording was transcribed; the text goes into the session like typed text (``spoken``: the
    audio.voice.SpokenInput it came from, whose timings go with the reply's)."""

    text: str
    audio_path: str
    info: dict[str, object]
    spoken: SpokenInput | None = None

    @property
    def ahead(self) -> AheadReply | None:
        """The turn and its reply as made during the end-of-turn silence (audio.ahead.AheadReply), if any."""
        ahead: AheadReply | None = getattr(self.spoken, "ahead", None)
        return ahead


@dataclass
class VoiceListening(Message):
    """Voice mode: the models are warm and the microphone is open."""

    device: str


@dataclass
class VoiceHeard(Message):
    """An utterance was cut and transcribed (``spoken`` is an audio.voice.SpokenInput)."""

    spoken: SpokenInput


@dataclass
class ReplySpoken(Message):
    """A reply was spoken (or only saved); ``timings`` were stored on the system turn ``turn_id``."""

    turn_id: str | None
    timings: dict[str, object]


@dataclass
class ModelsWarm(Message):
    """Models named in ``what`` finished loading in a worker."""

    what: str


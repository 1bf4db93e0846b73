"""User settings: pydantic-settings from ``config.toml`` (see engine.locations) and ``PARLEY_*`` variables.

Precedence: keyword arguments > environment (``PARLEY_TESTER``, ``PARLEY_SYSTEM``,
``PARLEY_AUDIO__ASR_MODEL``, ...) > the TOML file > defaults. ``PARLEY_CONFIG`` moves the file, ``PARLEY_DB``
the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from parley.engine import locations
from parley.errors import ParleyError
from parley.params import one_line


class AudioSettings(BaseModel):
    """Speech input and output."""

    asr_model: str = Field(
        "tiny.en", description="Whisper model: tiny.en, base, a CTranslate2 folder or a hub id."
    )
    tts: str = Field("piper", description="Voice backend: piper, espeak or coqui.")
    speak_replies: bool = Field(False, description="Speak every system reply aloud.")
    max_seconds: float = Field(30.0, description="Longest recording per user turn, in seconds.")
    vad: bool = Field(True, description="End a spoken turn when the speaker stops (Silero voice activity "
                                        "detection); off: the voice key ends each turn.")
    end_silence_ms: int = Field(500, ge=100, le=5000,
                                description="A spoken turn ends this long after the speaker stops (ms).")
    hands_free: bool = Field(True, description="Voice mode keeps listening after each turn and speaks the "
                                               "replies; off: one utterance per voice key press.")
    barge_in: bool = Field(True, description="Speaking while a reply plays stops the reply (use headphones: "
                                             "with loudspeakers the microphone hears the reply).")
    short_window: bool = Field(True, description="Whisper's short encoder window for spoken turns: 2-3x "
                                                 "faster, about 1-2 points more WER.")
    reply_ahead: bool = Field(True, description="While the end-of-turn silence is waited out, compute the "
                                                "reply (rewriters, system, first sentence spoken) on the "
                                                "transcript; kept only if the turn ends with that text.")
    bias_names: bool = Field(True, description="Bias Whisper towards the names the system knows (prompt with "
                                               "the last turns, hotwords, near-misses snapped); off: faster, "
                                               "names as Whisper hears them.")


class AnnotationSettings(BaseModel):
    """Annotation mode (`parley rate`)."""

    lock_turn_ratings: bool = Field(True, description="Turn ratings lock once the dialogue rating starts.")
    turns: str = Field("all", description="Which system turns to rate: all, or a number N (the first N).")


class Settings(BaseSettings):
    """Everything a user may set. Each field documents itself; ``parley --help`` names the command-line
    ones."""

    model_config = SettingsConfigDict(env_prefix="PARLEY_", env_nested_delimiter="__", extra="ignore")

    tester: str = Field("", description="Tester / rater name, asked once and kept here.")

    @field_validator("tester")
    @classmethod
    def _clean_tester(cls, value: str) -> str:
        """The rule of the name prompt and ``--tester``: no control characters (tab, escape, bidi…)."""
        from parley.store.records import NAME_RULE, clean_name

        if not clean_name(value):
            raise ValueError(f"{NAME_RULE} (tab, newline, escape, bidirectional overrides…)")
        return value
    system: str = Field(
        "multiwoz", description="Default system spec, e.g. multiwoz or llm or hf-seq2seq:model=PATH."
    )
    rewriters: list[str] = Field(default_factory=list, description="Rewriter specs enabled at start.")
    seed: int | None = Field(None, description="Session seed; random per session when unset.")
    show_internals: bool = Field(
        False, description="Show system internals (state, DB count, acts) in the chat log."
    )
    keymap: dict[str, str] = Field(
        default_factory=dict,
        description="Key remapping: binding id → keys, e.g. rate_relevance_1 = 'ctrl+1'.",
    )
    recent_models: list[str] = Field(
        default_factory=list, description="Recently loaded system specs / paths."
    )
    audio: AudioSettings = Field(default_factory=lambda: AudioSettings())
    annotation: AnnotationSettings = Field(default_factory=lambda: AnnotationSettings())

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=locations.config_path())
        return (init_settings, env_settings, toml)


class SettingsError(ParleyError, ValueError):
    """A config file (or PARLEY_* variable) that cannot be read; one line naming the file and the key."""


def load_settings(**overrides: Any) -> Settings:
    """Read the settings; a broken config file raises SettingsError (a ValueError) naming the file and key (or
    the ``PARLEY_*`` variable the bad value came from)."""
    try:
        return Settings(**overrides)
    except ValidationError as e:
        variable = _variable(e)
        where = f": variable {variable}" if variable else f" from {locations.config_path()}"
        raise SettingsError(f"cannot read settings{where}: {one_line(e)}") from None
    except Exception as e:  # tomllib.TOMLDecodeError, UnicodeDecodeError, OSError
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SettingsError(f"cannot read settings from {locations.config_path()}: {first}") from None


def _variable(error: ValidationError) -> str | None:
    """The ``PARLEY_*`` variable set for the first bad key, if one is (it overrides the file)."""
    import os

    errors = error.errors()
    loc = [str(part) for part in errors[0]["loc"]] if errors else []
    name = "PARLEY_" + "__".join(loc).upper()
    return name if loc and name in os.environ else None


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings as TOML (only values that differ from the defaults)."""
    import tomli_w

    path = path or locations.config_path()
    data = settings.model_dump(exclude_defaults=True, exclude_none=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    tmp.replace(path)
    return path


def update_settings(**changes: object) -> Settings:
    """Load, change some top-level fields, save and return the new settings."""
    current = load_settings()
    new = current.model_copy(update=changes)
    save_settings(new)
    return new

"""The JSONL export schema as pydantic models, derived from the records (``store.records``): one source of
truth for what ``parley export --format jsonl`` writes and what ``parley import --format jsonl`` accepts.

Types are strict: ``"index": "abc"``, an interestingness of 2.7, a relevance of ``true`` or ``"locked": "no"``
are refused, as are NaN/±infinity and integers SQLite cannot hold. Keys a newer parley may add are ignored
(the importer warns about them).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, create_model

from parley.store.records import DialogueRating, R, SessionRecord, TurnRating, TurnRecord

CONFIG = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False)
#: an integer SQLite can store (64-bit)
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]


def _bounded(tp: Any) -> Any:  # a type form in, a type form out
    """``int`` → :data:`Int64`, also inside ``int | None``; a number or a fixed word (a relevance of
    ``"n/a"``) → :func:`_number_or_word`."""
    if tp is int:
        return Int64
    if get_origin(tp) in (Union, types.UnionType):
        args = get_args(tp)
        words = tuple(w for a in args if get_origin(a) is Literal for w in get_args(a))
        if words and int in args:
            check = functools.partial(_number_or_word, words, type(None) in args)
            return Annotated[tp, PlainValidator(check)]
        return Union[tuple(_bounded(a) for a in args)]  # noqa: UP007
    return tp


def _number_or_word(words: tuple[str, ...], optional: bool, value: object) -> object:
    """A whole number SQLite can hold or one of ``words`` (and null when ``optional``): one message for
    everything else, rather than one per member of the union."""
    if (value is None and optional) or (isinstance(value, str) and value in words):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value <= 2**63 - 1:
        return value
    raise ValueError(f"must be a whole number or {' or '.join(map(repr, words))}, got {value!r}")


@functools.cache
def record_model(cls: type) -> type[BaseModel]:
    """A strict pydantic model of a record dataclass (same field names, types and defaults)."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default: object = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = ...
        fields[f.name] = (_bounded(hints[f.name]), default)
    return create_model(f"{cls.__name__}Model", __config__=CONFIG, **fields)


SessionModel = record_model(SessionRecord)
TurnModel = record_model(TurnRecord)
TurnRatingModel = record_model(TurnRating)
DialogueRatingModel = record_model(DialogueRating)


class ExportLine(BaseModel):
    """One line of the JSONL export: a session with its turns and ratings."""

    model_config = CONFIG

    session: SessionModel  # type: ignore[valid-type]
    turns: list[TurnModel] = Field(default_factory=list)  # type: ignore[valid-type]
    turn_ratings: list[TurnRatingModel] = Field(default_factory=list)  # type: ignore[valid-type]
    dialogue_ratings: list[DialogueRatingModel] = Field(default_factory=list)  # type: ignore[valid-type]


#: the record class behind each part of a line
PARTS: dict[str, type] = {"session": SessionRecord, "turns": TurnRecord, "turn_ratings": TurnRating,
                          "dialogue_ratings": DialogueRating}


def to_record(cls: type[R], model: BaseModel) -> R:
    """The record dataclass of a validated model."""
    return cls(**{f.name: getattr(model, f.name) for f in dataclasses.fields(cls)})

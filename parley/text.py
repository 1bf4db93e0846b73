"""Shared text normalisation steps (a leaf module: engine, store and audio may all import it).

What parley's comparisons share is here: :func:`squash` (white space), :func:`fold` (case and white space),
:func:`tokens` (runs of letters and digits) and :func:`alnum` (letters and digits only). Every place that
collapses white space, folds free text or slot values for a comparison, or keys names on their letters and
digits uses these.

The normalisers below stay separate because their results must differ; each follows the reference its
figures are compared with (they use the steps above where the steps are the same):

- WER (``audio.wer.normalise``): whisper-normalizer's English normaliser, the one Whisper is evaluated with
  (punctuation removed, spelled-out numbers → digits, British → American spelling). The ASR channel's check
  that slot values survived (``audio.channel``) reads its output.
- BLEU of system replies (``engine.scoring.multiwoz.bleu_normalise``): the MultiWOZ corpus tokenisation
  (clitics and punctuation split off: ``john 's college .``), as mwzeval's references are written; figures
  checked against mwzeval in bench/results/fidelity.md.
- Delexicalisation for Inform/Success (``engine.scoring.mentions``): mwzeval's input form (lower case,
  ``&`` → ``and``, apostrophes dropped with the space the corpus tokeniser put before them); state values as
  the DB spells them (``canonical_value``, ``engine.scoring.venues.normalise``), the fuzzy matching mwzeval's
  DB does.
- Slot values in DST evaluation (``engine.systems.mw.dst_eval.normalise_value``) and in a model's
  belief output (``engine.systems.hf_belief.clean_value``): :func:`fold` plus the slot's own rules (times,
  "dontcare", area and type synonyms). Slot values read from the corpus, the DB or an mwzeval file
  (``parley.formats.multiwoz``, ``engine.mwdb``, ``engine.scoring.mwzeval_file``) are only trimmed and
  lower-cased: white space inside a value stays as written, so scores of stored runs do not move.
- Change rates of rewriters (``engine.rewrite.metrics.normalise``, LAUG Table 7): punctuation removed but
  apostrophes inside words kept and re-attached ("John 's" → "john's"), because the speech-recognition
  augmentation writes no punctuation.
- A model's input (``engine.systems.hf_common.normalise_text``): the spelling of the model's training data
  (for MultiWOZ the corpus tokenisation, times and decimals kept whole — unlike BLEU's).
- Entity tracking (``engine.sktod.entities.normalise``, the SK-TOD paper's rules): letters and digits only,
  ``guesthouse`` → ``guest house``, ``center`` → ``centre``.
- The rule NLU's input (``engine.systems.mw.normalise.clean``): ASCII-folded, punctuation dropped except what
  times and names need, common misspellings fixed, so that later offsets stay valid.
- METEOR (``engine.scoring.meteor``): texts go to the Meteor 1.5 jar as DSTC11's ``scores.py`` passes them
  (the jar normalises with ``-norm``); the nltk fallback splits words and punctuation marks itself.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9]+")
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def squash(text: str) -> str:
    """Runs of white space (Unicode included: em spaces, tabs, new lines) as one space, no space at the
    ends (the same as ``" ".join(text.split())``)."""
    return _SPACE.sub(" ", text).strip()


def fold(text: str) -> str:
    """Lower case, white space squashed: the comparison form of free text."""
    return squash(text.lower())


def tokens(text: str) -> list[str]:
    """The runs of lower-case ASCII letters and digits of ``text``, in order (everything else separates them;
    lower-case the text first)."""
    return _TOKEN.findall(text)


def alnum(text: str) -> str:
    """Only the lower-case ASCII letters and digits of ``text``: the key under which spellings of a name
    that differ in spaces and punctuation meet ("christ's college" and "christs college")."""
    return _NOT_ALNUM.sub("", text)

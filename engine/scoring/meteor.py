"""METEOR as the DSTC11 track 5 scorer computes it, with the backend that produced the figure named.

The official scorer (``scripts/scores.py`` of alexa/dstc11-track5) runs the Java Meteor 1.5 (Denkowski & Lavie
2014) through summ_eval: ``java -jar meteor-1.5.jar - - -stdio -l en -norm``, one ``SCORE`` line per pair,
then one ``EVAL`` line whose last answer is the *corpus-level* score (statistics summed over all pairs, not a
mean of
sentence scores). Backends, best first (``backend="auto"``):

- ``meteor-1.5-jar``: that very jar, run the same way. It ships with the PyPI package ``pycocoevalcap`` (with
  its paraphrase table ``data/paraphrase-en.gz``); ``$PARLEY_METEOR_JAR`` points at another copy. Needs
  ``java``.
- ``nltk-meteor-1.5-params``: nltk's aligner (exact, Porter stem, WordNet synonyms; no paraphrases, no
  function-word weighting) with Meteor 1.5's English parameters (alpha 0.85, beta 0.2, gamma 0.6) and Meteor's
  corpus-level aggregation. Needs a WordNet readable offline (:func:`find_wordnet`). Close to the jar, not
  equal.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

JAR_BACKEND = "meteor-1.5-jar"
NLTK_BACKEND = "nltk-meteor-1.5-params"
#: Meteor 1.5's English parameters (task "default")
ALPHA, BETA, GAMMA = 0.85, 0.2, 0.6


class MeteorUnavailable(RuntimeError):
    """No backend can compute METEOR here; the message says why."""


@dataclass(frozen=True)
class MeteorResult:
    """Corpus-level METEOR, the per-pair scores, and which backend produced them."""

    score: float
    segments: tuple[float, ...]
    backend: str
    note: str = ""


# ---------------------------------------------------------------------------------------------------- the jar
def find_jar() -> Path | None:
    """Meteor 1.5's jar (with ``data/paraphrase-en.gz`` beside it), or None."""
    env = os.environ.get("PARLEY_METEOR_JAR")
    candidates = [Path(env)] if env else []
    import importlib.util

    spec = importlib.util.find_spec("pycocoevalcap")  # located, never imported (it would import pycocotools)
    if spec is not None and spec.submodule_search_locations:
        candidates.append(Path(next(iter(spec.submodule_search_locations))) / "meteor" / "meteor-1.5.jar")
    for jar in candidates:
        if jar.is_file() and (jar.parent / "data" / "paraphrase-en.gz").is_file():
            return jar
    return None


def _score_line(hyp: str, ref: str) -> str:
    """The ``SCORE`` line summ_eval sends (``|||`` removed from the hypothesis, white space collapsed)."""
    return re.sub(r"\s+", " ", " ||| ".join(("SCORE", ref, hyp.replace("|||", ""))))


def meteor_jar(hyps: Sequence[str], refs: Sequence[str], jar: Path | None = None) -> MeteorResult:
    """Run Meteor 1.5 on the pairs exactly as the official scorer does (``-l en -norm``, corpus-level
    EVAL)."""
    jar = jar or find_jar()
    java = shutil.which("java")
    if jar is None or java is None:
        raise MeteorUnavailable("Meteor 1.5 needs java and pycocoevalcap's meteor-1.5.jar "
                                f"(java: {java or 'missing'}, jar: {jar or 'missing'})")
    cmd = [java, "-Xmx2G", "-jar", str(jar), "-", "-", "-stdio", "-l", "en", "-norm"]
    proc = subprocess.Popen(cmd, cwd=jar.parent, env={**os.environ, "LC_ALL": "C"}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    assert proc.stdin is not None and proc.stdout is not None
    try:
        stats = []
        for h, r in zip(hyps, refs, strict=True):
            proc.stdin.write(_score_line(h, r) + "\n")
            proc.stdin.flush()
            stats.append(proc.stdout.readline().strip())
        proc.stdin.write("EVAL ||| " + " ||| ".join(stats) + "\n")
        proc.stdin.flush()
        segments = tuple(float(proc.stdout.readline()) for _ in stats)
        score = float(proc.stdout.readline())
    except (ValueError, BrokenPipeError, OSError) as e:
        raise MeteorUnavailable(f"Meteor 1.5 failed: {type(e).__name__}: {e}") from None
    finally:
        proc.kill()
        proc.wait()
    return MeteorResult(score, segments, JAR_BACKEND, f"Meteor 1.5 ({jar})")


# --------------------------------------------------------------------------------------------------- fallback
def _chunks(matches: Sequence[tuple[int, int]]) -> int:
    """Contiguous runs of matches that are adjacent in both the hypothesis and the reference."""
    pairs = sorted(matches)
    runs = 0
    for i, (h, r) in enumerate(pairs):
        if i == 0 or h != pairs[i - 1][0] + 1 or r != pairs[i - 1][1] + 1:
            runs += 1
    return runs


def _tok(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text.lower())


def _fmean_penalised(matches: float, hyp_len: float, ref_len: float, chunks: float) -> float:
    if not matches or not hyp_len or not ref_len:
        return 0.0
    p, r = matches / hyp_len, matches / ref_len
    fmean = p * r / (ALPHA * p + (1 - ALPHA) * r)
    frag = 0.0 if (matches == hyp_len == ref_len and chunks == 1) else chunks / matches
    return fmean * (1 - GAMMA * frag ** BETA)


def meteor_nltk(hyps: Sequence[str], refs: Sequence[str]) -> MeteorResult:
    """nltk alignment, Meteor 1.5's parameters, Meteor's corpus-level aggregation (see the module
    docstring)."""
    wordnet, note = load_wordnet()
    import warnings

    from nltk.stem.porter import PorterStemmer
    from nltk.translate.meteor_score import align_words

    stemmer = PorterStemmer()
    total = [0, 0, 0, 0]  # matches, hypothesis length, reference length, chunks
    segments = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for h, r in zip(hyps, refs, strict=True):
            ht, rt = _tok(h), _tok(r)
            matches, _, _ = align_words(ht, rt, stemmer=stemmer, wordnet=wordnet)
            stat = (len(matches), len(ht), len(rt), _chunks(matches))
            segments.append(_fmean_penalised(*stat))
            total = [a + b for a, b in zip(total, stat, strict=True)]
    return MeteorResult(_fmean_penalised(*total), tuple(segments), NLTK_BACKEND, note)


def meteor(hyps: Sequence[str], refs: Sequence[str], backend: str = "auto") -> MeteorResult:
    """Corpus-level METEOR of ``hyps`` against ``refs`` (one reference each) with the best backend here."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    reasons = []
    if backend in ("auto", JAR_BACKEND):
        try:
            return meteor_jar(hyps, refs)
        except MeteorUnavailable as e:
            if backend == JAR_BACKEND:
                raise
            reasons.append(str(e))
    try:
        res = meteor_nltk(hyps, refs)
    except MeteorUnavailable as e:
        raise MeteorUnavailable("; ".join([*reasons, str(e)])) from None
    return MeteorResult(res.score, res.segments, res.backend, "; ".join([*reasons, res.note]))


# ---------------------------------------------------------------------------------------------------- WordNet
#: the 45 lexicographer file names of WordNet 3.0 (lexnames(5WN)); Debian's wordnet-base lacks this file
_LEXNAMES = [
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
    "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
]
_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
_WORDNET_FILES = ("data.adj", "data.adv", "data.noun", "data.verb", "index.adj", "index.adv", "index.noun",
                  "index.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc", "index.sense")
_WORDNET_OPTIONAL = ("cntlist", "cntlist.rev", "frames.vrb", "sents.vrb", "sentidx.vrb", "verb.Framestext")


def find_wordnet() -> tuple[Path | None, str]:
    """A WordNet 3.0 folder nltk can read offline, and a note.

    Looked for in ``$PARLEY_WORDNET``, nltk's data path (``corpora/wordnet``) and the Debian/Ubuntu package
    ``wordnet-base`` + ``wordnet-sense-index`` (``/usr/share/wordnet``). The Debian copy lacks ``lexnames``:
    it is mirrored once into the cache dir with that file added.
    """
    candidates: list[Path] = []
    if os.environ.get("PARLEY_WORDNET"):
        candidates.append(Path(os.environ["PARLEY_WORDNET"]))
    import nltk

    candidates += [Path(p) / "corpora" / "wordnet" for p in nltk.data.path]
    candidates.append(Path("/usr/share/wordnet"))
    for c in candidates:
        if not all((c / f).is_file() for f in _WORDNET_FILES):
            continue
        if (c / "lexnames").is_file():
            return c, f"nltk METEOR with WordNet from {c}"
        from parley.engine.locations import cache_dir

        dest = cache_dir() / "nltk_data" / "corpora" / "wordnet"
        try:
            if not all((dest / f).is_file() for f in (*_WORDNET_FILES, "lexnames")):
                dest.mkdir(parents=True, exist_ok=True)
                for f in _WORDNET_FILES + _WORDNET_OPTIONAL:
                    if (c / f).is_file() and not (dest / f).exists():
                        shutil.copyfile(c / f, dest / f)
                lex = "".join(f"{i:02d}\t{n}\t{_POS[n.split('.')[0]]}\n" for i, n in enumerate(_LEXNAMES))
                (dest / "lexnames").write_text(lex, encoding="utf-8")
        except OSError as e:
            return None, f"cannot prepare WordNet from {c}: {e}"
        return dest, f"nltk METEOR with WordNet from {c}"
    return None, (
        "METEOR needs Java + Meteor 1.5 (pycocoevalcap) or an offline WordNet for nltk (the Debian "
        "packages wordnet-base and wordnet-sense-index, or PARLEY_WORDNET=a WordNet 3.0 dict folder)"
    )


_wordnet: dict[str, WordNetCorpusReader] = {}


def load_wordnet() -> tuple[WordNetCorpusReader, str]:
    """nltk's WordNet reader over :func:`find_wordnet`'s folder (cached); raises
    :class:`MeteorUnavailable`."""
    path, note = find_wordnet()
    if path is None:
        raise MeteorUnavailable(note)
    if str(path) not in _wordnet:
        import warnings

        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        root = str(path.parent.parent)  # <root>/corpora/wordnet: nltk's own lazy loader must find it too
        if path.parent.name == "corpora" and root not in nltk.data.path:
            nltk.data.path.append(root)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _wordnet[str(path)] = WordNetCorpusReader(str(path), None)
    return _wordnet[str(path)], note

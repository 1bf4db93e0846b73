"""How words sound, for matching what Whisper heard against the names a system knows
(:mod:`parley.audio.bias`).

``keys(words)`` gives each word a compact phonetic key: its IPA transcription by espeak-ng (the Debian package
parley already uses as its fallback voice; one process call for every word not seen before, so a dialogue's
words are looked up once), with stress and length marks dropped and near-identical vowels merged, so "Stance
to" and "Stansted" come out close. espeak-ng runs as a separate process on purpose: its library is not
thread-safe and piper uses it in-process to speak. Without espeak-ng the key is the word's letters, folded the
same way for every word (a weaker match, never a failure).

>>> fold_ipa("stˈænstᵻd")
'stanstid'
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Iterable

log = logging.getLogger(__name__)

#: IPA symbols folded together (a recogniser's near-miss rarely keeps the vowel quality)
_FOLD = str.maketrans({"ˈ": "", "ˌ": "", "ː": "", "ˑ": "", " ": "", "-": "", "ᵻ": "i", "ɪ": "i", "ɐ": "a",
                       "æ": "a", "ə": "a", "ʌ": "a", "ɑ": "a", "ɒ": "o", "ɔ": "o", "ɛ": "e", "ɜ": "e",
                       "ɚ": "ar", "ɾ": "t", "ʊ": "u", "ɹ": "r", "ɡ": "g", "ʃ": "S", "ʒ": "Z", "θ": "T",
                       "ð": "D", "ŋ": "N", "ɬ": "l", "ʔ": "", "̩": "", "ɫ": "l", "ᵊ": "a", "\u0303": ""})
_LETTERS = [(re.compile(p), r) for p, r in (
    (r"[^a-z]", ""), (r"ph", "f"), (r"ck|q", "k"), (r"c(?=[eiy])", "s"), (r"c", "k"), (r"z", "s"),
    (r"y", "i"), (r"(ee|ea|ie)", "i"), (r"(oo|ou)", "u"), (r"(.)\1", r"\1"), (r"(?<=.)[aeiou]+$", ""))]
_CACHE_SIZE = 20000
_TIMEOUT_S = 10.0


def fold_ipa(ipa: str) -> str:
    """An IPA transcription as a key: stress, length and spaces dropped, similar vowels merged."""
    return ipa.translate(_FOLD)


def letter_key(word: str) -> str:
    """A spelling-based key, used without espeak-ng: "Cityroomz" → "sitirums"."""
    key = word.lower()
    for pattern, repl in _LETTERS:
        key = pattern.sub(repl, key)
    return key


class Phonetics:
    """Phonetic keys of words, cached (thread-safe); see the module doc."""

    def __init__(self, espeak: str | None = "auto") -> None:
        self.exe = (shutil.which("espeak-ng") or shutil.which("espeak")) if espeak == "auto" else espeak
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        return "espeak-ng" if self.exe else "letters"

    def keys(self, words: Iterable[str]) -> dict[str, str]:
        """``{word: key}`` for every word (lower-cased); unknown words are transcribed in one call."""
        wanted = {w.lower() for w in words if w.strip()}
        with self._lock:
            out = {w: self._cache[w] for w in wanted if w in self._cache}
        missing = sorted(wanted - out.keys())
        if missing:
            found = self._transcribe(missing)
            with self._lock:
                for w in missing:
                    self._cache[w] = out[w] = found.get(w) or letter_key(w)
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return out

    def key(self, text: str) -> str:
        """The key of a phrase: its words' keys joined."""
        words = text.lower().split()
        found = self.keys(words)
        return "".join(found[w] for w in words)

    def _transcribe(self, words: list[str]) -> dict[str, str]:
        if not self.exe:
            return {}
        clean = [re.sub(r"[^a-z0-9']", " ", w).strip() or "x" for w in words]
        try:  # one word per line, each ended as a sentence so espeak-ng answers one line each
            done = subprocess.run([self.exe, "-q", "--ipa", "-v", "en-us", "--stdin"],
                                  input="\n".join(f"{w}." for w in clean) + "\n", capture_output=True,
                                  text=True, timeout=_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as e:
            log.warning("espeak-ng failed (%s); matching names by spelling", e)
            self.exe = None
            return {}
        lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
        if done.returncode != 0 or len(lines) != len(words):
            log.info("espeak-ng gave %d lines for %d words; those words are matched by spelling",
                     len(lines), len(words))
            return {}
        return {w: fold_ipa(ln) for w, ln in zip(words, lines, strict=True)}


_shared: Phonetics | None = None
_shared_lock = threading.Lock()


def phonetics() -> Phonetics:
    """The process's shared :class:`Phonetics` (one cache for every turn)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Phonetics()
        return _shared

"""The spoken set of the speech benchmarks: sentences written for parley (MultiWOZ-style requests naming
venues, stations, foods, areas, times and counts, and sentences that name nothing), each with the values a
recogniser must get right. Run as a script, it synthesises them (piper, espeak-ng), transcribes them with
Whisper with and without biasing (:mod:`parley.audio.bias`, the multiwoz system's names; names and times
confirmed by ear, :mod:`parley.audio.confirm`, since the real recogniser scores texts) and scores slot values
and WER.

A slot is ``kind=value``: ``name`` (a venue or station as the MultiWOZ database spells it), ``food``,
``area``, ``time`` (``HH:MM`` as ``engine/systems/mw/normalise.find_times`` reads the sentence),
``number`` (digits).
"""

from __future__ import annotations

import sys
import time
from typing import Any

NAMED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Is the Allenbell a cheap place to stay?", ("name=allenbell",)),
    ("I would like a room at Cityroomz for two nights.", ("name=cityroomz", "number=2")),
    ("Book a table at Pizza Hut Cherry Hinton at half past seven.", ("name=pizza hut cherry hinton",
                                                                     "time=19:30")),
    ("I need a train from Stansted Airport on Friday.", ("name=stansted airport",)),
    ("Get me a taxi to Acorn Guest House, leaving at nine fifteen.", ("name=acorn guest house",
                                                                      "time=09:15")),
    ("What is the address of the Gonville Hotel?", ("name=gonville hotel",)),
    ("Can you book the Lensfield Hotel for three people?", ("name=lensfield hotel", "number=3")),
    ("I'd like to eat at Shiraz Restaurant tonight at eight fifteen.", ("name=shiraz restaurant",
                                                                        "time=20:15")),
    ("Please reserve Meghna for four people at seven o'clock.", ("name=meghna", "number=4", "time=19:00")),
    ("Does Kymmoy serve Asian oriental food?", ("name=kymmoy", "food=asian oriental")),
    ("I want to visit Kettle's Yard in the afternoon.", ("name=kettle's yard",)),
    ("How much is the entrance fee for the Fitzwilliam Museum?", ("name=fitzwilliam museum",)),
    ("Find me a train from Peterborough to Cambridge arriving by ten thirty.", (
        "name=peterborough", "name=cambridge", "time=10:30")),
    ("I'm leaving from Bishops Stortford on Sunday.", ("name=bishops stortford",)),
    ("Is there a train to Kings Lynn after five forty five?", ("name=kings lynn", "time=17:45")),
    ("Book me a taxi from the Nirala to Clare College.", ("name=nirala", "name=clare college")),
    ("What kind of food does Hakka serve?", ("name=hakka",)),
    ("I need the phone number of Saigon City.", ("name=saigon city",)),
    ("Can I get a table for six at Rajmahal on Thursday?", ("name=rajmahal", "number=6")),
    ("Is the Autumn House in the east of town?", ("name=autumn house", "area=east")),
    ("Book the Ashley Hotel for five nights starting Monday.", ("name=ashley hotel", "number=5")),
    ("I'd like to stay at the Warkworth House for two people.", ("name=warkworth house", "number=2")),
    ("Tell me about the Cambridge Belfry.", ("name=cambridge belfry",)),
    ("How do I get to the Scott Polar Museum?", ("name=scott polar museum",)),
    ("I want a taxi from Jesus College to the Junction at six thirty.", (
        "name=jesus college", "name=junction", "time=18:30")),
    ("Is Nandos in the city centre?", ("name=nandos", "area=centre")),
    ("Could you book Yippee Noodle Bar for three at a quarter to eight?", (
        "name=yippee noodle bar", "number=3", "time=19:45")),
    ("I need a train from London Liverpool Street to Cambridge.", ("name=london liverpool street",
                                                                   "name=cambridge")),
    ("The train should leave Broxbourne after eleven fifteen.", ("name=broxbourne", "time=11:15")),
    ("What's the postcode of the Copper Kettle?", ("name=copper kettle",)),
    ("Reserve a table for two at the Golden Curry at eight o'clock.", ("name=golden curry", "number=2",
                                                                        "time=20:00")),
    ("Please book Hobsons House for one night.", ("name=hobsons house", "number=1")),
    ("Is Limehouse a guesthouse or a hotel?", ("name=limehouse",)),
    ("I want to go from Leicester to Cambridge on Tuesday.", ("name=leicester", "name=cambridge")),
    ("Does the Lovell Lodge have free parking?", ("name=lovell lodge",)),
    ("I would like to book Curry Prince for five people.", ("name=curry prince", "number=5")),
    ("Can you find me the phone number of Wagamama?", ("name=wagamama",)),
    ("Book a taxi to Churchill College for four fifteen.", ("name=churchill college", "time=16:15")),
    ("I need to arrive in Stevenage by nine forty five.", ("name=stevenage", "time=09:45")),
    ("Where is the Cambridge Arts Theatre?", ("name=cambridge arts theatre",)),
    ("Is Tandoori Palace expensive?", ("name=tandoori palace",)),
    ("Book Travellers Rest for seven people at six o'clock.", ("name=travellers rest", "number=7",
                                                                "time=18:00")),
    ("I'd like to see the Cambridge Corn Exchange tonight.", ("name=cambridge corn exchange",)),
    ("Please get me a train from Norwich on Saturday morning.", ("name=norwich",)),
    ("I need a room at the Huntingdon Marriott Hotel.", ("name=huntingdon marriott hotel",)),
    ("Is Aylesbray Lodge Guest House in the south?", ("name=aylesbray lodge guest house", "area=south")),
    ("Could you recommend Wandlebury Country Park?", ("name=wandlebury country park",)),
    ("Book the Oak Bistro for two at twelve thirty.", ("name=oak bistro", "number=2", "time=12:30")),
    ("What is the address of Whale of a Time?", ("name=whale of a time",)),
    ("I'd like a taxi from Ely station at ten past nine.", ("name=ely", "time=09:10")),
    ("Is Charlie Chan a Chinese restaurant?", ("name=charlie chan", "food=chinese")),
    ("Can you book Finches Bed and Breakfast for three nights?", ("name=finches bed and breakfast",
                                                                  "number=3")),
    ("I want to go to Birmingham New Street on Wednesday.", ("name=birmingham new street",)),
    ("Is Primavera open in the evening?", ("name=primavera",)),
    ("Book Zizzi Cambridge for eight people at half past six.", ("name=zizzi cambridge", "number=8",
                                                                 "time=18:30")),
    ("How far is Milton Country Park from the centre?", ("name=milton country park", "area=centre")),
    ("I need the phone number for the Gandhi.", ("name=gandhi",)),
    ("Please book Bridge Guest House for four people.", ("name=bridge guest house", "number=4")),
    ("I'd like to visit Magdalene College tomorrow.", ("name=magdalene college",)),
    ("Is there a taxi from Cote to the Fez Club at eleven?", ("name=cote", "name=fez club")),
    ("What time does the train from London Kings Cross arrive?", ("name=london kings cross",)),
    ("Please find Darrys Cookhouse and Wine Shop.", ("name=darrys cookhouse and wine shop",)),
    ("Book me into Kirkwood House for two nights from Friday.", ("name=kirkwood house", "number=2")),
    ("I want to try Loch Fyne for seafood.", ("name=loch fyne", "food=seafood")),
    ("Is Cherry Hinton Water Play free to enter?", ("name=cherry hinton water play",)),
    ("I'd like a table at La Margherita at seven fifteen.", ("name=la margherita", "time=19:15")),
    ("Could I book the University Arms Hotel for three nights?", ("name=university arms hotel",
                                                                  "number=3")),
    ("Where is Hughes Hall?", ("name=hughes hall",)),
    ("Is Panahar a moderately priced place?", ("name=panahar",)),
    ("Book the Avalon for two people on Saturday.", ("name=avalon", "number=2")),
    ("What's the entrance fee of Cambridge Artworks?", ("name=cambridge artworks",)),
    ("I need a taxi from Pembroke College to Ali Baba.", ("name=pembroke college", "name=ali baba")),
    ("Find me the postcode of Ugly Duckling, please.", ("name=ugly duckling",)),
    ("A table for three at Bedouin at eight thirty, please.", ("name=bedouin", "number=3", "time=20:30")),
    ("Is Archway House cheap?", ("name=archway house",)),
    ("Please tell me about Ballare.", ("name=ballare",)),
    ("I'd like to book Eraina for two people.", ("name=eraina", "number=2")),
    ("Book a room at Alexander Bed and Breakfast for four nights.", ("name=alexander bed and breakfast",
                                                                     "number=4")),
    ("Does Leverton House have wifi?", ("name=leverton house",)),
    ("Is Cocum an Indian restaurant?", ("name=cocum", "food=indian")),
    ("What's on at the Mumford Theatre tonight?", ("name=mumford theatre",)),
    ("I'd like to go to Tenpin with my friends.", ("name=tenpin",)),
    ("Is Sala Thong in the west?", ("name=sala thong", "area=west")),
    ("Book Golden Wok for five at seven forty five.", ("name=golden wok", "number=5", "time=19:45")),
    ("I need a train to Ely leaving after two thirty.", ("name=ely", "time=14:30")),
    ("Take me to Emmanuel College at a quarter past ten.", ("name=emmanuel college", "time=10:15")),
    ("I'm looking for Hamilton Lodge.", ("name=hamilton lodge",)),
    ("Is El Shaddai a guesthouse?", ("name=el shaddai",)),
    ("Book the Slug and Lettuce for six people.", ("name=slug and lettuce", "number=6")),
    ("I want to see Trinity College in the morning.", ("name=trinity college",)),
    ("Get me a taxi from Prezzo at nine thirty.", ("name=prezzo", "time=21:30")),
    ("What area is Royal Spice in?", ("name=royal spice",)),
    ("I'd like the address of Anatolia.", ("name=anatolia",)),
    ("Is Home from Home near the north?", ("name=home from home", "area=north")),
    ("Please book Worth House for three people for two nights.", ("name=worth house", "number=3",
                                                                  "number=2")),
    ("I want a train from Cambridge to Broxbourne at eight o'clock.", ("name=cambridge", "name=broxbourne",
                                                                        "time=08:00")),
    ("Where is the Riverboat Georgina?", ("name=riverboat georgina",)),
    ("Is the Cambridge Punter open on Sunday?", ("name=cambridge punter",)),
    ("Book Thanh Binh for two at six fifteen.", ("name=thanh binh", "number=2", "time=18:15")),
    ("I need a hotel near Downing College.", ("name=downing college",)),
    ("Tell me about Vue Cinema.", ("name=vue cinema",)),
    ("Could you book Gourmet Burger Kitchen for four?", ("name=gourmet burger kitchen", "number=4")),
    ("I'd like to visit the Whipple Museum of the History of Science.", (
        "name=whipple museum of the history of science",)),
    ("Is Jinling Noodle Bar open at ten?", ("name=jinling noodle bar",)),
    ("Book a taxi to Arbury Lodge Guesthouse at five o'clock.", ("name=arbury lodge guesthouse",
                                                                 "time=17:00")),
    ("I need the Carolina Bed and Breakfast for one night.", ("name=carolina bed and breakfast",
                                                              "number=1")),
    ("I'd like Italian food in the south.", ("food=italian", "area=south")),
    ("Find me a cheap Lebanese restaurant.", ("food=lebanese",)),
    ("Is there any Korean food in the north?", ("food=korean", "area=north")),
    ("I want Portuguese food at seven o'clock.", ("food=portuguese", "time=19:00")),
    ("Please find a Vietnamese place in the west.", ("food=vietnamese", "area=west")),
    ("A train leaving Cambridge at six fifteen, please.", ("name=cambridge", "time=06:15")),
)

#: sentences that name nothing the system knows by name: biasing must not change them (no snapped names)
PLAIN: tuple[str, ...] = (
    "Yes, please book it for me.",
    "No, that's all I need, thank you.",
    "Can I have the phone number, please?",
    "What is the postcode?",
    "I need somewhere to stay with free wifi.",
    "Make it a little cheaper if you can.",
    "Does it have free parking?",
    "That sounds lovely, thank you very much.",
    "Could you repeat that more slowly?",
    "I don't mind which part of town it is in.",
    "Actually, could you change the day?",
    "How long is the journey?",
    "I'd like to get there before it gets dark.",
    "What would you recommend for a family?",
    "Please send me the reference number.",
    "Sorry, I meant the other one.",
    "We are celebrating my mother's birthday.",
    "My friend likes spicy food a lot.",
    "Is it far to walk from the station?",
    "That's too expensive for us.",
    "Can you check again, please?",
    "I will need a taxi as well.",
    "Thanks, you have been very helpful.",
    "Is there anything else nearby?",
    "We would rather eat somewhere quiet.",
    "Let me think about it for a moment.",
    "Does the price include breakfast?",
    "Could you find me something fun to do?",
    "I'm travelling with my two children.",
    "Never mind, I will book it myself later.",
)


def _plain(text: str) -> str:
    from parley.engine.systems.mw.normalise import clean, words_to_numbers

    return f" {words_to_numbers(clean(text))} "


def slot_found(slot: str, heard: str) -> bool:
    """Whether a recogniser's text ``heard`` carries ``slot`` (``kind=value``) the way the reference says it:
    names, foods and areas as words of the text (after the MultiWOZ pipeline's own cleaning: case,
    punctuation, possessives, British spelling), times as the clock time the pipeline reads, numbers as
    digits."""
    from parley.engine.systems.mw.normalise import find_times

    kind, value = slot.split("=", 1)
    text = _plain(heard)
    if kind == "time":  # the clock words, not the half of the day (the dialogue decides that)
        return _twelve(value) in {_twelve(t.value) for t in find_times(text.strip())}
    target = _plain(value).strip()
    return f" {target} " in text


def _twelve(hhmm: str) -> str:
    h, m = hhmm.split(":")
    return f"{int(h) % 12}:{m}"


def check() -> None:
    """Every slot is found in its own reference sentence (run once when the set changes)."""
    bad = [(s, slot) for s, slots in NAMED for slot in slots if not slot_found(slot, s)]
    if bad:
        raise AssertionError(f"slots not found in their reference sentences: {bad}")


# -- the benchmark ---------------------------------------------------------------------------------------
def synthesise(text: str, voice: str, seed: int) -> Any:
    """``text`` spoken by ``voice`` (piper, espeak) as 16 kHz float32 with pink room noise at -45 dBFS and a
    quarter second of it either side."""
    import numpy as np

    from parley.audio.asr import resample
    from parley.audio.tts import get_tts
    from parley.audio.utterances import pink_noise

    audio, sr = get_tts(voice, fallback=False, deterministic=True).synthesize(text)
    speech = (resample(audio, sr, 16000) * 0.5).astype(np.float32)
    pad = np.zeros(4000, dtype=np.float32)
    out = np.concatenate([pad, speech, pad])
    return (out + pink_noise(out.size, np.random.default_rng(seed)) * np.float32(10 ** (-45 / 20))).astype(
        np.float32)


def run(models: list[str], voices: list[str], limit: int | None, plain_limit: int | None) -> dict[str, Any]:
    """Every (model, voice): each sentence transcribed through the voice path without and with biasing
    (the multiwoz system's names; no earlier turns, so no prompt), scored."""
    from types import SimpleNamespace

    from parley.audio.asr import get_asr
    from parley.audio.voice import transcriber
    from parley.audio.wer import wer
    from parley.engine.systems.multiwoz import MultiwozSystem

    named, plain = NAMED[:limit], PLAIN[:plain_limit]
    context = SimpleNamespace(system=MultiwozSystem(), history=[])
    rows: list[dict[str, Any]] = []
    for voice in voices:
        clips = [synthesise(t, voice, i) for i, t in enumerate([s for s, _ in named] + list(plain))]
        for model in models:
            asr = get_asr(model)
            runs = {"before": transcriber(asr), "after": transcriber(asr, session=lambda: context)}
            for i, text in enumerate([s for s, _ in named] + list(plain)):
                slots = named[i][1] if i < len(named) else ()
                row: dict[str, Any] = {"voice": voice, "model": model, "text": text, "named": i < len(named)}
                for label, transcribe in runs.items():
                    t0 = time.perf_counter()
                    tr = transcribe(clips[i])
                    row[label] = {"heard": tr.text, "wer": wer(text, tr.text),
                                  "ms": round((time.perf_counter() - t0) * 1000),
                                  "slots": {s: slot_found(s, tr.text) for s in slots}}
                rows.append(row)
                print(f"{voice} {model} {i + 1}/{len(clips)} {row['before']['heard']!r} -> "
                      f"{row['after']['heard']!r}", file=sys.stderr, flush=True)
    return {"rows": rows, "summary": summarise(rows)}


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (model, voice, before/after): slots right by kind, names+times right, WER of named and plain."""
    from parley.audio.wer import wer

    out = []
    for key in sorted({(r["model"], r["voice"]) for r in rows}):
        group = [r for r in rows if (r["model"], r["voice"]) == key]
        for label in ("before", "after"):
            kinds: dict[str, list[bool]] = {}
            for r in group:
                for slot, ok in r[label]["slots"].items():
                    kinds.setdefault(slot.split("=")[0], []).append(ok)
            nt = kinds.get("name", []) + kinds.get("time", [])
            every = [ok for oks in kinds.values() for ok in oks]
            named = [r for r in group if r["named"]]
            plain = [r for r in group if not r["named"]]
            out.append({"model": key[0], "voice": key[1], "bias": label,
                        "names_times_right": _share(nt), "slot_error": 1 - _share(every),
                        **{f"{k}_right": _share(v) for k, v in sorted(kinds.items())},
                        "wer_named": wer([r["text"] for r in named], [r[label]["heard"] for r in named])
                        if named else None,
                        "wer_plain": wer([r["text"] for r in plain], [r[label]["heard"] for r in plain])
                        if plain else None,
                        "plain_changed": sum(r["after"]["heard"] != r["before"]["heard"] for r in plain),
                        "median_ms": sorted(r[label]["ms"] for r in group)[len(group) // 2],
                        "utterances": len(group), "slots": len(every)})
    return out


def _share(oks: list[bool]) -> float:
    return sum(oks) / len(oks) if oks else float("nan")


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="tiny.en", help="comma-separated ASR models (tiny.en, base)")
    ap.add_argument("--voices", default="piper,espeak", help="comma-separated TTS voices (piper, espeak)")
    ap.add_argument("--limit", type=int, default=None, help="the first N named sentences only")
    ap.add_argument("--plain-limit", type=int, default=None, help="the first N name-free sentences only")
    ap.add_argument("--out", default="bench/results/voice.json", help="rows and summary as JSON")
    args = ap.parse_args(argv)
    check()
    result = run(args.models.split(","), args.voices.split(","), args.limit, args.plain_limit)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    for s in result["summary"]:
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in s.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Phrases for the rule-based impoliteness rewriter, written by the parley team for the six role-play
scenarios of the impolite-users corpus (Table I). None contains a slot value (a test checks that
``find_spans`` finds nothing), so adding them never changes what the user asks for.

Each scenario has ``pre`` (said before the request) and ``post`` (after it) phrases at two strengths: ``mild``
(used from intensity 2) and ``strong`` (intensity 3). ``{n}``/``{nth}`` in scenario 6 are filled from the
dialogue history (how many times the user has asked), ``{quote}`` with the start of the system's last answer.
"""

from __future__ import annotations

SCENARIOS: dict[int, str] = {
    1: "sarcastic person in a bad mood",
    2: "impatient, wants the information fast",
    3: "bad mood after something bad happened",
    4: "tired and hungry after a long-haul flight",
    5: "spoilt brat with a lot of money",
    6: "third time asking; previous answers were wrong",
}

Phrases = dict[str, dict[str, tuple[str, ...]]]

MOVES: dict[int, Phrases] = {
    1: {
        "pre": {
            "mild": ("Oh, wonderful, another chat with a machine.",
                     "Let me guess, this is going to take ages.", "Oh joy.", "Here we go again.",
                     "Brace yourself, this is a tough one.", "Let's see if you can manage this."),
            "strong": ("Wow, I can hardly wait to see you mess this up.",
                       "Oh great, a bot. Just what my day needed.",
                       "Congratulations, you get to ruin my evening too.",
                       "Oh brilliant, a genius assistant."),
        },
        "post": {
            "mild": ("Think you can handle that?", "If that's not too much for you.",
                     "Shocking request, I know.", "Take your time, I've only got all week.",
                     "Surely even you can do that."),
            "strong": ("Try not to strain yourself.", "I'm sure it's the hardest thing you've ever done.",
                       "Go on, amaze me.", "What a surprise it would be if you got it right."),
        },
    },
    2: {
        "pre": {
            "mild": ("Listen.", "Right.", "Quickly now.", "Come on.", "Okay, fast."),
            "strong": ("I don't have all day, so listen.", "Hurry up and pay attention.",
                       "No chit-chat, just answer."),
        },
        "post": {
            "mild": ("Hurry up.", "Quickly.", "Now.", "Make it quick.", "Fast, not tomorrow.",
                     "I'm in a rush.", "Chop chop."),
            "strong": ("I don't have all day!", "Now, not in ten minutes!", "Stop wasting my time!",
                       "Hurry up, I'm waiting!", "Get on with it, now!"),
        },
    },
    3: {
        "pre": {
            "mild": ("Ugh.", "I'm not in the mood for this.", "What a day.", "Don't start with me."),
            "strong": ("I've had an awful day, so don't mess this up.",
                       "I just had a huge fight with my partner and I'm in no mood for nonsense.",
                       "Everything has gone wrong today, so don't you dare add to it."),
        },
        "post": {
            "mild": ("Just get on with it.", "And spare me the cheerful chatter.", "Don't make this harder.",
                     "Keep it short."),
            "strong": ("I really can't deal with any more nonsense today.", "One more problem and I'm done.",
                       "And don't you dare get this wrong."),
        },
    },
    4: {
        "pre": {
            "mild": ("I'm exhausted.", "I've just got off a very long flight.", "I'm starving and tired.",
                     "Long flight, no food."),
            "strong": ("I've been travelling for a whole day, I'm starving, and I can barely stand.",
                       "I've just crawled off an overnight flight and I haven't eaten in hours.",
                       "I'm jet-lagged, famished and out of patience."),
        },
        "post": {
            "mild": ("Make it fast, I need to eat.", "I can barely keep my eyes open.", "Just be quick.",
                     "I need food and a bed, fast."),
            "strong": ("Hurry, before I collapse.", "I'm too tired for your questions, just do it.",
                       "If I don't eat soon I'll lose it."),
        },
    },
    5: {
        "pre": {
            "mild": ("Listen, I'm used to better.", "Money is no object, obviously.",
                     "I only accept the finest.", "Now, I'm very particular."),
            "strong": ("Do you know who you're talking to?", "Daddy pays for everything, so do as I say.",
                       "I don't do ordinary, so pay attention."),
        },
        "post": {
            "mild": ("And it had better be worth my money.", "I expect to be treated properly.",
                     "Nothing shabby.", "I'm not used to waiting."),
            "strong": ("Don't waste my time with anything beneath me.",
                       "I could buy your whole company, you know.",
                       "Or I'll make sure your manager hears about it."),
        },
    },
    6: {
        "pre": {
            "mild": ("For the {nth} time.", "Again.", "I'm asking this {n} times now.",
                     "Listen carefully this time.", "Let me say it again."),
            "strong": ("This is the {nth} time I'm asking, so get it right.",
                       "You got it wrong twice already.", "How many times do I have to repeat myself?",
                       "\"{quote}\"? That's not what I asked for."),
        },
        "post": {
            "mild": ("And get it right this time.", "Is that so hard?", "I already told you this.",
                     "Don't make me repeat it again."),
            "strong": ("Can't you get anything right?", "How hard can it be?",
                       "If you get it wrong again I'm done with you."),
        },
    },
}

#: the request itself said in each scenario's voice: FRAMES[scenario][kind][strength]; kinds as in
#: ``engine.rewrite.impolite_parse`` — act ({vp}: a verb phrase), want ({np} and {ask}: "Find me", "Get me"…),
#: yn/wh ({q}: the question without "?"), state ({s}: the statement without its full stop)
Frames = dict[str, dict[str, tuple[str, ...]]]
FRAMES: dict[int, Frames] = {
    1: {
        "act": {"mild": ("Surely even you can {vp}.",
                         "Let's see if you can {vp} without making a mess of it.",
                         "{vp}. I know, it must be a real challenge for you.",
                         "Do you think you can manage to {vp}? I'm not holding my breath."),
                "strong": ("Surely even a machine like you can {vp}. Or is that asking too much?",
                           "Here's a tough one for you: {vp}. Try not to strain yourself.",
                           "Oh, do {vp}. It will be the hardest thing you do all day.")},
        "want": {"mild": ("I want {np}. I know, shocking, isn't it?", "Let's see if you can get me {np}.",
                          "{ask} {np}, if you can manage that without making a mess of it."),
                 "strong": ("{ask} {np}. I know, a huge challenge for a genius like you.",
                            "Oh, I want {np}. Try not to mess it up this time.")},
        "yn": {"mild": ("{q}? Or is that too hard a question for you?", "{q}? Go on, surprise me."),
               "strong": ("{q}? Or is that completely beyond you?", "Go on, surprise me for once: {q}?")},
        "wh": {"mild": ("{q}? Or is that some kind of state secret?", "{q}? Take your time, I've got all "
                                                                      "week."),
               "strong": ("{q}? I know, a real brain-teaser for you.", "{q}? Or is that completely beyond "
                                                                       "you?")},
        "state": {"mild": ("{s}. Try to keep up.", "{s}, in case that wasn't obvious enough."),
                  "strong": ("{s}. Write it down, since you clearly can't remember anything.",)},
    },
    2: {
        "act": {"mild": ("{vp}. I don't have all day.", "Hurry up and {vp}. I don't have all day.",
                         "I need you to {vp} right now. I'm in a hurry.",
                         "Just {vp} and be quick about it. I'm in a hurry."),
                "strong": ("{vp} right now, I don't have all day!", "Hurry up and {vp}! I'm not waiting all "
                                                                    "day!")},
        "want": {"mild": ("I need {np}, and I need it now. I don't have all day.", "{ask} {np}. I don't have "
                                                                                   "all day.",
                          "{ask} {np}. I'm in a hurry, so be quick."),
                 "strong": ("{ask} {np} right now, I don't have all day!", "I need {np}. Hurry up, I'm "
                                                                           "waiting!")},
        "yn": {"mild": ("{q}? I don't have all day.", "{q}? Hurry up and tell me, I'm in a hurry.",
                        "{q}? I need to know right now."),
               "strong": ("{q}? Yes or no, I haven't got all day!", "{q}? Hurry up, I'm waiting!")},
        "wh": {"mild": ("{q}? I don't have all day.", "{q}? Hurry up and tell me, I'm in a hurry.",
                        "{q}? I need to know right now."),
               "strong": ("{q}? Hurry up, I'm waiting!", "{q}? I need to know right now!")},
        "state": {"mild": ("{s}. Now hurry up, I don't have all day.", "{s}. I don't have all day."),
                  "strong": ("{s}. Now hurry up, I don't have all day!", "{s}. Stop wasting my time!")},
    },
    3: {
        "act": {"mild": ("Just {vp}.", "Just {vp}. I'm not in the mood for this.",
                         "{vp} and spare me the small talk.", "I've had a bad day, so just {vp}."),
                "strong": ("{vp}, and don't you dare mess it up.", "I've had an awful day, so just {vp} and "
                                                                   "leave "
                           "me alone.")},
        "want": {"mild": ("Just get me {np}.", "I need {np}. I'm not in the mood for this.",
                          "I want {np}, and I don't want any small talk."),
                 "strong": ("Get me {np} and don't make my day any worse.",
                            "I need {np}, and I'm in no mood for nonsense.")},
        "yn": {"mild": ("{q}? Just tell me.", "{q}? I'm not in the mood for a long answer."),
               "strong": ("{q}? And don't give me any nonsense.", "{q}? I'm in no mood for a long answer.")},
        "wh": {"mild": ("{q}? Just tell me.", "{q}? I'm not in the mood for a long answer."),
               "strong": ("{q}? I'm in no mood for a long answer.", "{q}? And don't give me any nonsense.")},
        "state": {"mild": ("{s}. Don't make this any harder.", "{s}. Just get on with it."),
                  "strong": ("{s}. I can't deal with any more nonsense today.",)},
    },
    4: {
        "act": {"mild": ("{vp}. I'm tired and hungry.", "Just {vp}. I've been on a plane all day.",
                         "I'm exhausted, so just {vp}.", "{vp}. I can barely keep my eyes open."),
                "strong": ("I haven't slept or eaten in a day, so {vp} now.", "{vp} before I collapse.")},
        "want": {"mild": ("I need {np}. I'm tired and hungry.", "{ask} {np}. I've been on a plane all day.",
                          "I want {np}, and I need it fast. I'm exhausted."),
                 "strong": ("{ask} {np} before I collapse.",
                            "I'm jet-lagged and starving. I need {np}, now.")},
        "yn": {"mild": ("{q}? I'm too tired for a long answer.", "{q}? I'm tired and hungry, so be quick."),
               "strong": ("{q}? I'm jet-lagged and starving, so be quick.",)},
        "wh": {"mild": ("{q}? I'm too tired for a long answer.", "{q}? I'm tired and hungry, so be quick."),
               "strong": ("{q}? I'm jet-lagged and starving, so be quick.",)},
        "state": {"mild": ("{s}. I'm too tired to say it twice.", "{s}. I just need food and a bed."),
                  "strong": ("{s}. I've been travelling all day, so keep up.",)},
    },
    5: {
        "act": {"mild": ("{vp}. And it had better be worth my money.", "I'm paying good money, so {vp}.",
                         "{vp}. I'm not used to waiting.", "{vp}, and don't waste my time."),
                "strong": ("{vp}. Do you know who you're talking to?",
                           "{vp}, and be quick about it. I'm not used to waiting.")},
        "want": {"mild": ("I want {np}. Money is no object.", "{ask} {np}. I'm not used to waiting.",
                          "I want {np}, and it had better be worth my money."),
                 "strong": ("{ask} {np}, and it had better be up to my standards.",
                            "I want {np}. I could buy this whole company, you know.")},
        "yn": {"mild": ("{q}? I'm not used to waiting.", "{q}? I expect a proper answer."),
               "strong": ("{q}? Answer me properly, I'm not some ordinary customer.",)},
        "wh": {"mild": ("{q}? I expect a proper answer.", "{q}? I'm not used to waiting."),
               "strong": ("{q}? Answer me properly, I'm not some ordinary customer.",)},
        "state": {"mild": ("{s}. I'm not used to repeating myself.", "{s}. Obviously."),
                  "strong": ("{s}. Do you know who you're talking to?",)},
    },
    6: {
        "act": {"mild": ("For the {nth} time, {vp}.", "{vp}. I've already asked you this.",
                         "I'm asking you again: {vp}.", "{vp}. And get it right this time."),
                "strong": ("This is the {nth} time I'm asking: {vp}. Get it right.",
                           "How many times do I have to say it? {vp}.")},
        "want": {"mild": ("For the {nth} time, I want {np}.", "I need {np}. I already told you that.",
                          "I'm telling you again: I want {np}."),
                 "strong": ("I've told you {n} times: I need {np}.", "I need {np}. How hard can it be?")},
        "yn": {"mild": ("{q}? I've already asked you this.", "I'm asking you again: {q}?",
                        "{q}? Get it right this time."),
               "strong": ("For the {nth} time, {q}?", "{q}? I've asked you {n} times now.")},
        "wh": {"mild": ("{q}? I've already asked you this.", "I'm asking you again: {q}?",
                        "{q}? Get it right this time."),
               "strong": ("For the {nth} time, {q}?", "{q}? I've asked you {n} times now.")},
        "state": {"mild": ("{s}. I already told you that.", "I'm telling you again: {s}."),
                  "strong": ("{s}. How many times do I have to say it?",)},
    },
}

#: said instead of a thank-you sentence that was dropped
DISMISSALS: dict[int, tuple[str, ...]] = {
    1: ("Well, that took forever.", "Wow, what an achievement.", "Finally. Bravo."),
    2: ("Finally.", "About time.", "Done? Good."),
    3: ("Whatever.", "Fine.", "Right, whatever."),
    4: ("Finally.", "Good, I'm off to eat.", "At last."),
    5: ("Acceptable, I suppose.", "It will do.", "Fine, that's adequate."),
    6: ("Finally, after all that.", "Took you long enough.", "About time you got it."),
}

#: said when the turn was only a greeting
CURT_GREETINGS: tuple[str, ...] = ("What?", "Yeah, hi.", "Hello, I suppose.", "Right, hello.", "Yes?")

#: short impatience tags used from intensity 1
TAGS: tuple[str, ...] = ("Hurry up.", "Just do it.", "And be quick about it.", "Come on, hurry up.",
                         "I don't have all day.")

#: replacements for agreeing answers ("yes, that sounds great")
AGREE: tuple[str, ...] = ("Fine.", "Yes, obviously.", "Yes, just do it.", "Whatever, yes.", "Yes. Go on.")

#: offensive words: only at intensity 3 with profanity=true
PROFANITY_INTERJECTIONS: tuple[str, ...] = ("For God's sake,", "Damn it,", "Bloody hell,")
PROFANITY_TAILS: tuple[str, ...] = ("you idiot.", "you useless piece of junk.", "are you stupid?",
                                    "for crying out loud, idiot.")
PROFANITY_ADJ: tuple[str, ...] = ("damn", "bloody")
OFFENSIVE_WORDS: frozenset[str] = frozenset({"damn", "bloody", "idiot", "stupid", "junk", "hell", "god's"})

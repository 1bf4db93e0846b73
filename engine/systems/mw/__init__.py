"""The embedded MultiWOZ pipeline behind the ``multiwoz`` system (see ``engine/systems/multiwoz.py``).

- ``normalise``: cleaning, number words, clock times, keyword typo fixing
- ``lexicon``: venue names, stations and hospital departments from the DB, found exactly or with rapidfuzz
- ``patterns``: the regular expressions and word lists of the NLU
- ``nlu``: one utterance → domain, intents, ``(domain, slot, value)`` informs and requests, in context
  (``frames``: its context/result types; ``values``: categorical values, counts, times; ``resolve``: places,
  references, "the same day as ...", don't-care, requests)
- ``dst``: the tracker (belief state, requested slots, offers, bookings)
- ``listen``: optional reading of system turns the pipeline did not write (corpus scoring)
- ``search``: DB queries with an indexed train table
- ``policy`` / ``transport``: the rule policy → :class:`policy.Decision`
- ``nlg`` / ``templates``: acts → reply text
- ``dst_eval``: gold-state mapping, JGA and slot F1 (reusable by the scoring code)
"""

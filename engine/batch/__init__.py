"""Batch runs (``parley run``): replay corpus dialogues under rewriter conditions with N dialogues in flight.

- :mod:`.corpus` streams a MultiWOZ-format file dialogue by dialogue (nothing holds the whole corpus);
- :mod:`.play` plays one dialogue through :class:`engine.session.Session` into records (no database);
- :mod:`.backends` runs dialogues on threads (remote bots), processes (local models, each loading its model
  once) or a Ray cluster (:mod:`.ray_backend`); ``--batch`` on worker processes is :mod:`.lockstep`;
- :mod:`.tally` scores dialogues as they are committed (constant memory per dialogue);
- :mod:`.run` is the driver: a run id, one writer committing dialogues in corpus order (so any number of
  workers stores what a serial run stores), resume after ctrl+c or kill -9, progress per condition.
"""

"""Scoring: MultiWOZ Inform/Success/BLEU (``multiwoz``), corpus replay (``replay``), goal cards (``goals``),
satisfaction statistics (``satisfaction``), paired bootstrap (``bootstrap``) and reports (``report``).

Importing this package is cheap: sacrebleu, scipy, statsmodels and matplotlib are imported inside the
functions that use them.
"""

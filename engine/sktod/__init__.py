"""SK-TOD (DSTC11 track 5): answering subjective questions from customer reviews.

Pipeline (``pipeline.Pipeline``): knowledge-seeking turn detection (``ktd``) → entity tracking (``entities``)
→ knowledge selection (``selection``) → sentiment-aware response generation (``generation``). ``knowledge``
loads DSTC11 ``knowledge.json`` files and the embedded review KB; ``scoring`` has the official metrics;
``train`` fits the KTD classifier and the KS scorer on user-supplied DSTC11 data. Heavy libraries load lazily.
"""

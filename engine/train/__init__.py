"""Training end-to-end TOD models here: MultiWOZ data → format-file sequences → a small causal LM (``parley
train``).

Heavy imports (torch, transformers, tokenizers) stay inside the functions that need them.
"""

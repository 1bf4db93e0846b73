"""Build (or check) the sentence vectors of the embedded review KB that ship in assets.

Run: ``.venv/bin/python bench/sktod_embeddings.py [--check]``

Writes ``assets/sktod/embeddings-<encoder>.npz``: every review sentence and FAQ of
``assets/sktod/knowledge.json`` embedded with the bundled all-MiniLM-L6-v2, filed under the knowledge file's
SHA-256 and the encoder's fingerprint (``engine.sktod.vectors``), so ``--system sktod`` embeds nothing at its
first start. Rebuild after changing the KB (``assets/sktod/build_kb.py``) or the encoder package; a test fails
while the shipped file does not match. ``--check`` only verifies (exit 1 on a mismatch).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="verify the shipped file, write nothing")
    args = ap.parse_args()
    from parley.assets import asset_path
    from parley.engine.sktod.embed import Encoder
    from parley.engine.sktod.knowledge import KnowledgeBase, embedded_knowledge_path
    from parley.engine.sktod.vectors import VectorFile, covers, shipped_name, text_key

    kb = KnowledgeBase.load(embedded_knowledge_path())
    enc = Encoder(cache=False)
    target = VectorFile(asset_path("sktod", shipped_name(enc.fingerprint)), enc.fingerprint, kb.sha256)
    texts = sorted({s.text for s in kb})
    if args.check:
        ok = covers(target.read(), texts)
        print(f"{target.path.name}: {'matches' if ok else 'does NOT match'} the KB "
              f"(sha256 {kb.sha256[:16]}…, {len(texts)} sentences, encoder {enc.fingerprint})")
        return 0 if ok else 1
    t0 = time.perf_counter()
    vecs = enc.encode(texts, progress=lambda m: print("·", m, flush=True))
    for old in target.path.parent.glob("embeddings-*.npz"):  # one shipped file: the current encoder's
        if old != target.path:
            old.unlink()
    target.write({text_key(t): v for t, v in zip(texts, vecs, strict=True)}, merge=False)
    print(f"wrote {target.path} ({len(texts)} sentences, {target.path.stat().st_size / 1e6:.1f} MB, "
          f"{time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

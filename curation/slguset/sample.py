"""The bundled demo corpus: People's Daily sentences as newspaper paragraphs.

``curation/data/slguset/sample_peoples_daily.txt`` holds the first 1,000 sentences of the
People's Daily NER dev file (shared/data/zh_news, research use), three to a line with the
full-width indentation of newspaper text, plus two paragraphs repeated, so a demo run exercises
sentence splitting, space stripping, quote repair and duplicate removal. Rebuild with
``python -m biasforge.curation.slguset.sample GOLD.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from biasforge.resources import package_path

BUNDLED_SAMPLE = package_path("biasforge.curation", "data", "slguset", "sample_peoples_daily.txt")


def build(gold: Path, out: Path = BUNDLED_SAMPLE, sentences: int = 1000) -> None:
    texts = []
    with open(gold, encoding="utf-8") as handle:
        for line in handle:
            texts.append(json.loads(line)["text"])
            if len(texts) >= sentences:
                break
    lines = ["\u3000\u3000" + "".join(texts[i : i + 3]) for i in range(0, len(texts), 3)]
    with_keyword = [line for line in lines if "他" in line]
    lines += with_keyword[:2]  # exact duplicates with a gender keyword, for the dedup step
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    build(Path(sys.argv[1]))

"""Papers are cited by name, never by the file number of their text in the project's shared folder."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLACES = ["irtbridge", "docs", "vignettes", "tests", "speed", "README.md"]
PATTERN = re.compile("seed" + r" 00[0-4]", re.IGNORECASE)


def _text_files():
    for place in PLACES:
        path = ROOT / place
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for f in files:
            if "__pycache__" in f.parts:
                continue
            try:
                yield f, f.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_no_file_number_citations():
    hits = [f"{f.relative_to(ROOT)}:{n}" for f, text in _text_files()
            for n, line in enumerate(text.splitlines(), 1) if PATTERN.search(line)]
    assert hits == [], "cite papers by name (docs/references.md), not by file number: " + ", ".join(hits)


def test_the_pattern_can_fail():
    assert PATTERN.search("as in " + "Seed" + " 002, Fig. 9")


def test_references_name_every_paper():
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    for name in ("MLC paper", "Kandanaarachchi", "Cardoso", "Larner", "Prudêncio"):
        assert name in text

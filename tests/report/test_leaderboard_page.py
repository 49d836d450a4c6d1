"""The leaderboard report's HTML page: self-contained, its sections, its numbers, and a real Chromium render.

The page must fetch nothing (no script, no style sheet link, no http(s) URL; every figure a PNG data URI,
every link a file of the report folder or an anchor), show the flagged items and the identification, and
at a 1,280 px wide window not overflow horizontally (long model names, wide tables): measured by
Chromium's layout (``scrollWidth`` of the document against its ``clientWidth``).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._chromium import _FLAGS, CHROMIUM, body_attribute, render
from tests._html import parse_page as _parse

from irtbridge.leaderboard import leaderboard_report
from irtbridge.report import render_leaderboard_html, write_leaderboard_report

SECTIONS = ["summary", "data", "ranking", "items", "saturation", "information", "tasks", "tiny", "notes"]


def _long_table():
    rng = np.random.default_rng(4)
    n, J = 70, 40
    theta = rng.normal(size=(n, 1))
    b = np.linspace(-2, 2, J)
    X = (rng.random((n, J)) < 1 / (1 + np.exp(-1.2 * (theta - b)))).astype(float)
    X[:, 7] = 1 - X[:, 7]  # a reversed key
    X[:, 8] = 1.0
    X[rng.random((n, J)) < 0.05] = np.nan
    # long, unbroken model names, as harness folders have them
    models = [f"organisation-with-a-long-name__model-{i}-instruct-v0.{i % 9}-awq-4bit-gguf-q4_k_m" for i in range(n)]
    frame = pd.DataFrame(X, index=models, columns=[f"doc-{j:04d}-{'x' * 30}" for j in range(J)])
    long = frame.stack().rename("score").reset_index()
    long.columns = ["model", "item", "score"]
    long.insert(1, "task", [f"task_{int(i[4:8]) % 3}_with_a_rather_long_subtask_name" for i in long["item"]])
    return long


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    rep = leaderboard_report(_long_table())
    out = tmp_path_factory.mktemp("page") / "board"
    files = write_leaderboard_report(rep, out)
    return rep, files, out


def test_page_is_self_contained(board):
    _, files, out = board
    text = files["index"].read_text(encoding="utf-8")
    page = _parse(text)
    assert page.scripts == 0 and page.stylesheets == []
    assert len(page.images) >= 5
    for src in page.images:
        assert src.startswith("data:image/png;base64,"), src[:60]
        png = base64.b64decode(src.split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "http://" not in text and "https://" not in text
    for href in page.links:
        assert href.startswith("#") or (out / href).is_file(), href


def test_sections_and_content(board):
    rep, files, _ = board
    text = files["index"].read_text(encoding="utf-8")
    assert _parse(text).sections == SECTIONS
    flagged = rep.flagged_items
    reversed_item = next(i for i in flagged.index if i.startswith("doc-0007"))
    assert flagged.loc[reversed_item, "flag"] == "negative discrimination"
    assert reversed_item in text and "everyone right" in text
    assert "theta ~ N(0, 1)" in text and "Rodriguez et al. 2021" in text
    for line in rep.summary().lines:
        assert line.html in text
    best = rep.ranking.iloc[0]
    assert f"{best['theta']:.2f}" in text and rep.ranking.index[0] in text


def test_page_without_fit_tasks_or_tiny():
    X = pd.DataFrame({"q1": [1, 1, 0], "q2": [1, 1, 1], "q3": [0, 0, 0]}, index=["a", "b", "c"], dtype=float)
    text = render_leaderboard_html(leaderboard_report(X))
    assert _parse(text).sections == SECTIONS
    assert "No IRT model could be fitted" in text and "The responses name no tasks" in text
    assert "irtbridge tiny RESPONSES --k 100 --out DIR" in text


def _layout(page: Path, workdir: Path, width: int) -> dict[str, str]:
    """The document's scroll and client width after load, at a ``width`` px window (Chromium's layout)."""
    probe = page.with_name("layout.probe.html")
    script = ("<script>window.addEventListener('load', function () { var d = document.documentElement;"
              " document.body.setAttribute('data-scroll-width', String(d.scrollWidth));"
              " document.body.setAttribute('data-client-width', String(d.clientWidth)); });</script>")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "\n</body>"), encoding="utf-8")
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir))
    try:
        proc = subprocess.run([CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},2000",
                               "--dump-dom", probe.resolve().as_uri()], capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        probe.unlink()
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {k: body_attribute(proc.stdout, f"data-{k}") for k in ("scroll-width", "client-width")}


@pytest.mark.slow
def test_page_renders_in_chromium_without_horizontal_overflow(board, tmp_path):
    _, files, _ = board
    shown = render(files["index"], tmp_path, width=1280, height=3000)
    import matplotlib.image as mpimg

    pixels = mpimg.imread(str(shown.screenshot))
    assert pixels.shape[:2] == (3000, 1280)
    assert pixels[..., :3].std() > 0.05  # not a blank page
    assert body_attribute(shown.dom, "data-broken-images") == "0"
    assert int(body_attribute(shown.dom, "data-images")) == len(_parse(files["index"].read_text()).images)
    assert shown.console == []
    layout = _layout(files["index"], tmp_path, 1280)
    assert layout["client-width"] is not None and int(layout["client-width"]) > 1200
    assert int(layout["scroll-width"]) <= int(layout["client-width"]), layout

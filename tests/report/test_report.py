"""The HTML report: files, self-containment, content, and rendering in a real headless Chromium.

The evaluation here is assembled from synthetic per-dataset results (no R), so the page can be checked
quickly; tests/test_evaluate.py renders the page of a real `irtbridge evaluate --quick` run. Expected
numbers are closed forms: EI = (TP + TN) / (FP + FN) of a classifier built to have a given 2 x 2 table,
Glickman's 95% interval rating -/+ 2 RD, and the PNG signature of every embedded figure.
"""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pandas as pd
import pytest

# helpers in tests/ (pytest puts the folder on sys.path): Chromium rendering and a synthetic evaluation
from tests._chromium import body_attribute, render
from tests._html import parse_page as _parse
from tests._synthetic import synthetic_evaluation

from irtbridge.pipeline import MLCRun, assemble
from irtbridge.exceptions import ValidationError
from irtbridge.report import render_html, summary_dict, write_report

SECTIONS = ["summary", "evaluated", "ranking", "datasets", "instances", "mlc", "ei", "notes"]


@pytest.fixture(scope="module")
def evaluation():
    return synthetic_evaluation()


@pytest.fixture(scope="module")
def report(evaluation, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return write_report(evaluation, out)




@pytest.mark.slow
def test_files_are_written(report, evaluation):
    assert report.index.is_file() and report.summary.is_file()
    assert set(report.tables) == set(evaluation.tables())
    for name, path in report.tables.items():
        assert path.parent.name == "tables" and path.suffix == ".csv" and path.stat().st_size > 0, name
    # readable by others (a report written in a container into a mounted folder)
    assert report.index.stat().st_mode & 0o044 == 0o044


def test_tables_keep_full_precision(report, evaluation):
    # exact equality: the CSVs hold shortest round-trip reprs (read back with pandas' round-trip parser)
    ratings = pd.read_csv(report.tables["ratings"], index_col=0, float_precision="round_trip")
    pd.testing.assert_frame_equal(ratings, evaluation.ratings, check_dtype=False, check_names=False, rtol=0, atol=0)
    diag = pd.read_csv(report.tables["diagnostics"], index_col=0, float_precision="round_trip")
    np.testing.assert_array_equal(diag["difficulty_mean"].to_numpy(), evaluation.diagnostics["difficulty_mean"].to_numpy())


def test_page_is_self_contained(report):
    text = report.index.read_text(encoding="utf-8")
    page = _parse(text)
    assert page.scripts == 0 and page.stylesheets == []
    assert page.images, "the page has no figures"
    for src in page.images:
        assert src.startswith("data:image/png;base64,"), src[:60]
        png = base64.b64decode(src.split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
    # nothing fetched from the network: every link is a local file or an anchor
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    for href in page.links:
        assert href.startswith("#") or (report.out / href).is_file(), href


def test_sections_in_reading_order(report):
    page = _parse(report.index.read_text(encoding="utf-8"))
    assert page.sections == SECTIONS


def test_ei_of_a_known_table_is_shown(report):
    text = report.index.read_text(encoding="utf-8")
    section = text[text.index('<section id="ei">'):text.index('<section id="notes">')]
    row = re.search(r"<tr><td>exact</td>(.*?)</tr>", section, re.S)
    assert row, "no EI row for the classifier 'exact'"
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    # TP, FP, FN, TN, Acc, EI: EI = (26 + 29) / (3 + 2) = 11 exactly (closed form)
    assert cells[:4] == ["26", "3", "2", "29"]
    assert cells[5] == "11.00"
    pooled = pd.read_csv(report.tables["ei_pooled"], index_col=0)
    assert pooled.loc["exact", "ei"] == pytest.approx(11.0, rel=1e-12)  # float division only


def test_ranking_intervals_are_rating_plus_minus_two_rd(report, evaluation):
    r = pd.read_csv(report.tables["ratings"], index_col=0)
    # Glickman (2012): the 95% interval is rating -/+ 2 RD
    np.testing.assert_allclose(r["lower"], r["rating"] - 2 * r["rd"], rtol=1e-12)
    np.testing.assert_allclose(r["upper"], r["rating"] + 2 * r["rd"], rtol=1e-12)
    text = report.index.read_text(encoding="utf-8")
    best = r.index[0]
    # an en dash between the ends (a comma would also separate thousands)
    shown = f"{r.loc[best, 'lower']:,.1f} \u2013 {r.loc[best, 'upper']:,.1f}"
    assert shown in text
    assert list(r["rank"]) == sorted(r["rank"])


def test_failed_dataset_and_warnings_in_notes(report):
    text = report.index.read_text(encoding="utf-8")
    assert "broken: not evaluated" in text and "ltm did not converge and mirt failed" in text
    assert "an R warning to show in the notes" in text
    assert "1 dataset(s) could not be evaluated" in text


def test_summary_json(report, evaluation):
    summary = json.loads(report.summary.read_text())
    assert [x["player"] for x in summary["ranking"]] == list(evaluation.ratings.index)
    assert summary["validity"]["valid"] is evaluation.validity["valid"]
    assert {d["dataset"] for d in summary["datasets"]} == {"alpha", "beta", "gamma", "broken"}
    ei = {row["classifier"]: row for row in summary["ei"]}
    assert ei["exact"]["ei"] == pytest.approx(11.0, rel=1e-12)
    assert summary["mlc"]["classes"][0]["mlc"] == pytest.approx(1.2)
    assert summary["files"]["index"] == "index.html"
    assert summary_dict(evaluation)["settings"]["quick"] is True


def test_out_is_a_file(tmp_path, evaluation):
    target = tmp_path / "report.html"
    target.write_text("x")
    with pytest.raises(ValidationError, match="is a file"):
        write_report(evaluation, target)


def test_page_without_binary_dataset_or_mlc(evaluation):
    from dataclasses import replace

    multi = [d for d in evaluation.datasets if d.ok and not d.binary]
    ev = assemble(multi, evaluation.settings, mlc=MLCRun(error="no binary dataset in this run"))
    text = render_html(ev)
    assert "No binary dataset in this run" in text
    assert "Not computed" in text and "no binary dataset in this run" in text
    assert _parse(text).sections == SECTIONS
    assert replace(ev, mlc=None).mlc is None


def test_page_renders_in_chromium(report, tmp_path):
    shown = render(report.index, tmp_path)
    png = shown.screenshot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    import matplotlib.image as mpimg

    pixels = mpimg.imread(str(shown.screenshot))
    assert pixels.shape[:2] == (3000, 1200)
    assert pixels[..., :3].std() > 0.05  # not a blank page
    assert body_attribute(shown.dom, "data-probe") == "done"
    n_images = int(body_attribute(shown.dom, "data-images"))
    assert n_images == len(_parse(report.index.read_text(encoding="utf-8")).images) >= 6
    assert body_attribute(shown.dom, "data-broken-images") == "0"
    for section in SECTIONS:
        assert f'id="{section}"' in shown.dom
    assert shown.console == []  # no JavaScript error, no blocked resource


def test_page_fits_1280_pixels_without_hidden_rows(report, tmp_path):
    """At a 1,280 px window no table runs off the page and no box hides rows behind a scroll bar."""
    shown = render(report.index, tmp_path, width=1280, height=2000)
    assert body_attribute(shown.dom, "data-probe") == "done"
    assert body_attribute(shown.dom, "data-page-overflow") == "0"
    assert body_attribute(shown.dom, "data-wide-tables") == "0"
    assert body_attribute(shown.dom, "data-clipped") == "0"
    text = report.index.read_text(encoding="utf-8")
    assert 'class="scroll"' not in text

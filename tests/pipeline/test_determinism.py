"""Determinism across runs and workers (issue 24 item 5).

The same seed gives identical tables with ``--jobs 1`` and ``--jobs 2`` and on a second run: every CSV
under ``tables/`` of three quick runs of ``irtbridge evaluate`` (iris and wine, the two smallest embedded
sets) is compared exactly, wall-time columns aside (the runs are the session fixture ``quick_runs`` of tests/conftest.py,
which tests/pipeline/test_evaluate.py reads too). ``tools/compare-evaluate.py`` (the same comparison
for the default run, by hand) is checked on those folders and on small hand-made ones.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "compare-evaluate.py"


def _timing(column: str) -> bool:
    return column == "seconds" or column.endswith("_seconds")


def _tables(folder: Path) -> dict[str, pd.DataFrame]:
    """Every CSV under tables/, read back exactly as written, without its wall-time columns."""
    out = {}
    for path in sorted((folder / "tables").glob("*.csv")):
        frame = pd.read_csv(path, float_precision="round_trip")
        out[path.name] = frame.drop(columns=[c for c in frame.columns if _timing(c)])
    return out


def _assert_same_tables(one: Path, two: Path) -> None:
    a, b = _tables(one), _tables(two)
    assert sorted(a) == sorted(b)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)


def _compare(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


# --------------------------------------------------------------------------------------------------
# the comparison script, on hand-made folders (no R)
# --------------------------------------------------------------------------------------------------


def _folder(root: Path, name: str, tables: dict[str, pd.DataFrame]) -> Path:
    (root / name / "tables").mkdir(parents=True)
    for file, frame in tables.items():
        frame.to_csv(root / name / "tables" / file, index=False)
    return root / name


def test_compare_script_ignores_timing_and_row_order_and_finds_differences(tmp_path):
    ratings = pd.DataFrame({"player": ["rf", "nb", "svm"], "rating": [1600.25, 1500.0, 1399.75]})
    datasets = pd.DataFrame({"dataset": ["iris", "wine"], "items": [45, 54], "seconds": [3.9, 1.3],
                             "calibration_seconds": [3.7, 0.9]})
    base = _folder(tmp_path, "base", {"ratings.csv": ratings, "datasets.csv": datasets})
    # other wall times, rows in another order: equal
    slower = datasets.assign(seconds=[9.0, 8.0], calibration_seconds=[7.0, 6.0])
    same = _folder(tmp_path, "same", {"ratings.csv": ratings.iloc[::-1], "datasets.csv": slower})
    proc = _compare(base, same, "--tol", 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("equal") == 2
    # one rating one ulp away: a difference at --tol 0, none at the default tolerance
    nudged = ratings.assign(rating=[1600.25, 1500.0000000000002, 1399.75])
    off = _folder(tmp_path, "off", {"ratings.csv": nudged, "datasets.csv": datasets})
    proc = _compare(base, off, "--tol", 0)
    assert proc.returncode == 1 and "ratings.csv" in proc.stdout and "rating:" in proc.stdout
    assert _compare(base, off).returncode == 0
    # a text column, a table only in the second folder, a folder without tables/
    renamed = ratings.assign(player=["rf", "nb", "lr"])
    text = _folder(tmp_path, "text", {"ratings.csv": renamed, "datasets.csv": datasets, "extra.csv": ratings})
    proc = _compare(base, text)
    assert proc.returncode == 1
    assert "player: text" in proc.stdout and "extra.csv" in proc.stdout and f"missing in {base}" in proc.stdout
    proc = _compare(base, tmp_path)
    assert proc.returncode == 2 and "no tables/" in proc.stderr


# --------------------------------------------------------------------------------------------------
# three real quick runs
# --------------------------------------------------------------------------------------------------


@pytest.fixture
def runs(quick_runs):
    """The session's three quick runs (tests/conftest.py): jobs1, jobs2, jobs2_again."""
    return quick_runs


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.xdist_group("quick_runs")
def test_same_seed_same_tables_with_one_or_two_workers_and_across_runs(runs):
    names = sorted(_tables(runs["jobs1"]))
    # the tables a quick run of two multi-class sets writes, so an empty folder cannot pass
    for table in ("ratings.csv", "rating_history.csv", "matches.csv", "instances.csv", "respondents.csv",
                  "true_scores.csv", "diagnostics.csv", "datasets.csv", "responses_iris.csv", "responses_wine.csv"):
        assert table in names
    _assert_same_tables(runs["jobs1"], runs["jobs2"])
    _assert_same_tables(runs["jobs2"], runs["jobs2_again"])


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.xdist_group("quick_runs")
def test_compare_script_finds_the_runs_equal_and_a_changed_one_different(runs, tmp_path):
    proc = _compare(runs["jobs1"], runs["jobs2"], "--tol", 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("equal") == len(_tables(runs["jobs1"]))
    changed = tmp_path / "changed"
    shutil.copytree(runs["jobs2"], changed)
    instances = pd.read_csv(changed / "tables" / "instances.csv", float_precision="round_trip")
    column = next(c for c in instances.columns if pd.api.types.is_float_dtype(instances[c]) and not _timing(c)
                  and instances[c].notna().any())
    instances.loc[instances[column].first_valid_index(), column] += 1e-6
    instances.to_csv(changed / "tables" / "instances.csv", index=False)
    proc = _compare(runs["jobs1"], changed, "--tol", 0)
    assert proc.returncode == 1 and f"{column}:" in proc.stdout

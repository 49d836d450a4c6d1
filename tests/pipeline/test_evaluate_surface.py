"""evaluate's surface (issue 34): checks before work, exit status, warnings on data that rank nothing, and
a report that says only what is true (ties, intervals, settings, 1-based rows, preprocessing)."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pandas as pd
import pytest

from tests._synthetic import synthetic_evaluation

from irtbridge.cli import main
from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.pipeline import Settings, resolve_datasets
from irtbridge.pipeline.headline import _ranking_lines
from irtbridge.report._format import interval
from irtbridge.report.context import _settings_rows


def test_wrong_target_refused_before_any_dataset_runs(tmp_path, monkeypatch):
    good = tmp_path / "good.csv"
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"x": [1, 2, 3, 4], "target": [0, 1, 0, 1]}).to_csv(good, index=False)
    pd.DataFrame({"x": [1, 2, 3, 4], "label": [0, 1, 0, 1]}).to_csv(bad, index=False)
    with pytest.raises(ValidationError, match=r"has no column 'y' to predict"):
        resolve_datasets([str(good), f"{bad}:y"])
    with pytest.raises(ValidationError, match=r"bad.csv' has no column 'target'"):
        resolve_datasets(["iris", str(good), str(bad)])
    # Settings(target=) names the default column of files given without :COLUMN
    assert resolve_datasets([str(bad)], target="label") == [str(bad)]
    import irtbridge.pipeline as pipeline
    import irtbridge.pipeline.evaluation

    ran = []
    monkeypatch.setattr(irtbridge.pipeline.evaluation, "dataset_units", lambda *a, **k: ran.append(a) or {})
    with pytest.raises(ValidationError, match="'y'"):
        pipeline.evaluate([str(good), f"{bad}:y"], Settings.quick_run(), jobs=1)
    assert ran == []  # nothing ran
    code = main(["evaluate", "--quick", "--datasets", f"{good},{bad}:y", "--out", str(tmp_path / "out")])
    assert code == 2 and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_exit_status_names_failed_datasets(tmp_path, monkeypatch, capsys):
    import irtbridge.pipeline

    monkeypatch.setattr(irtbridge.pipeline, "evaluate", lambda *a, **k: synthetic_evaluation())
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert "1 of 4 dataset(s) failed: broken" in err
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(tmp_path / "b"), "--json"]) == 1
    assert (tmp_path / "b" / "index.html").is_file()  # the report of what did run is still written


@pytest.mark.parametrize("n_test, constant, expected", [
    (4, False, "only 4 test instance(s)"),
    (60, True, "every feature is constant"),
])
def test_unrankable_data_warns(n_test, constant, expected):
    from irtbridge.decodirt.per_dataset import _warn_unrankable

    features = np.ones((30, 3)) if constant else np.random.default_rng(0).normal(size=(30, 3))
    with pytest.warns(DataWarning, match=expected.replace("(", r"\(").replace(")", r"\)")):
        _warn_unrankable("toy", n_test, features)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_unrankable("toy", 60, np.random.default_rng(0).normal(size=(30, 3)))  # nothing to say


def _ev(ratings):
    frame = pd.DataFrame({"kind": "classifier", "rating": ratings, "lower": np.asarray(ratings) - 100.0,
                          "upper": np.asarray(ratings) + 100.0}, index=[f"c{i}" for i in range(len(ratings))])
    return types.SimpleNamespace(ratings=frame, validity={"optimal_first": True, "pessimal_last": True})


def test_equal_ratings_are_named_as_ties():
    # equal up to rounding noise: one part in 1e15 of 1500
    lines = {x.key: x.text for x in _ranking_lines(_ev([1500.0, 1500.0 * (1 + 1e-15), 1400.0]))}
    assert lines["best"].startswith("Best classifiers (tied, 2 with equal ratings): c0 and c1, rating 1500")
    assert lines["runner_up"].startswith("Runner-up: c2, rating 1400")
    lines = {x.key: x.text for x in _ranking_lines(_ev([1500.0, 1450.0]))}
    assert lines["best"].startswith("Best classifier: c0, rating 1500")
    assert lines["runner_up"].startswith("Runner-up: c1, rating 1450")
    lines = {x.key: x.text for x in _ranking_lines(_ev([1500.0, 1500.0, 1500.0]))}
    assert "c0, c1 and c2" in lines["best"] and "runner_up" not in lines


def test_interval_and_settings_read_as_text():
    assert interval(1776.4, 2053.2) == "1,776.4 \u2013 2,053.2"
    rows = dict(_settings_rows(Settings.quick_run()))
    text = " ".join(rows.values())
    assert "{" not in text and "None" not in text and "True" not in text and "False" not in text
    assert rows["quick"] == "yes"
    assert any(k.startswith("calibration ") for k in rows)


def test_hardest_instance_row_is_counted_from_one():
    text = synthetic_evaluation().summary().as_text()
    line = next(x for x in text.splitlines() if "Hardest instance" in x)
    assert "counted from 1" in line and "counted from 0" in line

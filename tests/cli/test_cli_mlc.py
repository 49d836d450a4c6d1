"""Tests of `irtbridge mlc` (the CLI contract of issue 7).

The expected numbers are recomputed from the files the command writes with closed forms (the MLC paper,
Eqs. 9-11) and scikit-learn's metrics, never taken from irtbridge's own printout.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from irtbridge.cli import main
from tests._cli import status


def _binary_data(n: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    theta = rng.normal(0, 1, n) + 1.5 * (y - 0.5)
    a = np.sqrt([2.0, 3, 5, 7, 11, 13]) / 2.5
    b = np.array([-1.0, -0.4, 0.0, 0.3, 0.7, 1.1])
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    frame = pd.DataFrame((rng.uniform(size=p.shape) < p).astype(int), columns=[f"f{j}" for j in range(6)])
    frame["outcome"] = np.where(y == 1, "pos", "neg")
    return frame


def _continuous_data(n: int = 400, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    theta = rng.normal(0, 1, n) + 1.5 * (y - 0.5)
    frame = pd.DataFrame({f"x{j}": w * theta + rng.normal(0, 1, n) for j, w in enumerate([1.0, -0.8, 1.2, 0.6])})
    frame["label"] = y
    return frame


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run the command once per feature kind (each calibrates in R) and keep what it printed and wrote."""
    root = tmp_path_factory.mktemp("cli_mlc")
    out = {}
    for kind, data, target, clf in (("binary", _binary_data(), "outcome", "logistic"),
                                    ("quartiles", _continuous_data(), "label", "mlp")):
        csv = root / f"{kind}.csv"
        data.to_csv(csv, index=False)
        folder = root / f"out_{kind}"
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["mlc", str(csv), "--target", target, "--classifier", clf, "--features", kind,
                         "--seed", "3", "--out", str(folder), "--json"])
        out[kind] = {"code": code, "json": json.loads(buf.getvalue()), "dir": folder, "data": data, "target": target}
    return out


@pytest.mark.r
@pytest.mark.parametrize("kind", ["binary", "quartiles"])
def test_json_contract(runs, kind):
    run = runs[kind]
    assert run["code"] == 0
    out = run["json"]
    assert set(out) == {"classes", "traditional"}
    assert [c["class"] for c in out["classes"]] == [1, 0]
    for c in out["classes"]:
        assert set(c) == {"class", "mlc", "cases_used", "share_used", "converged"}
        assert isinstance(c["converged"], bool) and isinstance(c["cases_used"], int)
        assert c["share_used"] == pytest.approx(c["cases_used"] / len(run["data"]), abs=1e-15)
    assert set(out["traditional"]) == {"accuracy", "precision", "recall", "f1", "auc"}


@pytest.mark.r
@pytest.mark.parametrize("kind", ["binary", "quartiles"])
def test_files_agree_with_closed_forms(runs, kind):
    run = runs[kind]
    folder, out = run["dir"], run["json"]
    for name in ("mlc_table.csv", "cases.csv", "trajectory_class0.csv", "trajectory_class1.csv", "orientation.csv",
                 "accuracy_by_mlc.csv", "summary.txt", "cdi_distributions.png", "difficulty_kde.png",
                 "accuracy_by_cdi.png", "cat_trajectories.png"):
        assert (folder / name).is_file(), name
    for c in out["classes"]:
        t = pd.read_csv(folder / f"trajectory_class{c['class']}.csv")
        assert len(t) == c["cases_used"]
        # Eqs. 9-11 on the presented cases: H / L + ln(R / W), half-case correction when R or W is 0
        L, H, R = len(t), t["difficulty"].sum(), int(t["correct"].sum())
        W = L - R
        r, w = (R + 0.5, W - 0.5) if R == 0 else (R - 0.5, W + 0.5) if W == 0 else (R, W)
        assert c["mlc"] == pytest.approx(H / L + np.log(r / w), abs=1e-12)
    # traditional metrics from the predictions written to cases.csv, by scikit-learn
    cases = pd.read_csv(folder / "cases.csv")
    test = cases[cases["test"]]
    assert out["traditional"]["accuracy"] == pytest.approx(metrics.accuracy_score(test["y"], test["predicted"]), abs=1e-12)
    assert out["traditional"]["recall"] == pytest.approx(metrics.recall_score(test["y"], test["predicted"]), abs=1e-12)
    # class 1 difficulty is the negated CDI
    np.testing.assert_allclose(cases["difficulty"], np.where(cases["y"] == 1, -cases["cdi"], cases["cdi"]), rtol=0, atol=0)
    table = pd.read_csv(folder / "mlc_table.csv", index_col=0)
    assert table.index.tolist()[-2:] == ["MLC (class 1)", "MLC (class 0)"]


@pytest.mark.r
def test_class_one_is_the_larger_label(runs):
    cases = pd.read_csv(runs["binary"]["dir"] / "cases.csv")
    data = runs["binary"]["data"]
    # "pos" > "neg": class 1 is "pos"
    np.testing.assert_array_equal(cases["y"], (data["outcome"] == "pos").astype(int))


@pytest.fixture
def csv(tmp_path):
    def write(frame):
        path = tmp_path / "data.csv"
        frame.to_csv(path, index=False)
        return str(path)

    return write


def test_missing_target_column(csv, tmp_path, capsys):
    path = csv(_binary_data(20))
    assert main(["mlc", path, "--target", "nope", "--out", str(tmp_path / "o")]) == 2
    assert "no column(s) 'nope'" in capsys.readouterr().err


def test_target_with_three_classes(csv, tmp_path, capsys):
    frame = _binary_data(30)
    frame.loc[0, "outcome"] = "maybe"
    assert main(["mlc", csv(frame), "--target", "outcome", "--out", str(tmp_path / "o")]) == 2
    assert "exactly two classes" in capsys.readouterr().err


def test_non_numeric_feature(csv, tmp_path, capsys):
    frame = _binary_data(30)
    frame["colour"] = "red"
    assert main(["mlc", csv(frame), "--target", "outcome", "--out", str(tmp_path / "o")]) == 2
    assert "'colour'" in capsys.readouterr().err


def test_binary_features_must_be_zero_one(csv, tmp_path, capsys):
    frame = _continuous_data(30)
    assert main(["mlc", csv(frame), "--target", "label", "--features", "binary", "--out", str(tmp_path / "o")]) == 2
    assert "features='quartiles'" in capsys.readouterr().err


def test_missing_file_and_bad_seed(tmp_path, csv, capsys):
    assert status(["mlc", str(tmp_path / "none.csv"), "--target", "y", "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err
    path = csv(_binary_data(20))
    with pytest.raises(SystemExit) as exit_:  # refused while the command line is read, like every --seed
        main(["mlc", path, "--target", "outcome", "--seed", "-1", "--out", str(tmp_path / "o")])
    assert exit_.value.code == 2 and "--seed" in capsys.readouterr().err


def test_unknown_classifier_is_an_argparse_error(csv, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["mlc", csv(_binary_data(20)), "--target", "outcome", "--classifier", "perceptron", "--out", str(tmp_path)])
    assert exc.value.code == 2

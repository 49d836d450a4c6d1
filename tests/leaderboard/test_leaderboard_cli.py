"""Adaptive evaluation and the leaderboard CLI (--long, irtbridge anchors, irtbridge estimate).

References: the adaptive test's final SD and accuracy against a direct grid evaluation of the posterior
written here (1e-8); maximum-information order needs fewer items than random order to reach SE < 0.2 on a
simulated 2PL bank with known parameters; the estimate CLI against the p-IRT formula evaluated here
respondent by respondent; the --long reader against a hand-built wide table.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank

GRID = np.linspace(-6, 6, 121)


@pytest.fixture(scope="module")
def bank():
    rng = np.random.default_rng(3)
    items = pd.DataFrame({"a": rng.uniform(0.8, 2.0, 300), "b": rng.normal(size=300)},
                         index=[f"q{j}" for j in range(300)])
    return items, as_item_bank(items, "2PL")


def _p(items, theta):
    return 1 / (1 + np.exp(-items["a"].to_numpy() * (np.asarray(theta)[:, None] - items["b"].to_numpy())))


def _posterior(items, names, x):
    p = _p(items.loc[names], GRID)  # nodes x given
    log = (np.log(p) * x + np.log1p(-p) * (1 - x)).sum(axis=1) - GRID**2 / 2
    w = np.exp(log - log.max())
    return w / w.sum()


def _truth(items, theta, seed):
    rng = np.random.default_rng(seed)
    return dict(zip(items.index, (rng.random(len(items)) < _p(items, [theta])[0]).astype(int)))


def test_adaptive_matches_a_direct_posterior(bank):
    items, b = bank
    truth = _truth(items, 0.7, 1)
    res = irtbridge.adaptive_evaluate(truth.__getitem__, b, stop=0.25, selection="maxinfo")
    assert res.stop == "se" and res.se < 0.25 and res.n_items == len(set(res.items))
    assert res.responses == tuple(float(truth[i]) for i in res.items)
    w = _posterior(items, list(res.items), np.array(res.responses))
    theta = w @ GRID
    assert res.theta == pytest.approx(theta, abs=1e-8)
    assert res.se == pytest.approx(np.sqrt(w @ GRID**2 - theta**2), abs=1e-8)
    rest = [i for i in items.index if i not in set(res.items)]
    expected = (sum(res.responses) + w @ _p(items.loc[rest], GRID).sum(axis=1)) / len(items)
    assert res.accuracy == pytest.approx(expected, abs=1e-8) and res.lower < res.accuracy < res.upper


def test_adaptive_needs_fewer_items_than_random(bank):
    items, b = bank
    thetas = np.random.default_rng(5).normal(size=12)
    n = {sel: [irtbridge.adaptive_evaluate(_truth(items, t, k).__getitem__, b, stop=0.2, max_items=None,
                                           selection=sel, seed=k).n_items for k, t in enumerate(thetas)]
         for sel in ("maxinfo", "random")}
    assert np.mean(n["maxinfo"]) < 0.6 * np.mean(n["random"])


def test_adaptive_bad_answers(bank):
    with pytest.raises(ValidationError, match="must be 0 or 1"):
        irtbridge.adaptive_evaluate(lambda item: 2, bank[1])
    with pytest.raises(ValidationError, match="selection"):
        irtbridge.adaptive_evaluate(lambda item: 1, bank[1], selection="best")


@pytest.fixture(scope="module")
def files(bank, tmp_path_factory):
    items, _ = bank
    folder = tmp_path_factory.mktemp("lb")
    cal = folder / "cal.json"
    cal.write_text(json.dumps({"model": "2PL", "items": [{"item": n, "a": r.a, "b": r.b, "g": 0.0, "u": 1.0}
                                                          for n, r in items.iterrows()]}))
    return folder, cal


def test_anchors_cli(files, bank, capsys):
    folder, cal = files
    out = folder / "anchors.csv"
    assert main(["anchors", str(cal), "--k", "20", "--method", "stratified", "--out", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    written = pd.read_csv(out)["item"].tolist()
    assert shown["anchors"] == written and len(written) == 20 and shown["method"] == "stratified"
    b = bank[0].loc[written, "b"].to_numpy()
    assert (np.diff(b) > 0).all()  # one anchor per difficulty stratum, in difficulty order
    assert main(["anchors", str(cal), "--k", "1000"]) == 2
    assert "1000" in capsys.readouterr().err


def test_estimate_cli_json_and_long(files, bank, capsys):
    folder, cal = files
    items, _ = bank
    anchors = [f"q{j}" for j in range(0, 300, 10)]
    pd.DataFrame({"item": anchors}).to_csv(folder / "anchors.csv", index=False)
    rng = np.random.default_rng(9)
    x = (rng.random((3, len(anchors))) < 0.6).astype(float)
    wide = pd.DataFrame(x, columns=anchors, index=["m1", "m2", "m3"])
    wide.rename_axis("model").reset_index().to_csv(folder / "wide.csv", index=False)
    irtbridge.leaderboard.responses_to_long(wide.rename_axis("model")).to_csv(folder / "long.csv", index=False)
    common = ["--calibration", str(cal), "--anchors", str(folder / "anchors.csv"), "--json"]
    assert main(["estimate", str(folder / "wide.csv"), "--id-column", "model", *common]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    assert main(["estimate", str(folder / "long.csv"), "--long", *common]) == 0
    assert json.loads(capsys.readouterr().out)["respondents"] == rows
    assert [r["respondent"] for r in rows] == ["m1", "m2", "m3"]
    assert set(rows[0]) == {"respondent", "theta", "theta_se", "se", "accuracy", "accuracy_se", "lower", "upper"}
    rest = [i for i in items.index if i not in set(anchors)]
    for row, xi in zip(rows, x):
        w = _posterior(items, anchors, xi)
        expected = (xi.sum() + w @ _p(items.loc[rest], GRID).sum(axis=1)) / len(items)
        assert row["accuracy"] == pytest.approx(expected, abs=1e-8)
        assert row["theta"] == pytest.approx(w @ GRID, abs=1e-8)


def test_cli_bad_input_is_one_line(files, capsys):
    folder, cal = files
    common = ["--calibration", str(cal), "--anchors", str(folder / "anchors.csv")]
    assert main(["estimate", str(folder / "long.csv"), "--long", "--respondent", "nobody", *common]) == 2
    err = capsys.readouterr().err
    assert "'nobody'" in err and len(err.strip().splitlines()) == 1
    pd.DataFrame({"item": ["q1", "zz9"]}).to_csv(folder / "bad_anchors.csv", index=False)
    pd.DataFrame({"model": ["m"], "q1": [1], "zz9": [0]}).to_csv(folder / "bad.csv", index=False)
    assert main(["estimate", str(folder / "bad.csv"), "--id-column", "model", "--calibration", str(cal),
                 "--anchors", str(folder / "bad_anchors.csv")]) == 2
    err = capsys.readouterr().err
    assert "zz9" in err and "not items of the calibration" in err and len(err.strip().splitlines()) == 1
    pd.DataFrame({"model": ["m", "m"], "item": ["q1", "q1"], "score": [1, 0]}).to_csv(folder / "dup.csv", index=False)
    assert main(["estimate", str(folder / "dup.csv"), "--long", *common]) == 2
    err = capsys.readouterr().err
    assert "('m', 'q1')" in err and len(err.strip().splitlines()) == 1


def test_calibrate_reads_long(tmp_path, capsys):
    rng = np.random.default_rng(2)
    theta = rng.normal(size=300)
    items = pd.DataFrame({"a": rng.uniform(0.8, 1.6, 8), "b": rng.normal(size=8)}, index=[f"i{j}" for j in range(8)])
    x = (rng.random((300, 8)) < _p(items, theta)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    wide = pd.DataFrame(x, columns=items.index, index=[f"r{i}" for i in range(300)])
    wide.to_csv(tmp_path / "wide.csv", index=False)
    long = irtbridge.leaderboard.responses_to_long(wide, "who", "what", "y")
    long.to_csv(tmp_path / "long.csv", index=False)
    args = ["--model", "2PL", "--engine", "native", "--json"]
    assert main(["calibrate", str(tmp_path / "wide.csv"), *args]) == 0
    a = json.loads(capsys.readouterr().out)["items"]
    assert main(["calibrate", str(tmp_path / "long.csv"), "--long", "--long-columns", "who,what,y", *args]) == 0
    b = json.loads(capsys.readouterr().out)["items"]
    assert sorted(r["item"] for r in b) == list(items.index)  # columns in order of first appearance
    by_name = {r["item"]: r for r in a}
    for rb in b:
        ra = by_name[rb["item"]]
        assert rb["a"] == pytest.approx(ra["a"], abs=1e-8) and rb["b"] == pytest.approx(ra["b"], abs=1e-8)
    assert main(["calibrate", str(tmp_path / "long.csv"), "--long", *args]) == 2
    assert "'model'" in capsys.readouterr().err

"""Simulation (issue 26, item 3): ``irtbridge.calibration.simulate`` equals ``set.seed(s); simdata(...)``
called directly in R (tests/r/reference_simulate.R): every response, exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.calibration import simulate
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
A = [1.0, 1.5, 0.8, 2.0, 1.2]
D = [0.5, 0.0, -1.0, 1.5, -0.3]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("simulate") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_simulate.R"), str(out)], check=True)
    return json.loads(out.read_text())


def _equal(frame: pd.DataFrame, expected: dict) -> None:
    assert list(frame.columns) == list(expected)
    np.testing.assert_array_equal(frame.to_numpy(), pd.DataFrame(expected).to_numpy())


@pytest.mark.r
def test_simulate_equals_simdata(ref):
    _equal(simulate(A, D, 300, seed=11), ref["dich"])
    _equal(simulate(A, D, 300, "dich", seed=12, guess=[0.2, 0, 0.25, 0.1, 0], upper=0.95), ref["guess"])
    dg = [[1, 0, -1], [0.5, -0.5, np.nan], [2, np.nan, np.nan], [1.5, 0.2, -0.8], [0.3, -1.2, np.nan]]
    _equal(simulate(np.array(A), np.array(dg), 250, "graded", seed=13), ref["graded"])
    mixed = np.column_stack([D, [-1, np.nan, np.nan, 0, np.nan]])
    _equal(simulate(A, mixed, 250, ["graded", "dich", "dich", "graded", "dich"], seed=14), ref["mixed"])
    a2 = np.array([[1, 0], [1.2, 0], [0.8, 0], [0, 1.5], [0, 0.9], [0, 1.1]])
    _equal(simulate(a2, [0.1, -0.2, 0.3, 0.4, -0.5, 0], 200, seed=15, mu=[0.5, -0.5], sigma=[[1, 0.4], [0.4, 2]]),
           ref["two"])
    theta = np.linspace(-2, 2, 40)[:, None]
    _equal(simulate(A, D, None, "2PL", seed=16, theta=theta), ref["theta"])


@pytest.mark.r
def test_names_and_seed(ref):
    a = pd.Series(A, index=[f"q{i}" for i in range(1, 6)])
    named = simulate(a, D, 300, seed=11)
    assert list(named.columns) == list(a.index)
    np.testing.assert_array_equal(named.to_numpy(), simulate(A, D, 300, seed=11).to_numpy())
    assert list(simulate(A, D, 3, seed=1, item_names=list("vwxyz")).columns) == list("vwxyz")
    assert not simulate(A, D, 300, seed=11).equals(simulate(A, D, 300, seed=12))
    assert simulate(A, D, 300, seed=11).dtypes.eq(np.int64).all()


def test_bad_arguments_are_one_line_errors():
    cases = [
        (dict(a=A, d=D[:4], n=10), "d: 4 rows for 5 items"),
        (dict(a=A, d=D, n=0), "n must be a positive integer"),
        (dict(a=A, d=D, n=10, itemtype="9PL"), "itemtype='9PL' is not one simdata takes"),
        (dict(a=A, d=D, n=10, itemtype=["dich"] * 3), "itemtype: 3 item types for 5 items"),
        (dict(a=A, d=D, n=10, seed=1.5), "seed must be a whole number from 0 to 2147483647"),
        (dict(a=A, d=D, n=10, guess=[0.1, 0.2]), "guess must be one number or one per item"),
        (dict(a=A, d=D, n=10, mu=[0, 0]), "mu must hold 1 mean"),
        (dict(a=A, d=D, n=10, sigma=[[1, 0.5], [0.4, 1]]), "sigma must be a symmetric 1x1"),
        (dict(a=A, d=D, n=10, theta=np.zeros((10, 2))), "theta must be complete with 1 column"),
        (dict(a=A, d=D, n=10, theta=np.zeros((12, 1))), "n=10 but theta has 12 rows"),
        (dict(a="x", d=D, n=10), "a must be numbers"),
        (dict(a=A, d=D, n=10, item_names=["x"]), "item_names: 1 names for 5 items"),
    ]
    for kwargs, match in cases:
        kwargs.setdefault("seed", 1)
        with pytest.raises(ValidationError, match=match) as info:
            simulate(**kwargs)
        assert "\n" not in str(info.value)

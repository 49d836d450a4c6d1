"""The native graded EM (irtbridge.em.graded) against mirt's ``itemtype = "graded"`` called directly in R.

Both sides get the same quadrature (61 nodes on [-6, 6]) and TOL = 1e-6 (tests/r/reference_native_graded.R).
EM converges linearly, so each stops within about 1e-5 of the same maximum (mirt, with its accelerated EM
and quasi-Newton M-step, is the further of the two on these data): every parameter must agree to 1e-4 and
the log-likelihoods to 1e-6 relative. EAP scores of the native fit (native kernel) are checked against
mirt's ``fscores`` on mirt's fit, to 1e-4. Data: mirt's Science (4 items, categories coded 1..4, recoded
to 0..3 by both engines) and a simulated graded set with 2, 3 and 5 categories and 30% of the cells missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from irtbridge.em import graded as em_graded
from irtbridge.em.core import fit_em, prepare_graded, prepare_responses
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-4


def _mixed(n=600, seed=7, missing=0.3) -> pd.DataFrame:
    """Graded responses from known parameters: items with 2, 3 and 5 categories, ``missing`` of cells NaN."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    cols = {}
    for j, k in enumerate([2, 3, 5] * 4):
        a = rng.uniform(0.7, 2.0)
        d = np.sort(rng.normal(0, 1.2, k - 1))[::-1]
        above = rng.random(n)[:, None] < 1 / (1 + np.exp(-(a * theta[:, None] + d[None, :])))
        cols[f"g{j}"] = above.sum(axis=1).astype(float)
    x = pd.DataFrame(cols).mask(rng.random((n, len(cols))) < missing)
    x.iloc[x.isna().all(axis=1).to_numpy(), 0] = 1.0
    return x


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("graded")
    _mixed().to_csv(tmp / "mixed.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_native_graded.R"), str(tmp / "ref.json"),
                    str(tmp / "mixed.csv")], check=True)
    return json.loads((tmp / "ref.json").read_text())


def _data(name: str) -> pd.DataFrame:
    return response_dataset("Science") if name == "science" else _mixed()


@pytest.fixture(scope="module")
def fits():
    return {name: irtbridge.calibrate(_data(name), "graded", engine="native", TOL=1e-6, quadpts=61,
                                      technical={"NCYCLES": 5000}) for name in ("science", "mixed")}


def _matrix(rows) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


@pytest.mark.r
@pytest.mark.parametrize("name", ["science", "mixed"])
def test_native_graded_equals_mirt(ref, fits, name):
    fit, r = fits[name], ref[name]
    assert fit.engine == "native" and fit.model == "graded" and fit.converged and r["converged"]
    b = _matrix(r["b"])
    assert list(fit.items.columns) == ["a"] + [f"b{k + 1}" for k in range(b.shape[1])]
    np.testing.assert_allclose(fit.items["a"], r["a"], rtol=0, atol=TOL)
    got = fit.items.drop(columns="a").to_numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(b))  # same categories per item
    np.testing.assert_allclose(got[~np.isnan(b)], b[~np.isnan(b)], rtol=0, atol=TOL)
    # the slope-intercept metric mirt estimates in: d_k = -a b_k
    d = _matrix(r["d"])
    mine = -got * fit.items["a"].to_numpy()[:, None]
    np.testing.assert_allclose(mine[~np.isnan(d)], d[~np.isnan(d)], rtol=0, atol=TOL)
    assert fit.n_parameters == r["nest"]
    assert fit.loglik == pytest.approx(r["loglik"], rel=1e-6)
    # native scoring of the native fit (in the data's own codes) = mirt's fscores on mirt's fit
    eap = fit.abilities(responses=_data(name))["theta"].to_numpy()
    np.testing.assert_allclose(eap, r["eap"], rtol=0, atol=TOL)


def test_graded_gradient_and_hessian_are_the_derivatives_of_the_objective():
    # central differences of the M-step objective (an independent check of the analytic terms)
    rng = np.random.default_rng(0)
    theta = np.linspace(-4, 4, 21)
    r = rng.random((3, 21, 4)) * 5
    a = rng.uniform(0.5, 2, 3)
    d = np.sort(rng.normal(size=(3, 3)), axis=1)[:, ::-1].copy()
    _, grad, hess = em_graded.graded_loglik_terms(r, a, d, theta)
    x, eps = np.column_stack([a, d]), 1e-6
    for k in range(4):
        up, down = x.copy(), x.copy()
        up[:, k] += eps
        down[:, k] -= eps
        fu, gu, _ = em_graded.graded_loglik_terms(r, up[:, 0].copy(), up[:, 1:].copy(), theta)
        fd, gd, _ = em_graded.graded_loglik_terms(r, down[:, 0].copy(), down[:, 1:].copy(), theta)
        np.testing.assert_allclose(grad[:, k], (fu - fd) / (2 * eps), rtol=1e-6, atol=1e-4)
        np.testing.assert_allclose(hess[:, :, k], (gu - gd) / (2 * eps), rtol=1e-5, atol=1e-3)


def test_two_category_graded_items_are_2pl_items():
    # a graded fit of 0/1 data is the 2PL: same maximum, d1 = d (the 2PL engine is itself checked against mirt)
    x = _mixed(400, seed=3, missing=0.2).clip(upper=1.0).to_numpy()
    names = [f"g{j}" for j in range(x.shape[1])]
    graded = fit_em(prepare_graded(x, names)[0], "graded", TOL=1e-9, NCYCLES=5000)
    twopl = fit_em(prepare_responses(x, names), "2PL", TOL=1e-9, NCYCLES=5000)
    np.testing.assert_allclose(graded.a, twopl.a, rtol=0, atol=1e-6)
    np.testing.assert_allclose(graded.d[:, 0], twopl.d, rtol=0, atol=1e-6)
    assert graded.loglik == pytest.approx(twopl.loglik, rel=1e-12)


def test_sparse_and_dense_graded_layouts_agree():
    x = _mixed(300, seed=5, missing=0.6).to_numpy()
    names = [f"g{j}" for j in range(x.shape[1])]
    dense = fit_em(prepare_graded(x, names, dense_below=1.0)[0], "graded", TOL=1e-8, NCYCLES=3000)
    sparse_ = fit_em(prepare_graded(x, names, dense_below=0.0)[0], "graded", TOL=1e-8, NCYCLES=3000)
    np.testing.assert_allclose(dense.a, sparse_.a, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dense.d, sparse_.d, rtol=0, atol=1e-10)


def test_graded_scoring_names_bad_categories_and_sparse_cells_are_refused(fits):
    science = response_dataset("Science")
    bad = science.copy()
    bad.iloc[0, 1] = 7.0
    with pytest.raises(ValidationError, match=f"item {science.columns[1]!r} has value 7"):
        fits["science"].abilities(responses=bad)
    back = irtbridge.Calibration.from_json(fits["science"].to_json())
    np.testing.assert_allclose(back.abilities(responses=science)["theta"],
                               fits["science"].abilities(responses=science)["theta"], rtol=0, atol=1e-12)
    cells = prepare_responses((science.to_numpy() > 2).astype(float), science.columns, dense_below=0.0)
    with pytest.raises(ValidationError, match="graded"):
        irtbridge.calibrate(cells, "graded", engine="native")


@pytest.mark.slow
@pytest.mark.xdist_group("dask")
def test_dask_graded_estep_equals_single_process(dask_client):
    x = _mixed(400, seed=9)
    single = irtbridge.calibrate(x, "graded", engine="native", TOL=1e-6)
    spread = irtbridge.calibrate(x, "graded", engine="native", TOL=1e-6, client=dask_client)
    assert spread.iterations == single.iterations
    np.testing.assert_allclose(spread.items, single.items, rtol=0, atol=1e-10)
    assert spread.loglik == pytest.approx(single.loglik, abs=1e-8)


def test_cli_abilities_scores_a_native_graded_fit(tmp_path, capsys, fits):
    from irtbridge.cli import main

    science = response_dataset("Science")
    science.to_csv(tmp_path / "science.csv", index=False)
    assert main(["abilities", str(tmp_path / "science.csv"), "--model", "graded", "--engine", "native", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["abilities"]
    # the CLI's default TOL (1e-4) against the module's TOL = 1e-6 fit
    np.testing.assert_allclose([r["theta"] for r in rows], fits["science"].abilities(responses=science)["theta"],
                               rtol=0, atol=1e-3)

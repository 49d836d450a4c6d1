"""The native EM engine (irtbridge.em.core) against mirt's EM called directly in R.

Both sides get the same quadrature (61 nodes on [-6, 6]) and the same convergence rule at TOL = 1e-6
(tests/r/reference_native_em.R). EM converges linearly, so at TOL = 1e-6 both stop within about 1e-5 of
the same maximum: parameters must agree to 1e-4, log-likelihoods to 1e-6.
EAP scores of the native fit (native kernel) are checked against mirt's fscores on mirt's fit, to 1e-4.
Data: LSAT7 (2PL, Rasch with its free latent variance, 1PL = equal slopes), SAT12 key-scored (2PL), and a
simulated 2PL with 50% of the cells missing.
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
from irtbridge.em.core import fit_em, prepare_responses
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-4


def _simulated(n=800, j=30, missing=0.5, seed=11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.uniform(0.6, 2.0, j), rng.normal(0, 1, j)
    x = (rng.random((n, j)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[np.isnan(x).all(axis=1), 0] = 1.0
    return pd.DataFrame(x, columns=[f"q{k}" for k in range(j)])


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("em")
    _simulated().to_csv(tmp / "missing.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_native_em.R"), str(tmp / "ref.json"),
                    str(tmp / "missing.csv"), str(tmp / "sat12.csv")], check=True)
    out = json.loads((tmp / "ref.json").read_text())
    out["sat12"] = pd.read_csv(tmp / "sat12.csv")
    return out


CASES = {"lsat7_2PL": ("LSAT7", "2PL"), "lsat7_rasch": ("LSAT7", "rasch"), "lsat7_1PL": ("LSAT7", "1PL"),
         "sat12_2PL": ("SAT12", "2PL"), "missing_2PL": ("missing", "2PL")}


@pytest.mark.r
@pytest.mark.parametrize("case", list(CASES))
def test_native_em_equals_mirt(ref, case):
    name, model = CASES[case]
    data = {"LSAT7": response_dataset("LSAT7"), "SAT12": ref["sat12"], "missing": _simulated()}[name]
    fit = irtbridge.calibrate(data, model, engine="native", TOL=1e-6, quadpts=61, technical={"NCYCLES": 5000})
    r = ref[case]
    assert fit.engine == "native" and fit.converged
    np.testing.assert_allclose(fit.items["a"], r["a"], rtol=0, atol=TOL)
    np.testing.assert_allclose(fit.items["b"], r["b"], rtol=0, atol=TOL)
    assert fit.latent_var == pytest.approx(r["var"], abs=TOL)
    assert fit.loglik == pytest.approx(r["loglik"], abs=1e-6)
    # native scoring of the native fit = mirt's fscores(EAP) on mirt's fit (the Rasch prior is N(0, var))
    eap = fit.abilities(responses=data)["theta"].to_numpy()
    np.testing.assert_allclose(eap, r["eap"], rtol=0, atol=TOL)


def test_native_engine_never_starts_r(fresh_python):
    code = ("import sys, irtbridge; from irtbridge.example_data import response_dataset\n"
            "import numpy as np, pandas as pd\n"
            "x = pd.DataFrame((np.random.default_rng(0).random((200, 6)) < 0.6).astype(float))\n"
            "fit = irtbridge.calibrate(x, '2PL', engine='native')\n"
            "head = fit.summary().as_text().splitlines()[0]\n"
            "assert head == 'irtbridge calibration: 2PL by native (' + irtbridge.__version__ + ')', head\n"
            "assert 'rpy2' not in sys.modules, 'rpy2 was imported'\nprint(fit.converged)\n")
    out = fresh_python.run(code)
    assert out.returncode == 0, out.stderr[-2000:]


def test_native_engine_rejects_what_it_does_not_fit():
    x = _simulated(100, 5, 0.0)
    with pytest.raises(ValidationError, match="does not fit model 'nominal'"):
        irtbridge.calibrate(x, "nominal", engine="native")
    with pytest.raises(ValidationError, match="does not take option"):
        irtbridge.calibrate(x, "2PL", engine="native", method="MHRM")


def test_sparse_and_dense_layouts_agree():
    x = _simulated(300, 12, 0.6, seed=3).to_numpy()
    names = [f"q{k}" for k in range(12)]
    # plain EM: the same path in both layouts up to rounding (SQUAREM's step lengths amplify rounding into
    # where, within TOL, it stops)
    dense = fit_em(prepare_responses(x, names, dense_below=1.0), "2PL", TOL=1e-8, NCYCLES=3000, accelerate="none")
    sparse_ = fit_em(prepare_responses(x, names, dense_below=0.0), "2PL", TOL=1e-8, NCYCLES=3000, accelerate="none")
    np.testing.assert_allclose(dense.a, sparse_.a, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dense.d, sparse_.d, rtol=0, atol=1e-10)


@pytest.mark.slow
@pytest.mark.xdist_group("dask")
def test_dask_estep_equals_single_process(dask_client):
    x = _simulated(600, 20, 0.5, seed=5)
    single = irtbridge.calibrate(x, "2PL", engine="native", TOL=1e-6)
    spread = irtbridge.calibrate(x, "2PL", engine="native", TOL=1e-6, client=dask_client)
    assert spread.iterations == single.iterations
    np.testing.assert_allclose(spread.items[["a", "b"]], single.items[["a", "b"]], rtol=0, atol=1e-10)
    assert spread.loglik == pytest.approx(single.loglik, abs=1e-8)


def test_answered_cells_alone_fit_like_the_dense_matrix():
    frame = _simulated(300, 12, 0.6, seed=8)
    frame["flat"] = np.where(np.isnan(frame["q0"]), np.nan, 1.0)
    cells = prepare_responses(frame.to_numpy(), frame.columns, dense_below=0.0)
    with pytest.raises(ValidationError, match="'flat'"):
        irtbridge.calibrate(cells, "2PL", engine="native")
    with pytest.warns(irtbridge.exceptions.DataWarning, match="flat"):
        sparse_fit = irtbridge.calibrate(cells, "2PL", engine="native", drop_constant=True, TOL=1e-6)
    dense_fit = irtbridge.calibrate(frame.drop(columns="flat"), "2PL", engine="native", TOL=1e-6)
    assert sparse_fit.dropped_items == ("flat",) and list(sparse_fit.items.index) == list(dense_fit.items.index)
    np.testing.assert_allclose(sparse_fit.items[["a", "b"]], dense_fit.items[["a", "b"]], rtol=0, atol=1e-10)
    assert sparse_fit.loglik == pytest.approx(dense_fit.loglik, abs=1e-8)

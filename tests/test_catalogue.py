"""The model catalogue and the option domains (issue 33 item 2, issue 34 item 1).

What derives from the catalogue is checked against it; what R fits from the itemtype Python sends is
checked against the same model fitted by mirt/ltm called directly in R; every value a domain refuses is
refused before R (the former crashes in a child process, which must exit normally with one line).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irtbridge
from irtbridge import _catalogue as cat
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "irtbridge"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def r(code: str):
    """Fixed R code (mirt and ltm attached) in this process's R, through rpy2; ltm is detached again after it,
    as its factor-coded ``Science`` would otherwise shadow mirt's for every later test of the session."""
    import rpy2.robjects as ro

    ro.r("suppressPackageStartupMessages({library(mirt); library(ltm)})")
    try:
        return ro.r(code)
    finally:
        ro.r("detach('package:ltm')")


# --- the catalogue ------------------------------------------------------------------------------------
def test_every_model_list_is_a_view_of_the_catalogue():
    from irtbridge.calibration.inputs import itemtypes
    from irtbridge.calibration.results import result
    from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE, ENGINES
    from irtbridge.em import EM_MODELS
    from irtbridge.irt import bank

    assert bank.MODELS == tuple(r.name for r in cat.CATALOGUE.values() if r.scoring)
    assert bank.DICHOTOMOUS_MODELS == tuple(r.name for r in cat.CATALOGUE.values()
                                            if r.scoring and r.kind == "dichotomous")
    assert EM_MODELS == tuple(r.name for r in cat.CATALOGUE.values() if r.native == "em")
    assert result.MODELS == tuple(cat.CATALOGUE)
    assert set(itemtypes.ITEMTYPES) == {r.name for r in cat.CATALOGUE.values() if r.named_by == "mirt"}
    assert itemtypes.NESTED_LOGIT == ("2PLNRM", "3PLNRM", "3PLuNRM", "4PLNRM")
    for name, row in ENGINE_TABLE.items():
        fitted = {m for m, r_ in cat.CATALOGUE.items() if getattr(r_, name) is not None}
        assert set(row.models) == fitted == set(ENGINES[name])


def test_model_names_are_defined_once():
    """No module but the catalogue spells out a tuple of model names, and no R source names a model."""
    listed = re.compile(r'\(\s*"rasch",\s*"1PL"|\(\s*"graded",\s*"gpcm"\)|\(\s*"1PL",')
    spelled = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
               if p.name != "_catalogue.py" and listed.search(p.read_text(encoding="utf-8"))]
    assert not spelled, f"model name lists outside the catalogue: {spelled}"
    r_sources = " ".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "_r" / "R").glob("*.R"))
    code = "\n".join(ln.split("#")[0] for ln in r_sources.splitlines())
    # (ltm's function names, e.g. "rasch", "gpcm", are what R receives for ltm)
    assert not re.search(r'"(1PL|2PL|3PL|4PL|pcm|graded)"', code), "R reads an irtbridge model name"


def test_no_engine_name_branch_outside_the_engines():
    branch = re.compile(r'engine\s*[!=]=\s*"(mirt|ltm|native)"')
    found = [f"{p.relative_to(ROOT)}:{i}" for p in PACKAGE.rglob("*.py") if "engines" not in p.parts
             and p.name != "_catalogue.py"
             for i, ln in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if branch.search(ln)]
    assert not found, found


def test_mirt_itemtypes_and_back():
    assert cat.mirt_itemtype("rasch") == "Rasch" and cat.mirt_itemtype("pcm") == "Rasch"
    assert cat.mirt_itemtype(["1PL", "3PL", "ideal"]) == ["2PL", "3PL", "ideal"]
    assert cat.equal_slope_items(["1PL", "2PL", "1PL"], ["a", "b", "c"]) == ["a", "c"]
    assert [cat.from_mirt_itemtype(t, k) for t, k in [("Rasch", 2), ("Rasch", 5), ("2PL", 2), ("graded", 4),
                                                      ("ggum", 3)]] == ["rasch", "pcm", "2PL", "graded", "ggum"]


def test_engine_rows_say_what_each_engine_takes():
    from irtbridge.calibration.inputs.itemtypes import estimation_options

    assert estimation_options("mirt", {}, method="qmcem", seed=2) == {"method": "QMCEM", "technical": {"set.seed": 2}}
    assert estimation_options("native", {}, method="EM") == {}
    with pytest.raises(ValidationError, match=r"engine='native' does not take option method='MHRM'.*use engine='mirt'"):
        estimation_options("native", {}, method="MHRM")
    with pytest.raises(ValidationError, match=r"key: engine='ltm' takes no key.*use engine='mirt'"):
        estimation_options("ltm", {}, key=[1, 2])


@pytest.mark.r
@pytest.mark.parametrize("model, itemtype, equal", [("1PL", "2PL", True), ("rasch", "Rasch", False),
                                                    ("3PL", "3PL", False)])
def test_the_itemtype_r_receives_fits_what_mirt_fits(model, itemtype, equal):
    """R fits what Python's catalogue row says, equal to mirt called directly with that itemtype."""
    fit = irtbridge.calibrate(response_dataset("LSAT7"), model, se=False)
    constraint = ("sv <- mirt(LSAT7w, 1, '2PL', pars = 'values'); "
                  "m <- mirt(LSAT7w, 1, '2PL', constrain = list(sv$parnum[sv$name == 'a1']), verbose = FALSE)"
                  if equal else f"m <- mirt(LSAT7w, 1, '{itemtype}', verbose = FALSE)")
    loglik = r(f"LSAT7w <- expand.table(LSAT7); {constraint}; extract.mirt(m, 'logLik')")[0]
    assert fit.loglik == pytest.approx(loglik, abs=1e-6)


@pytest.mark.r
@pytest.mark.parametrize("model, call", [("rasch", "rasch(d, constraint = cbind(ncol(d) + 1, 1))"),
                                         ("1PL", "rasch(d)"), ("2PL", "ltm(d ~ z1)")])
def test_the_ltm_function_r_receives_fits_what_ltm_fits(model, call):
    fit = irtbridge.calibrate(response_dataset("LSAT7"), model, engine="ltm", se=True)
    loglik = r(f"d <- expand.table(LSAT7); as.numeric(logLik({call}))")[0]
    assert fit.loglik == pytest.approx(loglik, abs=1e-6)
    assert np.isfinite(fit.standard_errors["b"]).all()
    assert np.isfinite(fit.standard_errors["a"]).all() == (model != "rasch")  # rasch: a fixed at 1


# --- option domains -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def answers():
    """0/1 answers made here (no R needed: every check below happens before R)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame((rng.random((300, 5)) < np.linspace(0.3, 0.8, 5)).astype(float),
                        columns=[f"q{j}" for j in range(5)])


@pytest.mark.parametrize("options, message", [
    ({"quadpts": 0}, "quadpts=0 is outside its domain: an integer of at least 3"),
    ({"quadpts": 2.5}, "quadpts=2.5 is outside its domain"),
    ({"TOL": -1}, "TOL=-1 is outside its domain: a positive number"),
    ({"technical": {"NCYCLES": -1}}, r"technical\['NCYCLES'\]=-1 is outside its domain: an integer of at least 1"),
    ({"technical": {"theta_lim": [6, -6]}}, r"technical\['theta_lim'\]=\[6, -6\] is outside its domain"),
    ({"technical": {"ncycles": 10}}, "technical has no entry 'ncycles'; did you mean 'NCYCLES'"),
    ({"draws": 0}, "draws=0 is outside its domain: an integer of at least 1"),
    ({"SE_type": "Oaks"}, "not a mirt SE.type"),
    ({"optimizer": "bfgs"}, "optimizer='bfgs' is outside its domain: one of 'BFGS'"),
])
def test_mirt_option_values_are_checked_before_r(answers, options, message):
    with pytest.raises(ValidationError, match=message):
        irtbridge.calibrate(answers, "2PL", **options)


def test_ltm_and_native_options_have_domains_too(answers):
    with pytest.raises(ValidationError, match=r"control\['GHk'\]=0 is outside its domain: an integer of at least 2"):
        irtbridge.calibrate(answers, "2PL", engine="ltm", control={"GHk": 0})
    with pytest.raises(ValidationError, match=r"control has no entry 'ghk'; did you mean 'GHk'"):
        irtbridge.calibrate(answers, "2PL", engine="ltm", control={"ghk": 21})
    with pytest.raises(ValidationError, match=r"calibrate\(engine='native'\): TOL=0 is outside its domain"):
        irtbridge.calibrate(answers, "2PL", engine="native", TOL=0)
    with pytest.raises(ValidationError, match=r"calibrate_groups: quadpts=1 is outside its domain"):
        irtbridge.calibrate_groups(answers, ["a", "b"] * 150, "2PL", quadpts=1)
    with pytest.raises(ValidationError, match=r"calibrate_bifactor: technical\['NCYCLES'\]=0 is outside its domain"):
        irtbridge.calibration.calibrate_bifactor(answers, [1, 1, 2, 2, 2], "2PL", technical={"NCYCLES": 0})


@pytest.mark.r
def test_the_technical_domains_name_every_entry_mirt_accepts():
    """mirt:::makeopts stops on a technical entry not in its list `gnames`: the domain table has that list."""
    names = r("local({ for (e in as.list(body(mirt:::makeopts))) if (is.call(e) && identical(e[[1]], as.name('<-')) "
              "&& identical(e[[2]], as.name('gnames'))) return(eval(e[[3]])) })")
    assert set(cat._TECHNICAL) == {str(n) for n in names}


@pytest.mark.r
def test_fscores_options_are_checked_before_r():
    fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)
    with pytest.raises(ValidationError, match=r"irtbridge.mirt.fscores: quadpts=0 is outside its domain"):
        irtbridge.mirt.fscores(fit, quadpts=0)
    with pytest.raises(ValidationError, match=r"theta_lim=\[2, -2\] is outside its domain"):
        irtbridge.mirt.fscores(fit, theta_lim=[2, -2])
    with pytest.raises(ValidationError, match=r"irtbridge.mirt.mirt: TOL=-0.1 is outside its domain"):
        irtbridge.mirt.mirt(response_dataset("LSAT7"), 1, TOL=-0.1)


# The former crashes and R errors, each in a child process: it must end normally (exit 0, after printing
# the one-line error it caught), never by a signal.
CRASHES = {
    "calibrate": 'irtbridge.calibrate(d, "2PL", quadpts=0)',
    "calibrate_groups": 'irtbridge.calibrate_groups(d, ["a", "b"] * 500, "2PL", quadpts=0)',
    "calibrate_bifactor": 'irtbridge.calibration.calibrate_bifactor(d, [1, 1, 2, 2, 2], "2PL", quadpts=0)',
    "NCYCLES": 'irtbridge.calibrate(d, "2PL", technical={"NCYCLES": -1})',
    "mirt": "irtbridge.mirt.mirt(d, 1, quadpts=0)",
}


@pytest.mark.r
@pytest.mark.parametrize("call", list(CRASHES.values()), ids=list(CRASHES))
def test_a_former_crash_is_one_line_and_a_normal_exit(call, tmp_path):
    # the data as a file: the child starts R only if the call itself does (loading LSAT7 from mirt would)
    response_dataset("LSAT7").to_csv(tmp_path / "lsat7.csv", index=False)
    code = ("import irtbridge, pandas\nfrom irtbridge.exceptions import ValidationError\n"
            f"d = pandas.read_csv({str(tmp_path / 'lsat7.csv')!r})\ntry:\n    " + call +
            "\nexcept ValidationError as exc:\n    print(exc)\nelse:\n    print('no error')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and "outside its domain" in lines[0], done.stdout
    assert ("quadpts=0" in lines[0]) != ("NCYCLES" in lines[0])

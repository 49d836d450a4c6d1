"""One result family (issue 33 item 3): every calibration result stands on one base
(:class:`irtbridge.calibration.results._base.FitResult`), the shared methods have the same signature everywhere,
``plot("info")`` means mirt's test information on every result, ``reliability()`` is a dict of floats with
the older forms deprecated (each listed in CHANGELOG.md), and abilities follow one naming rule.

The results are built as tests/calibration/test_displays.py builds them (stand-in live model, R refusing);
the last test fits with mirt and compares the ability columns with mirt's ``fscores`` (1e-8).
"""

from __future__ import annotations

import inspect
import pickle
import warnings
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_displays import RESULTS, calibration, group_calibration

from irtbridge import _moved, calibrate
from irtbridge.calibration.results._base import STATISTICS, FitResult, Reliability
from irtbridge.calibration.shared._columns import with_adjusted
from irtbridge.calibration.shared._stored import remember
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

ROOT = Path(__file__).resolve().parents[2]
SHARED = ("summary", "_repr_html_", "global_fit", "reliability", "plot")
BASE_FIELDS = {f.name for f in fields(FitResult)}


@pytest.mark.parametrize("name", list(RESULTS))
def test_every_result_stands_on_the_one_base_with_the_same_methods(name):
    cls = type(RESULTS[name]())
    assert issubclass(cls, FitResult)
    assert BASE_FIELDS == {*STATISTICS, "options", "warnings", "provenance", "r_model"}
    assert BASE_FIELDS <= {f.name for f in fields(cls)}
    # declared once, in the base: no result re-declares a shared field
    assert not BASE_FIELDS & set(cls.__dict__.get("__annotations__", {})), cls
    for method in SHARED:
        assert inspect.signature(getattr(cls, method)) == inspect.signature(getattr(FitResult, method)), (cls, method)
    assert inspect.signature(FitResult.global_fit).parameters["type"].default == "M2*"  # mirt's M2 default
    assert inspect.signature(FitResult.plot).parameters["kind"].default == "score"  # mirt's plot default
    assert inspect.signature(FitResult.reliability).return_annotation == "Reliability"


@pytest.mark.parametrize("name", list(RESULTS))
def test_pickling_leaves_the_live_model_behind_and_keeps_the_statistics(name):
    result = RESULTS[name]()
    m2 = {"M2": 1.5, "df": 5.0, "p": 0.9, "RMSEA": 0.0, "RMSEA_5": 0.0, "RMSEA_95": 0.02, "SRMSR": 0.01, "TLI": 1.0,
          "CFI": 1.0}
    remember(result, "global_fit:M2*", pd.Series(m2))
    back = pickle.loads(pickle.dumps(result))
    assert back.r_model is None and result.r_model is not None
    assert {k: getattr(back, k) for k in STATISTICS} == {k: getattr(result, k) for k in STATISTICS}
    assert back.__dict__["_computed"]["global_fit:M2*"]["M2"] == 1.5
    data = back.summary().data
    assert {k: data[k] for k in STATISTICS} == {k: getattr(result, k) for k in STATISTICS}


@pytest.mark.parametrize("name", ["ClassCalibration", "MixedCalibration"])
def test_a_result_without_a_trait_says_so_in_one_line(name):
    result = RESULTS[name]()
    for call, what in ((result.reliability, "marginal_rxx"), (lambda: result.plot("info"), "curves")):
        with pytest.raises(ValidationError, match=what):
            call()
    if name == "MixedCalibration":
        with pytest.raises(ValidationError, match="M2"):
            result.global_fit()


def _information_2pl(grid, items):
    # a 2PL's test information: sum over items of a^2 P (1 - P), P = 1 / (1 + exp(-a (theta - b)))
    a, b = items["a"].to_numpy(), items["b"].to_numpy()
    p = 1 / (1 + np.exp(-a * (np.asarray(grid)[:, None] - b)))
    return (a ** 2 * p * (1 - p)).sum(axis=1)


def test_info_is_test_information_on_every_result_as_in_mirt():
    import matplotlib

    matplotlib.use("Agg")
    single, groups = calibration(), group_calibration()
    one = single.plot("info").get_lines()
    assert len(one) == 1
    x, y = one[0].get_xdata(), one[0].get_ydata()
    np.testing.assert_allclose(y, _information_2pl(x, single.items), rtol=1e-10)
    for line, g in zip(groups.plot("info").get_lines(), groups.groups):
        np.testing.assert_allclose(line.get_ydata(), _information_2pl(line.get_xdata(), groups.items[g]), rtol=1e-10)
    # the item curves are mirt's "infotrace": one per item, summing to the test information
    traces = single.plot("infotrace").get_lines()
    assert len(traces) == 2
    np.testing.assert_allclose(sum(t.get_ydata() for t in traces), y, rtol=1e-10)


def test_reliability_is_a_dict_of_floats_and_the_old_forms_warn():
    rel = Reliability({"marginal": 0.8, "empirical": 0.75}, old={"conditional": lambda: "the table"},
                      form=next(f for f in _moved.FORMS if "conditional" in f))
    assert rel == {"marginal": 0.8, "empirical": 0.75} and all(type(v) is float for v in rel.values())
    with pytest.warns(DeprecationWarning, match="conditional_reliability"):
        assert rel["conditional"] == "the table"
    with pytest.raises(KeyError):
        rel["nothing"]
    assert pickle.loads(pickle.dumps(rel)) == {"marginal": 0.8, "empirical": 0.75}
    table = pd.DataFrame({"marginal": [0.8, 0.7], "empirical": [0.6, 0.5]}, index=pd.Index(["a", "b"], name="group"))
    grouped = Reliability({"marginal.a": 0.8, "empirical.a": 0.6, "marginal.b": 0.7, "empirical.b": 0.5}, old=table,
                          form=next(f for f in _moved.FORMS if "GroupCalibration" in f))
    with pytest.warns(DeprecationWarning, match="reliability_table"):
        assert grouped.loc["b", "marginal"] == 0.7
    with pytest.warns(DeprecationWarning, match="removed in irtbridge " + _moved.REMOVAL):
        assert grouped["marginal"].tolist() == [0.8, 0.7]


def test_adjusted_p_values_use_underscores_and_the_old_name_warns():
    table = pd.DataFrame({"S_X2": [1.0, 2.0], "p.S_X2": [0.01, 0.04], "p.Zh": [0.2, 0.3]}, index=["i1", "i2"])
    out = with_adjusted(table, lambda p: p * 2)
    assert list(out.columns) == ["S_X2", "p.S_X2", "p.Zh", "p_adjusted_S_X2", "p_adjusted_Zh"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert out["p_adjusted_S_X2"].tolist() == [0.02, 0.08]
    with pytest.warns(DeprecationWarning, match="p_adjusted_<stat>"):
        assert out["p.Zh.adjusted"].tolist() == [0.4, 0.6]
    with pytest.warns(DeprecationWarning):
        assert list(out[["S_X2", "p.S_X2.adjusted"]].columns) == ["S_X2", "p_adjusted_S_X2"]
    assert type(out.round(2)) is pd.DataFrame and out.attrs == table.attrs


def test_every_deprecated_form_is_in_the_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    deprecated = text.split("### Deprecated", 1)[1].split("\n## ", 1)[0]
    missing = [f for f in _moved.FORMS if f"`{f}`" not in deprecated or f"`{_moved.FORMS[f]}`" not in deprecated]
    assert not missing, f"CHANGELOG.md's Deprecated section lacks: {missing}"


def test_native_abilities_of_one_factor_are_theta_and_se():
    data = response_dataset("LSAT7")
    fit = calibrate(data, "2PL", engine="native")
    assert list(fit.abilities(responses=data).columns) == ["theta", "se"]


@pytest.mark.r
def test_ability_columns_follow_the_rule_and_equal_mirt():
    """One factor: ``theta``, ``se``; several: ``F1, F2, se_F1, se_F2`` (R: fscores(mod, full.scores.SE = TRUE))."""
    data = response_dataset("LSAT7")
    one = calibrate(data, "2PL", se=False).abilities()
    two = calibrate(data, "2PL", dims=2, se=False).abilities()
    assert list(one.columns) == ["theta", "se"]
    assert list(two.columns) == ["F1", "F2", "se_F1", "se_F2"]
    script = ("suppressMessages(library(mirt)); d <- expand.table(LSAT7); "
              "for (k in 1:2) { s <- fscores(mirt(d, k, verbose = FALSE), full.scores.SE = TRUE); "
              "write.table(s[1:20, , drop = FALSE], stdout(), row.names = FALSE, col.names = FALSE) }")
    out = run_r(["Rscript", "-e", script], capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [list(map(float, line.split())) for line in out if line.strip()]
    np.testing.assert_allclose(one.to_numpy()[:20], np.array(rows[:20]), rtol=0, atol=1e-8)
    np.testing.assert_allclose(two.to_numpy()[:20], np.array(rows[20:40]), rtol=0, atol=1e-6)

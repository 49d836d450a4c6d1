"""Displays from stored numbers (issue 34 item 8): every calibration result has ``summary()`` and
``_repr_html_``, both built from what the result holds, never by calling R. Each result is built with a
stand-in live model (so a display that asked R would try) while the R session's call entry raises.
A statistic computed on demand (M2, reliability) appears once computed: tests/calibration/test_surface_r.py
checks it against mirt."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irtbridge._r.session as session
from irtbridge._summary import Summary
from irtbridge.calibration.shared._stored import remember
from irtbridge.calibration.fit.classes import ClassCalibration
from irtbridge.calibration.fit.explanatory import MixedCalibration
from irtbridge.calibration.results.group_result import GroupCalibration
from irtbridge.calibration.results.result import Calibration

LIVE = object()  # stands for a live R model: a display that would ask R gets this far


@pytest.fixture(autouse=True)
def r_refuses(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a display called R ({args[:1]})")

    monkeypatch.setattr(session, "call", refuse)
    monkeypatch.setattr(session, "ensure_packages", refuse)
    monkeypatch.setattr(session, "r_versions", refuse)


def _items() -> pd.DataFrame:
    return pd.DataFrame({"a": [1.0, 1.2], "b": [-0.5, 0.3], "g": [0.0, 0.0], "u": [1.0, 1.0]}, index=["i1", "i2"])


def calibration() -> Calibration:
    return Calibration(items=_items(), standard_errors=None, loglik=-100.0, aic=208.0, bic=215.0, n_parameters=4,
                       converged=True, iterations=12, model="2PL", engine="mirt", n_respondents=50, r_model=LIVE)


def group_calibration() -> GroupCalibration:
    return GroupCalibration(groups=("a", "b"), items={"a": _items(), "b": _items()},
                            latent_means=pd.Series({"a": 0.0, "b": 0.1}), latent_vars=pd.Series({"a": 1.0, "b": 0.9}),
                            loglik=-200.0, aic=420.0, bic=440.0, n_parameters=9, converged=True, iterations=20,
                            model="2PL", invariance=("slopes",), group_sizes={"a": 25, "b": 25},
                            standard_errors={"a": _items() * np.nan, "b": _items() * np.nan}, r_model=LIVE)


def class_calibration() -> ClassCalibration:
    index = pd.MultiIndex.from_product([["i1", "i2"], ["Class_1", "Class_2"]], names=["item", "class"])
    return ClassCalibration(n_classes=2, class_proportions=pd.Series([0.4, 0.6], index=["Class_1", "Class_2"]),
                            item_probabilities=pd.DataFrame({"category_1": [0.2, 0.7, 0.3, 0.8],
                                                             "category_2": [0.8, 0.3, 0.7, 0.2]}, index=index),
                            loglik=-90.0, aic=190.0, bic=200.0, n_parameters=5, converged=True, iterations=30,
                            item_names=("i1", "i2"), n_respondents=50, r_model=LIVE)


def mixed_calibration() -> MixedCalibration:
    fixef = pd.DataFrame({"Estimate": [0.5, -0.2], "Std.Error": [0.1, 0.1], "z.value": [5.0, -2.0]},
                         index=["groupG2", "groupG3"])
    cov = pd.DataFrame([[1.0]], index=["COV_11"], columns=["COV_11"])
    return MixedCalibration(fixef=fixef, random_covariances={"Theta": cov}, parameters=pd.DataFrame(),
                            loglik=-300.0, aic=610.0, bic=630.0, n_parameters=5, converged=False, iterations=500,
                            options={"fixed": "~ 0 + items + group", "random": ["~ 1 | school"]}, r_model=LIVE)


RESULTS = {"Calibration": calibration, "GroupCalibration": group_calibration,
           "ClassCalibration": class_calibration, "MixedCalibration": mixed_calibration}


@pytest.mark.parametrize("name", list(RESULTS))
def test_displays_exist_and_never_call_r(name):
    result = RESULTS[name]()
    summary = result.summary()
    assert isinstance(summary, Summary)
    page = result._repr_html_()
    assert page == summary.as_html() and page.startswith("<div")
    assert str(summary).splitlines()[0] == summary.title
    assert len(repr(result).splitlines()) == 1  # a repr is one line, not the tables


def test_fit_statistics_appear_once_computed_without_asking_r():
    fit = calibration()
    assert "not computed yet" in str(fit.summary())
    m2 = pd.Series({"M2": 11.9386, "df": 5.0, "p": 0.0357, "RMSEA": 0.0373, "RMSEA_5": 0.0086, "RMSEA_95": 0.0633,
                    "SRMSR": 0.0397, "TLI": 0.9413, "CFI": 0.9707})
    remember(fit, "global_fit:M2*", m2)  # what fit.global_fit() keeps
    remember(fit, "reliability", {"marginal": 0.4434, "empirical": 0.4521})
    text = str(fit.summary())
    assert "M2 11.939 (df 5, p 0.036)" in text and "[0.009 – 0.063]" in text
    assert "reliability: marginal 0.443   empirical 0.452" in text
    group = group_calibration()
    remember(group, "global_fit:M2*", pd.concat([m2.drop("SRMSR"), pd.Series({"SRMSR.a": 0.03, "SRMSR.b": 0.05})]))
    assert "SRMSR.a 0.030   SRMSR.b 0.050" in str(group.summary())


@pytest.mark.parametrize("name", ["Calibration", "GroupCalibration"])
def test_computed_statistics_travel_with_the_result(name):
    import pickle

    result = RESULTS[name]()
    remember(result, "global_fit:M2*", pd.Series({"M2": 3.5, "df": 5.0, "p": 0.62, "RMSEA": 0.0, "SRMSR": 0.01,
                                                  "TLI": 1.0, "CFI": 1.0}))
    object.__setattr__(result, "r_model", None)  # the stand-in does not pickle; a real R model is dropped
    back = pickle.loads(pickle.dumps(result))
    assert "M2 3.500 (df 5, p 0.620)" in str(back.summary())

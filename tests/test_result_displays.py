"""Every result has ``summary()`` and ``_repr_html_``, built from what it holds (issue 34 item 8): the
results outside calibration that had neither (Friedman and Nemenyi tests, item banks, per-dataset
records, latent trait analyses), displayed while the R session's call entry raises. The calibration
results are in tests/calibration/test_displays.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irtbridge._r.session as session
from irtbridge._summary import Summary
from irtbridge.decodirt.records import DatasetResult
from irtbridge.irt import as_item_bank
from irtbridge.portfolio.latent import latent_trait_analysis
from irtbridge.rankstats import friedman, nemenyi

SCORES = pd.DataFrame(np.random.default_rng(1).random((8, 4)), columns=["A", "B", "C", "D"])


def _latent():
    rng = np.random.default_rng(2)
    easiness = pd.Series(np.linspace(-2, 2, 30), index=[f"d{i}" for i in range(30)])
    perf = pd.DataFrame({k: 1 / (1 + np.exp(-(easiness.to_numpy() * s))) + rng.normal(0, 0.02, 30)
                         for k, s in (("x", 1.0), ("y", 2.0))}, index=easiness.index)
    return latent_trait_analysis(perf, easiness)


RESULTS = {
    "FriedmanResult": lambda: friedman(SCORES),
    "NemenyiResult": lambda: nemenyi(SCORES),
    "ItemBank": lambda: as_item_bank(pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]}, index=["i", "j"]), "2PL"),
    "DatasetResult (failed)": lambda: DatasetResult.failure("iris", "could not load"),
    "LatentTraitAnalysis": _latent,
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_summary_and_html_without_r(name, monkeypatch):
    result = RESULTS[name]()

    def refuse(*args, **kwargs):
        raise AssertionError("a display called R")

    monkeypatch.setattr(session, "call", refuse)
    summary = result.summary()
    assert isinstance(summary, Summary) and summary.title
    assert result._repr_html_() == summary.as_html()

"""Issue 26 item 3: latent class models. ``calibrate_classes`` and ``ClassCalibration`` against mirt's
``mdirt`` called directly in R (tests/r/reference_classes.R): log-likelihood, information criteria, class
proportions, item probabilities per class, M2, posteriors per respondent and per pattern, parameter
tables, start values, random starts. Tolerance 1e-6: the same deterministic EM on the same data.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from irtbridge._summary import Summary
from irtbridge.calibration import ClassCalibration, calibrate_classes, class_parameter_table
from irtbridge.calibration.fit.classes import CLASS_OPTIONS
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-6


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("classes") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_classes.R"), str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def lca():
    return calibrate_classes(response_dataset("LSAT"), 2)


def _close(ours, theirs, tol=TOL):
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=0, atol=tol)


def _probabilities(fit, expected):
    for item, rows in expected.items():
        block = fit.item_probabilities.loc[item]
        assert block.index.tolist() == [f"Class_{k + 1}" for k in range(fit.n_classes)]
        width = len(rows[0])
        _close(block.iloc[:, :width], rows)
        assert block.iloc[:, width:].isna().all().all()


@pytest.mark.r
def test_two_classes_equal_mirt(lca, ref):
    assert isinstance(lca, ClassCalibration) and lca.n_classes == 2 and lca.converged
    _close([lca.loglik, lca.aic, lca.bic], [ref["loglik"], ref["aic"], ref["bic"]])
    assert lca.n_parameters == ref["nest"] and lca.iterations == ref["iterations"]
    assert lca.class_proportions.index.tolist() == ["Class_1", "Class_2"]
    _close(lca.class_proportions, ref["proportions"])
    assert list(lca.item_probabilities.columns) == ["category_1", "category_2"]
    _probabilities(lca, ref["probabilities"])
    m2 = lca.global_fit()
    assert m2.index.tolist() == list(ref["m2"])
    _close(m2, [v for v in ref["m2"].values()])
    c2 = lca.global_fit(type="C2")  # the same signature as every result's (issue 33 item 3)
    _close(c2, [v for v in ref["m2_c2"].values()])
    with pytest.raises(ValidationError, match="type"):
        lca.global_fit(type="M3")


@pytest.mark.r
def test_posteriors_and_parameters_equal_mirt(lca, ref):
    post = lca.posteriors()
    assert list(post.columns) == ["Class_1", "Class_2"] and len(post) == lca.n_respondents
    _close(post, np.column_stack([ref["posteriors"]["Class_1"], ref["posteriors"]["Class_2"]]))
    patterns = lca.posteriors(patterns=True)
    assert list(patterns.columns) == list(ref["patterns"])
    _close(patterns, np.column_stack(list(ref["patterns"].values())))
    table = lca.parameters()
    assert table["name"].tolist() == ref["values"]["name"]
    _close(table["value"], ref["values"]["value"])


@pytest.mark.r
def test_start_values_and_random_starts_equal_mirt(ref):
    science = response_dataset("Science")
    table = class_parameter_table(science, 3)
    assert table["name"].tolist() == ref["start_table"]["name"]
    _close(table["value"], ref["start_table"]["value"])
    table.loc[table["name"] == "a1", "value"] = 0.5
    poly = calibrate_classes(science, 3, parameters=table)
    assert poly.options["parameters"] == "given"
    _close(poly.loglik, ref["poly"]["loglik"])
    _close(poly.class_proportions, ref["poly"]["proportions"])
    assert list(poly.item_probabilities.columns) == [f"category_{j}" for j in range(1, 5)]
    _probabilities(poly, ref["poly"]["probabilities"])
    runs = calibrate_classes(response_dataset("LSAT"), 2, nruns=3, seed=4)
    _close(runs.loglik, ref["runs"])
    assert runs.options == {"nruns": 3, "seed": 4}
    assert set(CLASS_OPTIONS) <= set(ref["formals"])  # every option offered is one mdirt reads


@pytest.mark.r
def test_summary_pickle_and_the_live_model(lca):
    s = lca.summary()
    assert isinstance(s, Summary) and "class proportions: Class_1 0.329" in s.as_text()
    assert lca._repr_html_() == s.as_html()
    assert s.to_dict()["headline"]
    back = pickle.loads(pickle.dumps(lca))
    assert back.r_model is None and back.loglik == lca.loglik
    assert back.item_probabilities.equals(lca.item_probabilities)
    with pytest.raises(ValidationError, match="posteriors needs the live mirt model"):
        back.posteriors()
    with pytest.raises(ValidationError, match="patterns must be True or False"):
        lca.posteriors(patterns="yes")


def test_bad_input_is_one_line():
    """Refused in Python, before R starts."""
    lsat = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 1]], float)
    cases = [
        (lambda: calibrate_classes(lsat, 1), "n_classes must be >= 2"),
        (lambda: calibrate_classes(lsat, 2.5), "n_classes must be a whole number"),
        (lambda: calibrate_classes(lsat, 2, rotate="x"), "calibrate_classes takes no option 'rotate'"),
        (lambda: calibrate_classes(lsat, 2, tol=1e-5), "did you mean 'TOL'?"),
        (lambda: calibrate_classes(lsat, 2, itemtype="2PL"), "option 'itemtype' is set by irtbridge"),
        (lambda: calibrate_classes(lsat, 2, parameters=[1, 2]), "parameters must be a DataFrame"),
        (lambda: calibrate_classes(lsat, 2, seed=-1), "seed must be a whole number from 0 to"),
        (lambda: calibrate_classes(lsat[:, :1], 2), "responses has 1 item(s)"),
        (lambda: class_parameter_table(lsat, 0), "n_classes must be >= 2"),
    ]
    for call, message in cases:
        with pytest.raises(ValidationError) as err:
            call()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)

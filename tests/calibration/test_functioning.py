"""Issue 26 item 3: differential functioning beyond DIF's likelihood ratio tests. ``GroupCalibration.drf``,
``.dtf``, ``.empirical_es``, ``dif(method="wald")`` and ``calibration.sibtest`` against mirt's DRF, DTF,
empirical_ES, DIF(Wald = TRUE) and SIBTEST called directly in R (tests/r/reference_functioning.R).

Tolerance 1e-6: both sides fit the same deterministic model on the same data (TOL = 1e-4, so they agree
to rounding) and draw the same parameter sets after the same ``set.seed``; 1e-6 leaves room for BLAS
summation order only. SIBTEST fits nothing and is compared at 1e-10.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge import calibrate, calibrate_groups, dif
from irtbridge.calibration import sibtest
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-6


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """800 respondents in two groups, 8 items; items 6 and 7 are flatter and harder in group "b" (mirt's
    focal group: the second of the sorted labels)."""
    rng = np.random.default_rng(26)
    group = np.repeat(["a", "b"], 400)
    focal = group == "b"
    theta = rng.normal(0, 1, 800) + focal * 0.2
    a = np.tile(rng.uniform(0.9, 1.8, 8), (800, 1))
    d = np.tile(rng.normal(0, 0.8, 8), (800, 1))
    a[focal, 5] *= 0.5
    d[focal, 6] -= 0.8
    p = 1 / (1 + np.exp(-(a * theta[:, None] + d)))
    frame = pd.DataFrame((rng.random(p.shape) < p).astype(float), columns=[f"i{j}" for j in range(1, 9)])
    frame["group"] = group
    tmp = tmp_path_factory.mktemp("functioning")
    frame.to_csv(tmp / "responses.csv", index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_functioning.R"), str(tmp / "ref.json"),
                    str(tmp / "responses.csv")], check=True)
    return frame.drop(columns="group"), frame["group"], json.loads((tmp / "ref.json").read_text())


@pytest.fixture(scope="module")
def anchored(data):
    items, group, _ = data
    return calibrate_groups(items, group, "2PL", invariance=[*items.columns[:4], "free_means", "free_var"])


@pytest.fixture(scope="module")
def configural(data):
    items, group, _ = data
    return calibrate_groups(items, group, "2PL")


def _num(values):
    values = values if isinstance(values, list) else [values]  # R's length-one vectors arrive unboxed
    return np.array([np.nan if v is None else float(v) for v in values])


def _same(ours, theirs, tol=TOL):
    np.testing.assert_allclose(np.asarray(ours, dtype=float), _num(theirs), rtol=0, atol=tol, equal_nan=True)


def test_drf_equals_mirt(anchored, data):
    ref = data[2]
    out = anchored.drf()
    assert list(out.columns) == list(ref["drf"])
    assert out["groups"].tolist() == [ref["drf"]["groups"]] == ["a,b"]
    for col in out.columns[1:]:
        _same(out[col], ref["drf"][col])
    items = anchored.drf(["i5", "i6", "i7", "i8"], by_item=True)
    assert items.index.tolist() == ref["drf_items"]["item"] and items.index.name == "item"
    for col in ("sDIF", "uDIF", "dDIF", "sDIF*", "uDIF*", "dDIF*"):
        _same(items[col], ref["drf_items"][col])
    fitted = anchored.drf(best_fitting=True, npts=200, theta_lim=(-4, 4))
    for col in ("sDRF", "uDRF", "dDRF", "sDRF*"):
        _same(fitted[col], ref["drf_fitted"][col])


def test_drf_with_draws_equals_mirt(anchored, data):
    ref = data[2]
    out = anchored.drf(draws=40, seed=5)
    assert out.index.tolist() == ["sDRF", "uDRF", "dDRF"]
    expected = ref["drf_draws"]
    _same(out["value"], expected["stat"])
    _same(out["ci_lower"], expected["CI_2.5"])
    _same(out["ci_upper"], expected["CI_97.5"])
    for col in ("X2", "df", "p"):
        _same(out[col], expected[col])
    assert np.isnan(out.loc["dDRF", "p"])
    items = anchored.drf(["i6", "i7"], by_item=True, draws=40, seed=6, p_adjust="BH")
    for stat in ("sDIF", "uDIF", "dDIF"):
        part, theirs = items.loc[stat], ref["drf_draws_items"][stat]
        assert part.index.tolist() == theirs["item"]
        _same(part["value"], theirs[stat])
        _same(part["ci_lower"], theirs["CI_2.5"])
        if stat != "dDIF":
            _same(part["p"], theirs["p"])
            _same(part["p_adjusted"], theirs["adj_pvals"])


def test_dtf_equals_mirt(anchored, data):
    ref = data[2]
    out = anchored.dtf()
    assert out.index.tolist() == list(ref["dtf"]) == ["sDTF.score", "sDTF(%).score", "uDTF.score", "uDTF(%).score"]
    _same(out["value"], list(ref["dtf"].values()))
    drawn = anchored.dtf(draws=40, seed=7)
    expected = ref["dtf_draws"]
    _same(drawn["value"], list(expected["observed"].values()))
    _same(drawn["ci_upper"], [expected["CIs"][k][0] for k in out.index])  # mirt's rows: CI_97.5, CI_2.5
    _same(drawn["ci_lower"], [expected["CIs"][k][1] for k in out.index])
    _same(drawn.loc[["sDTF.score"], "p"], [expected["tests"]])
    assert drawn["p"].iloc[1:].isna().all()


def test_empirical_es_equals_mirt(anchored, data):
    ref = data[2]
    out = anchored.empirical_es()
    assert out.index.tolist() == ref["es"]["item"]
    for col in out.columns:
        _same(out[col], ref["es"][col])
    test = anchored.empirical_es(["i5", "i6", "i7", "i8"], by_item=False)
    assert test.index.tolist() == ref["es_test"]["Effect Size"] and list(test.columns) == ["value"]
    _same(test["value"], ref["es_test"]["Value"])


def test_dif_by_wald_tests_equals_mirt(configural, data):
    ref = data[2]["wald"]
    out = dif(configural, ["a1", "d"], items=["i1", "i6", "i7"], p_adjust="BH", method="wald")
    assert out.index.tolist() == ref["item"] == ["i1", "i6", "i7"]
    assert list(out.columns) == ["W", "df", "p", "p_adjusted"]
    for ours, theirs in (("W", "W"), ("df", "df"), ("p", "p"), ("p_adjusted", "adj_p")):
        _same(out[ours], ref[theirs])
    same = configural.dif(["a1", "d"], items=["i1", "i6", "i7"], p_adjust="BH", method="Wald")
    pd.testing.assert_frame_equal(same, out)


def test_sibtest_equals_mirt(data):
    items, group, ref = data
    cols = ["n_matched_set", "n_suspect_set", "beta", "SE", "X2", "df", "p"]

    def same(out, theirs):
        assert out["focal_group"].tolist() == theirs["focal_group"]
        for col in cols:
            _same(out[col], theirs[col], tol=1e-10)

    one = sibtest(items, group, "i6")
    assert one.index.tolist() == ["SIBTEST", "CSIBTEST"] and one.index.name == "test"
    same(one, ref["sibtest"])
    same(sibtest(items, group, ["i6", "i7"], ["i1", "i2", "i3", "i4"], focal_name="a", Jmin=3,
                 guess_correction=0.1), ref["sibtest_bundle"])
    per_item = sibtest(items, group, ["i5", "i6", "i7"], by_item=True)
    assert per_item.index.get_level_values("item").unique().tolist() == ["i5", "i6", "i7"]
    for item in ("i5", "i6", "i7"):
        same(per_item.loc[item], ref["sibtest_items"][item])
    same(sibtest(items, group.to_numpy(), ["i6"], randomize=True, permute=200, seed=9), ref["sibtest_random"])


def _one_missing(frame):
    out = frame.copy()
    out.iloc[0, 0] = np.nan
    return out


def test_bad_input_is_one_line(anchored, configural, data):
    items, group, _ = data
    cases = [
        (lambda: anchored.drf(["nope"]), "items: unknown item"),
        (lambda: anchored.drf(draws=20), "draws: 20 draws give no 0.95 interval; use at least 40"),
        (lambda: anchored.drf(ci=1.5), "ci must be"),
        (lambda: anchored.drf(p_adjust="sidak"), "p_adjust="),
        (lambda: anchored.drf(theta_lim=(3, -3)), "theta_lim"),
        (lambda: anchored.drf(by_item="yes"), "by_item"),
        (lambda: anchored.dtf(npts=1), "npts"),
        (lambda: anchored.empirical_es([]), "items: name at least one"),
        (lambda: configural.dif(["d"], scheme="drop", method="wald"), "scheme: Wald tests"),
        (lambda: configural.dif(["d"], method="score"), "method="),
        (lambda: sibtest(items, group), "suspect_set: name"),
        (lambda: sibtest(items, group, ["i6"], ["i6", "i1"]), "match_set: item(s) ['i6']"),
        (lambda: sibtest(items, group, ["i6"], focal_name="other"), "focal_name: 'other'"),
        (lambda: sibtest(items, group, ["i6"], guess_correction=[0.1, 0.2]), "guess_correction"),
        (lambda: sibtest(_one_missing(items), group, ["i6"]), "responses: SIBTEST needs complete"),
        (lambda: sibtest(items, group[:10], ["i6"]), "groups: need one label per respondent"),
    ]
    for call, message in cases:
        with pytest.raises(ValidationError) as err:
            call()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_what_needs_a_two_group_fit_with_standard_errors(data):
    items, group, _ = data
    three = calibrate_groups(items, np.resize(["a", "b", "c"], len(items)), "2PL", se=False)
    with pytest.raises(ValidationError, match="drf compares two groups; this fit has 3"):
        three.drf()
    two = calibrate_groups(items, group, "2PL", invariance=["slopes", "intercepts", "free_means"], se=False)
    with pytest.raises(ValidationError, match="draws: parameter draws need the fit's standard errors"):
        two.dtf(draws=100)
    with pytest.raises(ValidationError, match="method: Wald tests need the fit's standard errors"):
        two.dif(["d"], method="wald")
    with pytest.raises(ValidationError, match="empirical_es needs a GroupCalibration"):
        from irtbridge.calibration.analysis.functioning import empirical_es

        empirical_es(calibrate(items, "2PL", se=False))

"""Multiple groups and DIF (issue 12, item 6): calibrate_groups and dif against plain mirt
(multipleGroup, DIF) in tests/r/reference_groups.R, to 1e-8; the dif CLI's JSON shape and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.calibration.fit.groups import GroupCalibration, calibrate_groups, dif
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """400 respondents in two groups, 6 items; item i0 is harder for the focal group (uniform DIF)."""
    rng = np.random.default_rng(3)
    group = np.repeat(["ref", "foc"], 200)
    theta = rng.normal(0, 1, 400) + (group == "foc") * 0.3
    a, d = rng.uniform(0.8, 1.8, 6), np.tile(rng.normal(0, 1, 6), (400, 1))
    d[group == "foc", 0] -= 1.0
    p = 1 / (1 + np.exp(-(a * theta[:, None] + d)))
    frame = pd.DataFrame((rng.random(p.shape) < p).astype(float), columns=[f"i{j}" for j in range(6)])
    frame["group"] = group
    tmp = tmp_path_factory.mktemp("groups")
    csv = tmp / "responses.csv"
    frame.to_csv(csv, index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_groups.R"), str(tmp / "ref.json"), str(csv)], check=True)
    return frame, csv, json.loads((tmp / "ref.json").read_text())


@pytest.fixture(scope="module")
def fits(data):
    frame, _, _ = data
    items = frame.drop(columns="group")
    configural = calibrate_groups(items, frame["group"], "2PL", se=False)
    invariant = calibrate_groups(items, frame["group"], "2PL", invariance=[*items.columns, "free_means", "free_var"],
                                 se=False)
    return configural, invariant


def _same_groups(fit, ref):
    for g, expected in ref.items():
        np.testing.assert_allclose(fit.items[g]["a"], expected["a"], rtol=0, atol=TOL)
        np.testing.assert_allclose(fit.items[g]["b"], expected["b"], rtol=0, atol=TOL)
        assert fit.latent_means[g] == pytest.approx(expected["mean"], abs=TOL)
        assert fit.latent_vars[g] == pytest.approx(expected["var"], abs=TOL)


def test_multiple_group_fits_equal_mirt(data, fits):
    _, _, ref = data
    configural, invariant = fits
    assert isinstance(configural, GroupCalibration) and list(configural.groups) == ref["groups"]
    _same_groups(configural, ref["configural"])
    _same_groups(invariant, ref["invariant"])
    assert configural.loglik == pytest.approx(ref["configural_loglik"], abs=TOL)
    assert invariant.loglik == pytest.approx(ref["invariant_loglik"], abs=TOL)
    assert invariant.latent_means["ref"] != 0  # freed in the invariant model
    assert configural.group_sizes == {"foc": 200, "ref": 200}


def _same_dif(table, expected):
    assert list(table.index) == expected["item"]
    for ours, theirs in (("AIC", "AIC"), ("SABIC", "SABIC"), ("HQ", "HQ"), ("BIC", "BIC"), ("X2", "X2"),
                         ("df", "df"), ("p", "p"), ("p_adjusted", "adj_p")):
        np.testing.assert_allclose(table[ours], expected[theirs], rtol=0, atol=1e-6, err_msg=ours)


def test_dif_add_and_drop_equal_mirt(data, fits):
    _, _, ref = data
    configural, invariant = fits
    _same_dif(dif(configural, ["a1", "d"]), ref["add"])
    drop = invariant.dif(["a1", "d"], scheme="drop", items=["i0", "i1", "i2"], p_adjust="BH")
    _same_dif(drop, ref["drop"])
    assert drop.loc["i0", "p"] < 0.05  # the planted DIF item is found
    assert irtbridge.dif is dif and irtbridge.calibrate_groups is calibrate_groups


def test_dif_cli_json_shape_and_errors(data, tmp_path, capsys):
    frame, csv, ref = data
    assert main(["dif", str(csv), "--groups", "group", "--model", "2PL", "--json", "--no-se"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["item"] for r in out["items"]] == ref["add"]["item"]
    assert set(out["items"][0]) == {"item", "X2", "df", "p", "p_adjusted", "AIC", "BIC"}
    np.testing.assert_allclose([r["X2"] for r in out["items"]], ref["add"]["X2"], atol=1e-6)
    one = tmp_path / "one.csv"
    frame.assign(group="all").to_csv(one, index=False)
    for argv in (["dif", str(one), "--groups", "group"], ["dif", str(csv), "--groups", "nope"],
                 ["dif", str(csv), "--groups", "group", "--which", "d,u", "--no-se"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("irtbridge dif: error:") and "\n" not in err


def test_bad_group_input_is_a_one_line_error(data, fits):
    frame, _, _ = data
    items = frame.drop(columns="group")
    with pytest.raises(ValidationError, match="one level"):
        calibrate_groups(items, ["x"] * len(items))
    with pytest.raises(ValidationError, match="one label per respondent"):
        calibrate_groups(items, ["x", "y"])
    with pytest.raises(ValidationError, match="unknown item"):
        calibrate_groups(items, frame["group"], invariance=["slopes", "i9"])
    with pytest.raises(ValidationError, match="unknown item"):
        dif(fits[0], ["a1"], items=["i9"])
    # a parameter the 2PL fixes (mirt: "Equality constraints can only be applied to freely estimated
    # parameters") or lacks (mirt: "which.par contains parameter names that were not in the fitted model")
    with pytest.raises(ValidationError, match="'g' of item 'i0', but the 2PL multiple-group model .* does not estimate"):
        dif(fits[0], ["a1", "g"])
    with pytest.raises(ValidationError, match="'a2' of item 'i1', but .* has no such parameter"):
        dif(fits[1], ["a2"], scheme="drop", items=["i1"])


def test_dif_cli_which_is_checked_before_the_group_fit(tmp_path, capsys, monkeypatch):
    """``--which`` names a parameter mirt's DIF cannot test: one line naming --which, before multipleGroup runs
    (it was R's multipleGroup error, exit 1, on data whose item i0 is the group; here the fit would fail)."""
    import irtbridge.calibration.fit.groups as groups_module

    def no_fit(*args, **kwargs):
        raise AssertionError("the multiple-group fit ran before --which was checked")

    monkeypatch.setattr(groups_module, "calibrate_groups", no_fit)
    csv = tmp_path / "difr.csv"
    csv.write_text("g,i0,i1,i2,i3\n" + "".join(f"{'AB'[i % 2]},{i % 2},{(i // 2) % 2},{(i // 3) % 2},{(i // 5) % 2}\n"
                                               for i in range(40)))
    for which, fragment in (("zz", "--which: a DIF test of 'zz' of item 'i0', but the 2PL model (1 factor) has no "
                                   "such parameter (its parameters: a1, d, g, u)"),
                            ("a1,g", "--which: a DIF test of 'g' of item 'i0', but the 2PL model (1 factor) does not "
                                     "estimate it (its estimated parameters: a1, d)")):
        assert main(["dif", str(csv), "--groups", "g", "--which", which]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"irtbridge dif: error: {fragment}", err
    # the Rasch model fixes the slope (mirt: equality constraints only on estimated parameters)
    assert main(["dif", str(csv), "--groups", "g", "--model", "rasch", "--which", "a1", "--items", "i2"]) == 2
    assert "--which: a DIF test of 'a1' of item 'i2', but the rasch model" in capsys.readouterr().err

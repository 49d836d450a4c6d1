"""Model structures, constraints, priors, the parameter table (linking), estimation options and scores
(issue 12, items 2-5), each against the same computation by a plain mirt call in
tests/r/reference_structures.R.

Tolerances: 1e-8 absolute for EM fits (the same deterministic computation). MHRM and QMCEM also agree
to 1e-8: mirt seeds both itself (``technical$set.seed``, default 12345) and irtbridge does not touch R's
RNG state, so the Robbins-Monro draws and the quasi-Monte Carlo nodes are the same in both processes.
Plausible values are drawn after ``set.seed(seed)`` on both sides.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge import ModelSpec, Prior, calibrate, parameter_table
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ConvergenceWarning, ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8


def _simulate(rng, n, slopes, intercepts, theta):
    p = 1 / (1 + np.exp(-(theta @ slopes.T + intercepts)))
    return (rng.random(p.shape) < p).astype(float)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(12)
    theta = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=500)
    slopes = np.zeros((8, 2))
    slopes[:4, 0] = rng.uniform(0.8, 2, 4)
    slopes[4:, 1] = rng.uniform(0.8, 2, 4)
    sim = pd.DataFrame(_simulate(rng, 500, slopes, rng.normal(0, 1, 8), theta), columns=[f"s{i}" for i in range(1, 9)])
    a_true, d_true = rng.uniform(0.8, 2, 9), rng.normal(0, 1, 9)
    form = {}
    for name, cols, shift in (("A", range(0, 6), 0.0), ("B", range(3, 9), 0.5)):
        th = rng.normal(shift, 1, (600, 1))
        form[name] = pd.DataFrame(_simulate(rng, 600, a_true[list(cols), None], d_true[list(cols)], th),
                                  columns=[f"c{j + 1}" for j in cols])
    tmp = tmp_path_factory.mktemp("structures")
    paths = [tmp / "sim.csv", tmp / "a.csv", tmp / "b.csv"]
    for frame, path in zip((sim, form["A"], form["B"]), paths):
        frame.to_csv(path, index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_structures.R"), str(tmp / "ref.json"), *map(str, paths)],
                   check=True)
    return {"lsat": response_dataset("LSAT7"), "sim": sim, **form, "ref": json.loads((tmp / "ref.json").read_text())}


def _close(frame, expected, tol=TOL):
    """Every column of ``frame`` equals R's column of the same name."""
    for col in frame.columns:
        np.testing.assert_allclose(frame[col].to_numpy(dtype=float), np.asarray(expected[col], dtype=float), rtol=0,
                                   atol=tol, err_msg=col)


@pytest.fixture(scope="module")
def efa(data):
    return calibrate(data["lsat"], "2PL", dims=2, se=False)


def test_exploratory_two_factor_equals_mirt(data, efa):
    ref = data["ref"]["efa"]
    _close(efa.items, ref["items"])
    assert efa.loglik == pytest.approx(ref["loglik"], abs=TOL)
    assert efa.factors == ("F1", "F2")
    loads = efa.loadings()
    _close(loads[["F1", "F2"]], ref["loadings"])
    np.testing.assert_allclose(loads["h2"], ref["h2"], atol=TOL)
    _close(efa.factor_correlations(), ref["fcor"])
    _close(efa.loadings(rotate="varimax")[["F1", "F2"]], data["ref"]["efa_varimax"])
    scores = efa.abilities("EAP")
    _close(scores, {"F1": ref["scores"]["F1"], "F2": ref["scores"]["F2"],
                    "se_F1": ref["scores"]["SE_F1"], "se_F2": ref["scores"]["SE_F2"]})


def test_plausible_values_equal_mirt_with_the_same_seed(data, efa):
    pv = efa.plausible_values(2, seed=7)
    assert list(pv.columns) == ["draw", "respondent", "F1", "F2"] and len(pv) == 2000
    _close(pv[["F1", "F2"]], data["ref"]["plausible"])
    assert pv["draw"].tolist() == [0] * 1000 + [1] * 1000


def test_equality_constraint_and_priors_from_a_modelspec(data):
    lsat = data["lsat"]
    names = list(lsat.columns)
    eq = calibrate(lsat, "2PL", spec=ModelSpec({"F1": names}, equal=[("a1", names[:3])]), se=False)
    _close(eq.items[["a", "b"]], data["ref"]["equal"]["items"])
    assert eq.loglik == pytest.approx(data["ref"]["equal"]["loglik"], abs=TOL)
    pr = calibrate(lsat, "2PL", spec=ModelSpec({"F1": f"{names[0]}:{names[-1]}"},
                                             priors=[Prior("a1", "lnorm", 0.2, 0.2)]), se=False)
    _close(pr.items[["a", "b"]], data["ref"]["prior"]["items"])
    # the priors= shortcut is the same model reached through the parameter table rather than mirt.model;
    # mirt's EM stops at TOL 1e-4 on a flat surface here, so the two routes agree to 1e-3, not 1e-8
    same = calibrate(lsat, "2PL", priors={"a": ("lnorm", 0.2, 0.2)}, se=False)
    _close(same.items[["a", "b"]], data["ref"]["prior"]["items"], tol=1e-3)


def test_confirmatory_and_bifactor_equal_mirt(data):
    sim = data["sim"]
    cfa = calibrate(sim, "2PL", spec=ModelSpec({"F1": "s1:s4", "F2": range(4, 8)}, covariances=[("F1", "F2")]), se=False)
    _close(cfa.items[["a1", "a2", "d"]], data["ref"]["cfa"]["items"])
    assert cfa.loglik == pytest.approx(data["ref"]["cfa"]["loglik"], abs=TOL)
    assert cfa.factor_correlations().loc["F1", "F2"] == pytest.approx(data["ref"]["cfa"]["cor"], abs=1e-6)
    bif = calibrate(sim, "2PL", spec="G = s1, s2, s3, s4, s5, s6, s7, s8\nS1 = 1-4\nS2 = 5-8", se=False, quadpts=9)
    _close(bif.items[["a1", "a2", "a3", "d"]], data["ref"]["bifactor"]["items"])
    assert bif.loglik == pytest.approx(data["ref"]["bifactor"]["loglik"], abs=TOL)


def test_linking_form_b_to_form_a_through_the_parameter_table(data):
    form_a = calibrate(data["A"], "2PL", se=False)
    pa = form_a.parameters()
    table = parameter_table(data["B"], "2PL")
    for item in ("c4", "c5", "c6"):
        for par in ("a1", "d"):
            row = (table["item"] == item) & (table["name"] == par)
            table.loc[row, "value"] = pa.loc[(pa["item"] == item) & (pa["name"] == par), "value"].item()
            table.loc[row, "est"] = False
    table.loc[table["name"].isin(["MEAN_1", "COV_11"]), "est"] = True
    linked = calibrate(data["B"], "2PL", parameters=table, se=False)
    ref = data["ref"]["linked"]
    _close(linked.items[["a", "b"]], ref["items"])
    assert linked.latent_mean == pytest.approx(ref["mean"], abs=TOL)
    assert linked.latent_var == pytest.approx(ref["var"], abs=TOL)
    assert linked.loglik == pytest.approx(ref["loglik"], abs=TOL)


def test_per_item_models_and_mirt_polytomous_structures(data):
    lsat = data["lsat"]
    names = list(lsat.columns)
    mixed = calibrate(lsat, dict(zip(names, ["2PL"] * 3 + ["3PL"] * 2)), se=False)
    assert mixed.model == "mixed" and mixed.item_types == ("2PL",) * 3 + ("3PL",) * 2
    _close(mixed.items[["a", "b", "g"]], {k: data["ref"]["mixed"]["items"][k] for k in ("a", "b", "g")})
    science = response_dataset("Science")
    for ours, theirs in (("nominal", "nominal"), ("grsm", "grsm"), ("rsm", "rsm"), ("pcm", "Rasch"), ("graded", "graded")):
        fit = calibrate(science, ours, se=False)
        assert fit.loglik == pytest.approx(data["ref"]["science"][theirs], abs=TOL), ours


def test_estimation_options_equal_mirt_and_are_recorded(data):
    lsat = data["lsat"]
    oakes = calibrate(lsat, "2PL", SE_type="Oakes")
    _close(oakes.standard_errors[["a", "b"]], data["ref"]["oakes"], tol=1e-6)
    assert oakes.options["SE.type"] == "Oakes"
    with pytest.warns(ConvergenceWarning):  # 60 Robbins-Monro cycles keep the test short; R stops there too
        mh = calibrate(lsat, "2PL", method="MHRM", se=False, technical={"NCYCLES": 60})
    _close(mh.items[["a", "b"]], data["ref"]["mhrm"]["items"])
    assert mh.options["method"] == "MHRM"
    qm = calibrate(lsat, "2PL", method="QMCEM", se=False)
    _close(qm.items[["a", "b"]], data["ref"]["qmcem"]["items"])
    assert qm.loglik == pytest.approx(data["ref"]["qmcem"]["loglik"], abs=TOL)


def test_bad_specs_are_one_line_errors(data):
    lsat = data["lsat"]
    names = list(lsat.columns)
    bad = [
        dict(spec=ModelSpec({"F1": names + ["nope"]})),                  # unknown item in a spec
        dict(spec="F1 = Item.1, Item.9"),                                   # unknown item in syntax text
        dict(spec=ModelSpec({"F1": names}, covariances=[("F1", "F3")])),  # unknown factor
        dict(spec=ModelSpec({"F1": names}, equal=[("zeta", names[:2])])),  # not a mirt parameter
        dict(priors={"g": ("beta", 5, 17)}),                                # a prior on a parameter 2PL lacks
        dict(dims=0),
        dict(dims=2, spec=ModelSpec({"F1": names})),
        dict(engine="ltm", dims=2),
    ]
    for kwargs in bad:
        with pytest.raises(ValidationError) as info:
            calibrate(lsat, "2PL", **kwargs)
        assert "\n" not in str(info.value), kwargs
    with pytest.raises(ValidationError, match="lacks item"):
        calibrate(lsat, {names[0]: "2PL"})


def test_modelspec_syntax_uses_positions_not_names():
    names = ["x (1)", "x-2", "y", "z"]
    spec = ModelSpec({"F1": ["x (1)", "x-2"], "F2": "y:z"}, fixed={("y", "a1"): 1.0})
    text = spec.to_syntax(names)
    assert "x-2" not in text and text.splitlines()[:2] == ["F1 = 1-2", "F2 = 3-4"]
    assert "FIXED = (3, a1)" in text and "START = (3, a1, 1.0)" in text
    assert irtbridge.ModelSpec is ModelSpec


def test_calibrate_cli_structure_flags(data, tmp_path, capsys):
    from irtbridge.cli import main

    lsat = data["lsat"]
    csv = tmp_path / "lsat.csv"
    lsat.to_csv(csv, index=False)
    assert main(["calibrate", str(csv), "--dims", "2", "--no-se", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["items"]
    for col in ("a1", "a2", "d"):
        np.testing.assert_allclose([r[col] for r in rows], data["ref"]["efa"]["items"][col], atol=TOL)
    spec = tmp_path / "model.txt"
    spec.write_text("F1 = 1-5\nCONSTRAIN = (1, 2, 3, a1)\n")
    assert main(["calibrate", str(csv), "--spec", str(spec), "--no-se", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["items"]
    np.testing.assert_allclose([r["a"] for r in rows], data["ref"]["equal"]["items"]["a"], atol=TOL)
    types = tmp_path / "types.csv"
    types.write_text("item,model\n" + "".join(f"{n},{m}\n" for n, m in zip(lsat.columns, ["2PL"] * 3 + ["3PL"] * 2)))
    assert main(["calibrate", str(csv), "--itemtype-file", str(types), "--no-se", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["items"]
    np.testing.assert_allclose([r["g"] for r in rows], data["ref"]["mixed"]["items"]["g"], atol=TOL)
    bad_spec = tmp_path / "bad.txt"
    bad_spec.write_text("F1 = Item.1, Item.77\n")
    for argv in (["--spec", str(bad_spec)], ["--prior", "g=beta,5,17"], ["--prior", "a1"],
                 ["--spec", str(tmp_path / "missing.txt")], ["--dims", "2", "--engine", "ltm"]):
        assert main(["calibrate", str(csv), "--no-se", *argv]) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("irtbridge calibrate: error:") and "\n" not in err, argv


def test_coming_from_r_covers_every_mirt_export():
    """docs/coming-from-r.md pairs each function mirt exports (asked of R itself) with its counterpart."""
    import re

    out = run_r(["Rscript", "-e", 'cat(getNamespaceExports("mirt"), sep = "\\n")'], check=True,
                         capture_output=True, text=True).stdout.split()
    exports = [e for e in out if not e.startswith(".__")]  # S4 class and method tables, not functions
    doc = (HERE.parent / "docs" / "coming-from-r.md").read_text(encoding="utf-8")
    coverage = doc[doc.index("## Coverage of mirt's exported functions"):]
    named = set(re.findall(r"`([A-Za-z_.][A-Za-z0-9_.]*)`", coverage))
    assert len(exports) > 60 and not sorted(set(exports) - named)

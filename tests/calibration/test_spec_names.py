"""Parameter names in specs and priors are checked against mirt's own parameter table before a fit
(issue 12): one test per class of bad spec, each a one-line ValidationError raised before any fit runs.

The oracle is mirt itself, called directly in tests/r/reference_parameter_names.R: its ``pars =
"values"`` table for every item type irtbridge fits (one and two factors), and what mirt does with the
bad specs (it stops on some; on others it carries on silently, which is why irtbridge checks first).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irtbridge import ModelSpec, Prior, calibrate, parameter_table
from irtbridge._r import session
from irtbridge.calibration.inputs.checks import check_before_fit
from irtbridge.cli import main
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
# reference case -> (irtbridge model, dataset, factors)
CASES = {"rasch": ("rasch", "LSAT7", 1), "1PL": ("1PL", "LSAT7", 1), "2PL": ("2PL", "LSAT7", 1),
         "3PL": ("3PL", "LSAT7", 1), "4PL": ("4PL", "LSAT7", 1), "2PL_2": ("2PL", "LSAT7", 2),
         "3PL_2": ("3PL", "LSAT7", 2), "graded": ("graded", "Science", 1), "gpcm": ("gpcm", "Science", 1),
         "nominal": ("nominal", "Science", 1), "grsm": ("grsm", "Science", 1), "rsm": ("rsm", "Science", 1),
         "pcm": ("pcm", "Science", 1), "graded_2": ("graded", "Science", 2)}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("names") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_parameter_names.R"), str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def data():
    return {"LSAT7": response_dataset("LSAT7"), "Science": response_dataset("Science")}


@pytest.fixture
def fits(monkeypatch):
    """The R helpers called, so a test can show that no fit ran."""
    called = []
    real = session.call

    def spy(fun, /, **kwargs):
        called.append(fun)
        return real(fun, **kwargs)

    monkeypatch.setattr(session, "call", spy)
    return called


@pytest.mark.parametrize("case", list(CASES))
def test_parameter_table_is_mirts_for_every_item_type(ref, data, case):
    model, dataset, dims = CASES[case]
    table = parameter_table(data[dataset], model, dims=dims)
    expected = ref["tables"][case]
    assert table["item"].tolist() == expected["item"]
    assert table["name"].tolist() == expected["name"]
    assert table["est"].astype(bool).tolist() == expected["est"]


@pytest.mark.parametrize("case", list(CASES))
def test_every_name_in_mirts_table_passes_and_no_other(ref, data, case):
    """For the first item: every row of mirt's table takes a START, every estimated one a PRIOR; a prior
    on a row mirt fixes, and names mirt's table lacks, are refused."""
    model, dataset, dims = CASES[case]
    frame = data[dataset]
    names = [str(c) for c in frame.columns]
    values = frame.to_numpy(dtype=float)
    expected = ref["tables"][case]
    first = [(n, e) for i, n, e in zip(expected["item"], expected["name"], expected["est"]) if i == names[0]]
    factors = "\n".join(f"F{k} = 1-{len(names)}" for k in range(1, dims + 1))

    def check(lines):
        check_before_fit(values, names, model, None, {"syntax": factors + "\n" + "\n".join(lines)}, None, [], {})

    check([f"START = (1, {n}, 0.5)" for n, _ in first] + [f"PRIOR = (1, {n}, norm, 0, 1)" for n, e in first if e])
    for n in [n for n, e in first if not e][:3]:
        with pytest.raises(ValidationError, match=f"'{n}' of item '{names[0]}', but the .* does not estimate it"):
            check([f"PRIOR = (1, {n}, norm, 0, 1)"])
    for n in {"a2", "a3", "d", "d4", "g", "ak0", "b1", "c"} - {n for n, _ in first}:
        with pytest.raises(ValidationError, match=f"'{n}' of item '{names[0]}', but the .* has no such parameter"):
            check([f"START = (1, {n}, 0.5)"])


def _one_line(info, *words):
    message = str(info.value)
    assert "\n" not in message
    for w in words:
        assert w in message, (w, message)


# one class of bad spec per test: (calibrate keywords, words the message must contain)
UNKNOWN_ITEM = [
    (dict(spec=ModelSpec({"F1": ["Item.1", "Item.2", "nope"]})), ["nope"]),
    (dict(spec="F1 = 1-5\nSTART = (Item.9, a1, 1.0)"), ["Item.9"]),
    (dict(spec="F1 = 1-5\nFIXED = (7, a1)"), ["'7'", "5 items"]),
    (dict(priors={"a1": {"dist": "lnorm", "p1": 0, "p2": 1, "items": ["Item.6"]}}), ["Item.6"]),
]
PRIOR_ON_MISSING = [
    (dict(priors={"g": ("beta", 5, 17)}), ["'g'", "Item.1", "2PL model", "does not estimate"]),
    (dict(priors={"a2": ("norm", 0, 1)}), ["'a2'", "2PL model (1 factor)", "no such parameter"]),
    (dict(priors={"d3": ("norm", 0, 1)}), ["'d3'", "Item.1", "no such parameter"]),
    (dict(spec=ModelSpec({"F1": "Item.1:Item.5"}, priors=[Prior("u", "norm", 2, 1, ("Item.3",))])),
     ["'u'", "Item.3", "does not estimate"]),
    (dict(spec="F1 = 1-5\nPRIOR = (1-5, g, beta, 5, 17)"), ["'g'", "does not estimate"]),
]
EQUAL_ON_MISSING = [
    (dict(spec=ModelSpec({"F1": "Item.1:Item.5"}, equal=[("a2", ["Item.1", "Item.2"])])),
     ["equality constraint", "'a2'", "no such parameter"]),
    (dict(spec=ModelSpec({"F1": "Item.1:Item.5"}, equal=[("g", ["Item.1", "Item.2"])])),
     ["equality constraint", "'g'", "does not estimate"]),
    (dict(spec="F1 = 1-5\nCONSTRAIN = (1, 2, d2)"), ["'d2'", "no such parameter"]),
]
FIXED_ON_MISSING = [
    (dict(spec=ModelSpec({"F1": "Item.1:Item.5"}, fixed={("Item.4", "d3"): 1.0})), ["'d3'", "Item.4"]),
    (dict(spec="F1 = 1-5\nFIXED = (1, a2)"), ["fixing 'a2'", "Item.1", "no such parameter"]),
    (dict(spec="F1 = 1-5\nSTART = (GROUP, MEAN_2, 0.5)"), ["'MEAN_2'", "latent distribution"]),
]


@pytest.mark.parametrize("kwargs, words", UNKNOWN_ITEM + PRIOR_ON_MISSING + EQUAL_ON_MISSING + FIXED_ON_MISSING,
                         ids=[f"unknown_item{i}" for i in range(len(UNKNOWN_ITEM))]
                         + [f"prior_on_missing{i}" for i in range(len(PRIOR_ON_MISSING))]
                         + [f"equal_on_missing{i}" for i in range(len(EQUAL_ON_MISSING))]
                         + [f"fixed_on_missing{i}" for i in range(len(FIXED_ON_MISSING))])
def test_bad_spec_is_one_line_before_the_fit(data, fits, kwargs, words):
    with pytest.raises(ValidationError) as info:
        calibrate(data["LSAT7"], "2PL", se=False, **kwargs)
    _one_line(info, *words)
    assert "irtb_mirt_fit" not in fits


def test_parameter_table_refuses_the_same_specs(data):
    with pytest.raises(ValidationError, match="fixing 'a2' of item 'Item.1'"):
        parameter_table(data["LSAT7"], "2PL", spec="F1 = 1-5\nFIXED = (1, a2)")


def test_the_check_refuses_what_mirt_refuses_and_what_mirt_would_ignore(ref, data):
    """Where mirt stops on a name, so does the check; where mirt carries on (START/FIXED on a parameter
    the item lacks is ignored; a prior on the 2PL's fixed g moves g off 0), the check stops too."""
    errors = ref["errors"]
    assert "not relevant" in errors["constrain_a2"] and "does not exist" in errors["prior_a2"]
    assert "freely estimated" in errors["constrain_g"]
    assert errors["fixed_a2"] == errors["start_d3"] == "accepted"
    assert min(ref["silent_prior_g"]) > 0.5
    for syntax in ("CONSTRAIN = (1, 2, a2)", "PRIOR = (1-5, a2, norm, 0, 1)", "CONSTRAIN = (1, 2, g)",
                   "FIXED = (1, a2)", "START = (1, d3, 1.0)\nFIXED = (1, d3)", "PRIOR = (1-5, g, beta, 5, 17)"):
        with pytest.raises(ValidationError):
            calibrate(data["LSAT7"], "2PL", spec="F1 = 1-5\n" + syntax, se=False)


def test_names_the_model_has_still_fit_as_mirt_does(data):
    """A name the model fixes can still be given a value (fixing g of a 2PL item is mirt's way to a
    known guessing rate); the estimates keep it."""
    fit = calibrate(data["LSAT7"], "2PL", spec="F1 = 1-5\nSTART = (1, g, 0.2)\nFIXED = (1, g)", se=False)
    np.testing.assert_allclose(fit.items["g"].to_numpy(), [0.2, 0, 0, 0, 0], atol=1e-12)


def test_cli_bad_prior_and_spec_exit_2(data, tmp_path, capsys):
    csv = tmp_path / "lsat.csv"
    data["LSAT7"].to_csv(csv, index=False)
    spec = tmp_path / "model.txt"
    spec.write_text("F1 = 1-5\nCONSTRAIN = (1, 2, 3, a2)\n")
    for argv, words in ((["--prior", "d3=norm,0,1"], ["'d3'", "no such parameter"]),
                        (["--model", "3PL", "--prior", "u=norm,0,1"], ["'u'", "3PL model", "does not estimate"]),
                        (["--spec", str(spec)], ["'a2'", "equality constraint"])):
        assert main(["calibrate", str(csv), "--no-se", *argv]) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("irtbridge calibrate: error:") and "\n" not in err, argv
        assert all(w in err for w in words), (words, err)


def test_syntax_references_read_keyword_lines_as_mirt_does():
    """mirt.model's reading rules: ';' ends a statement, '#' a comment, a line without '=' continues the
    one before; spaces inside brackets are dropped; CONSTRAIN with several names pairs them with the
    items (or, for one item, constrains its parameters to each other); GROUP names the latent rows."""
    from irtbridge.calibration.inputs.spec import syntax_references

    text = ("F1 = 1-3  # all items\nCOV = F1*F1; CONSTRAIN = (1 - 2, a1),\n   (x, z, d, a1)\n"
            "START = (GROUP, MEAN_1, 0.5); FIXED = (GROUP, MEAN_1)\nPRIOR = (y, g, norm, -1.1, 2)")
    bare, refs = syntax_references(text, ["x", "y", "z"])
    assert bare == "F1 = 1-3\nCOV = F1*F1"
    assert [(r.keyword, r.item, r.param) for r in refs] == [
        ("CONSTRAIN", "x", "a1"), ("CONSTRAIN", "y", "a1"), ("CONSTRAIN", "x", "d"), ("CONSTRAIN", "z", "a1"),
        ("START", "GROUP", "MEAN_1"), ("FIXED", "GROUP", "MEAN_1"), ("PRIOR", "y", "g")]
    for bad, words in (("F1 = 1-3\nFIXED = 1, a1", "cannot read FIXED"), ("F1 = 1-3\nPRIOR = (1, a1, norm, 0)", "4 more"),
                       ("F1 = 1-3\nCONSTRAIN = (1, 2, a1, d, g)", "2 items but 3 parameters"),
                       ("F1 = 1-3\nSTART = (0-2, a1, 1)", "3 items")):
        with pytest.raises(ValidationError, match=words):
            syntax_references(bad, ["x", "y", "z"])

"""No silent option (issue 26 item 2): mirt reads unknown arguments into ``...`` and ignores them, so
irtbridge checks every option name of ``calibrate``, ``parameter_table`` and ``calibrate_groups`` against
the arguments the R functions read (their ``formals``, tests/r/reference_options.R) and refuses the rest
in one line, before any fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irtbridge import calibrate, calibrate_groups, parameter_table
from irtbridge._r import session
from irtbridge.calibration.inputs.options import _OWNED, GROUP_OPTIONS, LTM_OPTIONS, MIRT_OPTIONS
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.fixture(scope="module")
def formals(tmp_path_factory):
    out = tmp_path_factory.mktemp("options") / "formals.json"
    run_r(["Rscript", str(HERE / "r" / "reference_options.R"), str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def data():
    return response_dataset("LSAT7")


@pytest.fixture
def no_fit(data, monkeypatch):
    """Fail if any R helper runs: the options are refused before R is asked anything."""
    def refuse(fun, /, **kwargs):
        raise AssertionError(f"R was called ({fun})")

    monkeypatch.setattr(session, "call", refuse)


@pytest.mark.r
def test_option_lists_are_what_r_reads(formals):
    """Every argument R reads is either an option or one irtbridge sets; nothing else is an option."""
    for ours, theirs in ((MIRT_OPTIONS, formals["mirt"]), (GROUP_OPTIONS, formals["multipleGroup"])):
        assert set(ours) <= set(theirs)
        assert set(theirs) - set(ours) <= set(_OWNED)
    ltm = {"rasch": "rasch", "1PL": "rasch", "2PL": "ltm", "3PL": "tpm", "graded": "grm", "gpcm": "gpcm"}
    for model, fun in ltm.items():
        assert set(LTM_OPTIONS[model]) <= set(formals[fun])
        assert set(formals[fun]) - set(LTM_OPTIONS[model]) <= set(_OWNED)


@pytest.mark.parametrize("options, message", [
    ({"foo": 1}, r"calibrate\(engine='mirt'\) takes no option 'foo' \(R would ignore it"),
    ({"tol": 1e-5}, "did you mean 'TOL'"),
    ({"rotate": "varimax"}, r"fit.loadings\(rotate=...\)"),
    ({"SE": True}, "'SE' is set by irtbridge; use se="),
    ({"itemtype": "2PL"}, "use model="),
    ({"SE_type": "Oakes", "SE.type": "Oakes"}, "given twice"),
])
def test_calibrate_refuses_an_option_mirt_would_ignore(data, no_fit, options, message):
    with pytest.raises(ValidationError, match=message) as err:
        calibrate(data, "2PL", **options)
    assert "\n" not in str(err.value)


def test_other_entry_points_refuse_unknown_options(data, no_fit):
    with pytest.raises(ValidationError, match=r"calibrate\(engine='ltm', model='2PL'\) takes no option 'Hessian'"):
        calibrate(data, "2PL", engine="ltm", Hessian=True)
    with pytest.raises(ValidationError, match="'constraint' is set by irtbridge"):
        calibrate(data, "rasch", engine="ltm", constraint=None)
    with pytest.raises(ValidationError, match="engine='native' does not take option"):
        calibrate(data, "2PL", engine="native", foo=1)
    with pytest.raises(ValidationError, match="parameter_table takes no option 'quadpt'"):
        parameter_table(data, "2PL", quadpt=21)
    with pytest.raises(ValidationError, match="calibrate_groups takes no option 'covdata'"):
        calibrate_groups(data, ["a", "b"] * 500, "2PL", covdata=None)
    with pytest.raises(ValidationError, match="calibrate_groups takes no option 'TOLL'.*did you mean 'TOL'"):
        calibrate_groups(data, ["a", "b"] * 500, "2PL", TOLL=1e-4)


@pytest.mark.r
def test_dotted_names_reach_r(data):
    from rpy2 import robjects

    fit = calibrate(data, "2PL", SE_type="Oakes", quadpts=31)
    assert fit.options["SE.type"] == "Oakes" and fit.options["quadpts"] == 31
    options = robjects.r("function(m) c(m@Options$SE.type, m@Options$quadpts)")(fit.r_model.robj)
    assert list(options) == ["Oakes", "31"]

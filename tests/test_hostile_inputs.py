"""Hostile inputs (issues 34 and 40): each bad input is a one-line error before any work.

Two tables, one row per case; add a row to add a case:

* ``CLI_CASES``: argv (``{csv}`` is a small valid 0/1 response file, ``{missing}`` a path that does not
  exist) -> a fragment the single stderr line must hold. Each must exit 2 with exactly one line on stderr
  and no traceback. A case that would do work first (read data, start R, calibrate) fails: the entry
  points that do the work are patched to raise while the case runs.
* ``API_CASES``: a call -> the argument name the :class:`ValidationError` must name (one line).
* ``ACCEPTED_CASES``: a call that must work (returns True), e.g. a JSON file with a byte-order mark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError

# -- the CLI ------------------------------------------------------------------------------------------
LM_EVAL = Path(__file__).resolve().parent / "leaderboard" / "data" / "lm_eval"  # harness output (a folder)
CLI_CASES: dict[str, tuple[list[str], str]] = {
    "abilities --method nope": (["abilities", "{csv}", "--method", "nope"], "--method"),
    "abilities --method ML with ltm": (["abilities", "{csv}", "--engine", "ltm", "--method", "ML"], "--method 'ML'"),
    "abilities --method WLE with native": (["abilities", "{csv}", "--engine", "native", "--method", "wle"], "--method 'WLE'"),
    "abilities --engine nope": (["abilities", "{csv}", "--engine", "nope"], "--engine"),
    "calibrate --engine nope": (["calibrate", "{csv}", "--engine", "nope"], "--engine"),
    "calibrate --method nope": (["calibrate", "{csv}", "--method", "nope"], "--method"),
    "fit --engine ltm": (["fit", "{csv}", "--engine", "ltm"], "--engine"),
    "dif --scheme nope": (["dif", "{csv}", "--groups", "g", "--scheme", "nope"], "--scheme"),
    "dif --p-adjust nope": (["dif", "{csv}", "--groups", "g", "--p-adjust", "nope"], "--p-adjust"),
    "anchors --method nope": (["anchors", "{csv}", "--method", "nope"], "--method"),
    "ei --ci-method nope": (["ei", "--tp", "1", "--fp", "1", "--fn", "1", "--tn", "1", "--ci-method", "nope"],
                            "--ci-method"),
    "evaluate --engine nope": (["evaluate", "--engine", "nope"], "engine='nope'"),
    "benchmark --engine nope": (["benchmark", "--engine", "nope", "--out", "{missing}"], "engine='nope'"),
    "benchmark --score nope": (["benchmark", "--score", "nope", "--out", "{missing}"], "--score"),
    "benchmark --ability nope": (["benchmark", "--ability", "nope", "--out", "{missing}"], "--ability"),
    "unknown option": (["calibrate", "{csv}", "--bogus"], "--bogus"),
    # issue 40 item 3: one seed check for every --seed, the late and the cryptic cases, before any work
    "tiny --seed -1": (["tiny", "{csv}", "5", "--out", "{missing}", "--seed", "-1"],
                       "argument --seed: must be a whole number from 0 to 2147483647, got -1"),
    "tiny --seed 1.5": (["tiny", "{csv}", "5", "--out", "{missing}", "--seed", "1.5"], "--seed: must be a whole number"),
    "mlc --seed -3 (the same words)": (["mlc", "{csv}", "--target", "g", "--out", "{missing}", "--seed", "-3"],
                                       "argument --seed: must be a whole number from 0 to 2147483647, got -3"),
    "ei --seed abc (the same words)": (["ei", "--tp", "1", "--fp", "1", "--fn", "1", "--tn", "1", "--seed", "abc"],
                                       "argument --seed: must be a whole number from 0 to 2147483647, got 'abc'"),
    "benchmark --seed 2**40": (["benchmark", "--seed", str(2**40), "--out", "{missing}"], "--seed"),
    "dif --items typo (before the group fit)": (["dif", "{csv}", "--groups", "g", "--items", "a,zz"],
                                                "--items: 'zz' is not an item"),
    "portfolio --bins 1": (["portfolio", "{csv}", "--model", "polytomous", "--bins", "1", "--out", "{missing}"],
                           "argument --bins: must be a whole number of at least 2"),
    # the fresh review of tools/hostile-review.py: accepted silently before
    "hardness --threshold without --method sf (was ignored)": (
        ["hardness", "{csv}", "--label", "a", "--score", "b", "--threshold", "0.3"],
        "--threshold is the fixed threshold of --method sf"),
    "calibrate --prior with a NaN parameter (mirt fitted it)": (
        ["calibrate", "{csv}", "--prior", "a1=lnorm,nan,0.5"], "its parameters must be finite numbers, got 'nan'"),
    "leaderboard --threshold on a CSV (was ignored)": (
        ["leaderboard", "{csv}", "--threshold", "0.5", "--out", "{missing}"], "--threshold applies to harness output"),
    # the last four of the fresh review (issue 40)
    "hardness --label and --score the same column (was accepted)": (
        ["hardness", "{csv}", "--label", "a", "--score", "b", "--score", "a"], "--score 'a' is also the --label column"),
    "hardness --id the --label column": (
        ["hardness", "{csv}", "--label", "a", "--score", "b", "--id", "a"], "--id 'a' is also the --label column"),
    "leaderboard --threshold inf on harness output (read first)": (
        ["leaderboard", str(LM_EVAL), "--threshold", "inf", "--out", "{missing}"],
        "argument --threshold: must be a finite number, got inf"),
    "tiny --threshold nan (the same words)": (
        ["tiny", str(LM_EVAL), "--from", "lm-eval", "--k", "5", "--threshold", "nan", "--out", "{missing}"],
        "argument --threshold: must be a finite number, got nan"),
    "benchmark --datasets PATH.csv:missing (after the progress bar)": (
        ["benchmark", "--datasets", "{csv}:zz", "--out", "{missing}"], "has no column 'zz' to predict"),
}


@pytest.fixture
def no_work(monkeypatch):
    """Reading responses, starting R or calibrating raises: a case that gets there did work first."""
    def refuse(*args: Any, **kwargs: Any):
        raise AssertionError("work started before the input was checked")

    import importlib
    import pkgutil

    import irtbridge
    import irtbridge._r.session as session
    import irtbridge.calibration as calibration
    import irtbridge.cli._common as common

    # every module imported first: one first imported under the patch (`from ... import calibrate`) would keep
    # `refuse` for good and fail later tests
    for info in pkgutil.walk_packages(irtbridge.__path__, "irtbridge."):
        if not info.name.endswith("__main__"):  # runs the CLI
            importlib.import_module(info.name)

    monkeypatch.setattr(session, "call", refuse)
    monkeypatch.setattr(calibration, "calibrate", refuse)
    monkeypatch.setattr(common, "read_responses", refuse)
    monkeypatch.setattr(common, "read_csv", refuse)


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_cli_refuses_in_one_line_before_work(name, tmp_path, capsys, no_work):
    argv, fragment = CLI_CASES[name]
    csv = tmp_path / "responses.csv"
    pd.DataFrame(np.random.default_rng(0).integers(0, 2, (20, 4)), columns=list("abcd")).assign(g=["x", "y"] * 10) \
        .to_csv(csv, index=False)
    argv = [a.format(csv=csv, missing=tmp_path / "absent") for a in argv]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and fragment in lines[0], err


# -- the API ------------------------------------------------------------------------------------------
def _evaluate_frame() -> None:
    from irtbridge.pipeline import evaluate

    evaluate([pd.DataFrame({"x": range(2000), "y": [0, 1] * 1000})])


def _fit():
    from irtbridge.calibration.results.result import Calibration

    items = pd.DataFrame({"a": [1.0, 1.2], "b": [0.0, 0.5], "g": 0.0, "u": 1.0}, index=["i1", "i2"])
    return Calibration(items=items, standard_errors=None, loglik=-1.0, aic=1.0, bic=1.0, n_parameters=4,
                       converged=True, iterations=1, model="2PL", engine="mirt", n_respondents=10, r_model=object())


def _item_fit(**kwargs: Any) -> Callable[[], Any]:
    return lambda: _fit().item_fit(**kwargs)


def _classes(**kwargs: Any) -> Callable[[], Any]:
    from irtbridge.calibration.fit.classes import calibrate_classes

    data = pd.DataFrame(np.random.default_rng(0).integers(0, 2, (30, 4)), columns=list("abcd"))
    return lambda: calibrate_classes(data, 2, **kwargs)


def _abilities_mins() -> None:
    from irtbridge.irt import estimate_abilities

    estimate_abilities(pd.DataFrame({"i1": [1, 0]}), _fit(), mins="yes")


def _files(tmp: Any, **contents: bytes) -> Any:
    """Files named by the keywords (``.`` for ``_``: ``bank_json`` is ``bank.json``) holding those bytes."""
    import pathlib

    folder = pathlib.Path(tmp)
    for name, data in contents.items():
        (folder / name.replace("_", ".")).write_bytes(data)
    return folder


def _seed_cases() -> dict[str, tuple[Callable[[], Any], str]]:
    from irtbridge.decodirt.modes import simulate_classifier_responses
    from irtbridge.efficiency import efficiency_frame
    from irtbridge.hardness import default_estimators
    from irtbridge.pipeline import Settings

    return {
        "simulate_classifier_responses: seed=-1": (lambda: simulate_classifier_responses(5, 10, seed=-1), "seed must"),
        "simulate_classifier_responses: seed=1.5": (lambda: simulate_classifier_responses(5, 10, seed=1.5), "seed must"),
        "efficiency_frame: random_state='3' (was silently ignored)": (
            lambda: efficiency_frame([5], [1], [2], [9], random_state="3"), "random_state must"),
        "Settings: seed=True (was seed 1)": (lambda: Settings(seed=True), "seed must"),
        "default_estimators: random_state=True (was 1)": (lambda: default_estimators(random_state=True), "random_state"),
    }


def _labels_not_zero_one() -> None:
    from irtbridge.hardness import instance_hardness

    rng = np.random.default_rng(0)
    instance_hardness(rng.random(20), rng.random(20))


def _estimate_performance(**kwargs: Any) -> Callable[[], Any]:
    def call() -> None:
        from irtbridge.leaderboard import estimate_performance

        bank = pd.DataFrame({"a": [1.0, 1.2, 0.8], "b": [0.0, 0.5, -0.5]}, index=["i1", "i2", "i3"])
        answers = pd.DataFrame([[1.0, 0.0]], columns=["i1", "i2"])
        estimate_performance(answers, kwargs.pop("calibration", bank), ["i1", "i2"], **kwargs)
    return call


def _not_utf8_csv() -> None:
    import tempfile

    from irtbridge._validation import read_csv

    with tempfile.TemporaryDirectory() as tmp:
        read_csv(_files(tmp, r_csv=b"a,b\n1,0\n0,caf\xe9\n1,1\n") / "r.csv", "responses")


def _not_utf8_calibration_json() -> None:
    import tempfile

    from irtbridge.cli._common import read_calibration

    with tempfile.TemporaryDirectory() as tmp:
        read_calibration(str(_files(tmp, c_json=b'{"model": "2PL",\n "items": [],\n "x": "\xff"}') / "c.json"))


def _manifest_typo(options: dict, kind: str = "hardness", target: Any = None) -> Callable[[], Any]:
    def call() -> None:
        import json
        import tempfile

        from irtbridge.batch import load_manifest

        unit = {"id": "u", "kind": kind, "data": "in.csv", "options": options, **({"target": target} if target else {})}
        with tempfile.TemporaryDirectory() as tmp:
            folder = _files(tmp, in_csv=b"y,m1,m2,who\n0,0.2,0.4,a\n1,0.9,0.7,b\n",
                            m_json=json.dumps({"units": [unit]}).encode())
            load_manifest(folder / "m.json")
    return call


API_CASES: dict[str, tuple[Callable[[], Any], str]] = {
    **_seed_cases(),
    "hardness: labels that are not 0/1 are shown, not 'a list of length 5'": (
        _labels_not_zero_one, "y must hold only the labels 0 and 1, found 20 other value(s): 0.0027385, 0.0165276"),
    "estimate_performance: validation='x' (was AttributeError)": (_estimate_performance(validation="x"), "validation"),
    "read_csv: a byte that is not UTF-8 names its line": (_not_utf8_csv, "r.csv' is not UTF-8 text: line 3, column 6"),
    "calibration file: a byte that is not UTF-8 names its line": (
        _not_utf8_calibration_json, "is not UTF-8 text: line 3, column 8 holds the byte 0xff"),
    "batch: a unit's mistyped column fails the manifest": (
        _manifest_typo({"label": "y", "scores": ["m1", "m3"]}), "option 'scores': input file"),
    "batch: a mistyped id_column fails the manifest": (
        _manifest_typo({"id_column": "whoo"}, kind="calibrate"), "option 'id_column': input file"),
    "batch: a mistyped target fails the manifest": (
        _manifest_typo({"scores": "m1"}, target="yy"), "option 'target': input file"),
    "evaluate: a DataFrame without a target": (_evaluate_frame, "datasets"),
    "item_fit: na_rm not a flag": (_item_fit(na_rm="yes"), "na_rm"),
    "item_fit: negative impute": (_item_fit(impute=-1), "impute"),
    "item_fit: na_rm and impute": (_item_fit(na_rm=True, impute=3), "na_rm"),
    "estimate_abilities: mins not a flag or mapping": (_abilities_mins, "mins"),
    "calibrate_classes: se not a flag": (_classes(se="yes"), "se must be"),
    "calibrate_classes: SE_type without se": (_classes(SE_type="Oakes"), "SE_type"),
}


@pytest.mark.parametrize("name", list(API_CASES))
def test_api_refuses_with_a_validation_error_naming_the_argument(name):
    call, argument = API_CASES[name]
    with pytest.raises(ValidationError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and argument in message, message
    assert len(message) < 400, message  # never a whole object pasted in


# -- what must work (issue 40 item 3: a JSON file with a byte-order mark is read as a CSV file with one is) ---
def _bom_manifest() -> Any:
    import json
    import tempfile

    from irtbridge.batch import load_manifest

    with tempfile.TemporaryDirectory() as tmp:
        unit = {"id": "u", "kind": "ei", "data": "t.csv"}
        folder = _files(tmp, t_csv=b"tp,fp,fn,tn\n5,1,2,9\n",
                        m_json=b"\xef\xbb\xbf" + json.dumps({"units": [unit]}).encode())
        return load_manifest(folder / "m.json").units[0].id == "u"


def _bom_calibration(reader: str) -> Callable[[], Any]:
    def call() -> Any:
        import tempfile

        from irtbridge.calibration import Calibration
        from irtbridge.cli._common import read_calibration

        text = _fit().to_json()
        if reader == "from_json":  # text read from a file without utf-8-sig keeps the mark
            return Calibration.from_json("\ufeff" + text).items.equals(_fit().items)
        with tempfile.TemporaryDirectory() as tmp:
            path = _files(tmp, c_json=b"\xef\xbb\xbf" + text.encode()) / "c.json"
            return read_calibration(str(path)).items.equals(_fit().items)
    return call


ACCEPTED_CASES: dict[str, Callable[[], Any]] = {
    "batch manifest JSON with a BOM": _bom_manifest,
    "calibration JSON file with a BOM (irtbridge abilities/estimate --calibration)": _bom_calibration("file"),
    "Calibration.from_json of text with a BOM": _bom_calibration("from_json"),
}


@pytest.mark.parametrize("name", list(ACCEPTED_CASES))
def test_accepted_inputs_work(name):
    assert ACCEPTED_CASES[name]() is True

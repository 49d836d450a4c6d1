"""Manifests are checked whole before any unit runs (issue 34, item 4).

Kinds, option names and option types (a string where a boolean belongs is an error, not true), what the
engine accepts, no option name with two meanings; every problem named with its unit and option, all of
them in one line; nothing runs and nothing is written when there is any.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from irtbridge.batch import KIND_OPTIONS, KINDS, load_manifest, run_batch
from irtbridge.batch.options import calibrate_arguments, check_unit
from irtbridge.exceptions import ValidationError


def _manifest(folder: Path, units: list[dict], **top) -> Path:
    pd.DataFrame({"q1": [0, 1, 1, 0], "q2": [1, 1, 0, 0]}).to_csv(folder / "resp.csv", index=False)
    pd.DataFrame({"name": ["a"], "tp": [5], "fp": [1], "fn": [2], "tn": [9]}).to_csv(folder / "tables.csv", index=False)
    path = folder / "m.json"
    path.write_text(json.dumps({"output": "out", **top, "units": units}))
    return path


def _refused(folder: Path, units: list[dict], **top) -> str:
    path = _manifest(folder, units, **top)
    with pytest.raises(ValidationError) as info:
        load_manifest(path)
    message = str(info.value)
    assert "\n" not in message  # one line
    return message


def test_every_kind_has_an_option_table():
    assert set(KINDS) == set(KIND_OPTIONS)
    assert {"calibrate", "abilities", "fit"} <= set(KINDS)


def test_string_for_a_boolean_is_an_error(tmp_path):
    # today "false" (a non-empty string) would be read as true
    msg = _refused(tmp_path, [{"id": "lsat", "kind": "calibrate", "data": "resp.csv", "options": {"se": "false"}}])
    assert msg == ("manifest unit 'lsat', option 'se': se must be true or false (a JSON boolean), got 'false' "
                   "(write it without quotes)")


@pytest.mark.parametrize("kind, options, expected", [
    ("calibrate", {"drop_constant": 1}, r"unit 'u', option 'drop_constant': .*true or false"),
    ("calibrate", {"dims": "2"}, r"unit 'u', option 'dims': dims must be a whole number \(not a string\)"),
    ("calibrate", {"dims": 0}, r"unit 'u', option 'dims': dims must be >= 1"),
    ("calibrate", {"engine": "stan"}, r"unit 'u', option 'engine': engine='stan' is not supported"),
    ("calibrate", {"model": 2}, r"unit 'u', option 'model': model must be a model name"),
    ("calibrate", {"model": "7PL"}, r"unit 'u': model='7PL' is not supported"),
    ("calibrate", {"model": "gpcm", "engine": "native"}, r"unit 'u': option 'model': engine 'native' does not fit model 'gpcm'"),
    ("calibrate", {"tol": 1e-3}, r"unit 'u': calibrate\(engine='mirt'\) takes no option 'tol'.*did you mean 'TOL'"),
    ("calibrate", {"engine": "ltm", "priors": {"a1": ["lnorm", 0, 0.5]}}, r"unit 'u': priors: engine='ltm' takes no priors"),
    ("calibrate", {"engine": "native", "dims": 2}, r"unit 'u': dims, spec, parameters and per-item models need engine='mirt'"),
    ("calibrate", {"engine": "ltm", "model": ["2PL", "3PL"]}, r"unit 'u': dims, spec, parameters and per-item models need"),
    ("calibrate", {"engine": "native", "quadpt": 21}, r"unit 'u': calibrate\(engine='native'\) takes no option 'quadpt'.*did you mean 'quadpts'"),
    ("calibrate", {"quadpts": "21"}, r"unit 'u', option 'quadpts': quadpts must be a whole number \(not a string\)"),
    ("calibrate", {"TOL": "1e-4"}, r"unit 'u', option 'TOL': TOL must be a number \(not a string\)"),
    ("calibrate", {"TOL": 0}, r"unit 'u': calibrate\(engine='mirt'\): TOL=0 is outside its domain"),
    ("calibrate", {"TOL": float("nan"), "engine": "native"}, r"unit 'u': .*TOL=nan is outside its domain.*engine='mirt'"),
    ("calibrate", {"technical": 500}, r"unit 'u', option 'technical': technical must be a JSON object"),
    ("calibrate", {"SE_type": "Oaks"}, r"unit 'u': SE_type='Oaks' is not a mirt SE.type"),
    ("calibrate", {"estimation_method": "MHRM", "engine": "native"}, r"unit 'u': engine='native' does not take option method='MHRM'"),
    ("calibrate", {"estimation_method": "EAP"}, r"unit 'u': method='EAP' is not supported"),
    ("calibrate", {"scoring_method": "WLE", "engine": "ltm"}, r"unit 'u': option 'scoring_method'='WLE' is not supported; use one of 'EAP', 'MAP'"),
    ("abilities", {"scoring_method": "median"}, r"unit 'u': option 'scoring_method'='median' is not supported"),
    ("abilities", {"se": True}, r"unit 'u': calibrate\(engine='mirt'\) takes no option 'se'.*set by irtbridge|takes no option 'se'"),
    ("fit", {"engine": "ltm"}, r"unit 'u': option 'engine': a fit unit reports mirt's diagnostics"),
    ("fit", {"scoring_method": "EAP"}, r"unit 'u': calibrate\(engine='mirt'\) takes no option 'scoring_method'"),
    ("ei", {"level": "0.9"}, r"unit 'u', option 'level': level must be a number \(not a string\)"),
    ("ei", {"level": 95}, r"unit 'u', option 'level': level must be < 1.0"),
    ("ei", {"ci_method": "wald"}, r"unit 'u', option 'ci_method': ci_method='wald' is not supported"),
    ("ei", {"nmae": "name"}, r"unit 'u': ei units take no option 'nmae'; their options: name, level"),
    ("rate", {"tau": -1}, r"unit 'u', option 'tau': tau must be > 0.0"),
    ("hardness", {"label": "y"}, r"unit 'u': a hardness unit needs options label .* and scores"),
    ("hardness", {"label": "y", "scores": [1, 2]}, r"unit 'u', option 'scores': scores must be a column name or a non-empty list"),
    ("hardness", {"label": "y", "scores": "s", "threshold": 2}, r"unit 'u', option 'threshold': threshold must be <= 1.0"),
    ("dataset", {"quick": "false"}, r"unit 'u', option 'quick': quick must be true or false"),
    ("dataset", {"max_items": "40"}, r"unit 'u', option 'max_items': max_items must be a number \(not a string\)"),
    ("dataset", {"pool": "huge"}, r"unit 'u': pool='huge' is not supported"),
    ("dataset", {"max_itmes": 40}, r"unit 'u': dataset units take no option 'max_itmes'"),
])
def test_option_names_types_and_values(tmp_path, kind, options, expected):
    msg = _refused(tmp_path, [{"id": "u", "kind": kind, "data": "resp.csv", "options": options}])
    assert re.search(expected, msg), msg


def test_method_has_no_two_meanings(tmp_path):
    """`method` was the scoring method in a calibrate unit and is mirt's estimation method in calibrate()."""
    msg = _refused(tmp_path, [{"id": "lsat", "kind": "calibrate", "data": "resp.csv", "options": {"method": "MAP"}}])
    assert msg.startswith("manifest unit 'lsat': option 'method' has two meanings")
    assert "estimation_method" in msg and "scoring_method" in msg
    msg = _refused(tmp_path, [{"id": "f", "kind": "fit", "data": "resp.csv", "options": {"method": "EM"}}])
    assert "write estimation_method" in msg and "a fit unit does not score" in msg
    # the two spellings are accepted and reach their own places
    assert check_unit("u", "calibrate", {"estimation_method": "mhrm", "scoring_method": "wle"}) == []


def test_tol_nan_evaluates_as_in_mirt():
    """JSON's NaN is mirt's TOL = NaN (issue 40 item 4): the mirt engine takes it, as calibrate() does."""
    assert check_unit("u", "calibrate", json.loads('{"TOL": NaN}')) == []
    args = calibrate_arguments({"estimation_method": "MHRM", "scoring_method": "WLE", "id_column": "who"})
    assert args == {"model": "2PL", "engine": "mirt", "drop_constant": False, "method": "MHRM"}


def test_every_problem_named_in_one_line(tmp_path):
    units = [
        {"id": "a", "kind": "calibrate", "data": "resp.csv", "options": {"se": "false"}},
        {"id": "b", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},  # fine
        {"id": "c", "kind": "rate", "data": "resp.csv", "options": {"tua": 0.5}},
        {"id": "d", "kind": "nope", "data": "resp.csv"},
        {"id": "e", "kind": "ei", "data": "gone.csv"},
        {"id": "a", "kind": "ei", "data": "tables.csv"},
        {"id": "f", "kind": "ei", "data": "tables.csv", "option": {"name": "name"}},
    ]
    msg = _refused(tmp_path, units, retries="2")
    assert msg.startswith(f"manifest {str(tmp_path / 'm.json')!r} has 7 problems: ")
    for part in ("manifest retries must be a whole number >= 0, got '2'",
                 "manifest unit 'a', option 'se'", "manifest unit 'c': rate units take no option 'tua'",
                 "manifest unit 'd': kind 'nope' is not supported", "manifest unit 'e': input file",
                 "manifest unit id 'a' is used twice", "manifest unit 'f' has unknown key(s) 'option'"):
        assert part in msg, part


def test_unknown_top_level_key(tmp_path):
    msg = _refused(tmp_path, [{"id": "b", "kind": "ei", "data": "tables.csv"}], retry=2)
    assert "has unknown key(s) 'retry'; it takes output, retries, units" in msg


def test_target_only_where_it_means_something(tmp_path):
    msg = _refused(tmp_path, [{"id": "b", "kind": "ei", "data": "tables.csv", "target": "y"}])
    assert msg == "manifest unit 'b': target is for dataset and hardness units, not 'ei'"


def test_csv_manifest_options_checked_too(tmp_path):
    _manifest(tmp_path, [])
    pd.DataFrame({"id": ["a", "b"], "kind": ["calibrate", "ei"], "data": ["resp.csv", "tables.csv"],
                  "options": ['{"se": "no"}', "{not json"], "extra": [1, 2]}).to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(ValidationError) as info:
        load_manifest(tmp_path / "m.csv")
    msg = str(info.value)
    assert "has 3 problems" in msg and "unknown column(s) 'extra'" in msg
    assert "manifest unit 'a', option 'se'" in msg and "manifest unit 'b': options is not a JSON object" in msg


def test_nothing_runs_when_one_unit_is_wrong(tmp_path):
    """The good unit before the bad one is not run: the output folder is not even created."""
    path = _manifest(tmp_path, [
        {"id": "good", "kind": "ei", "data": "tables.csv", "options": {"name": "name"}},
        {"id": "bad", "kind": "calibrate", "data": "resp.csv", "options": {"se": "true"}},
    ])
    with pytest.raises(ValidationError, match="unit 'bad', option 'se'"):
        run_batch(path, scheduler="serial")
    assert not (tmp_path / "out").exists()


def test_cli_prints_one_line_and_exits_2(tmp_path, capsys):
    from irtbridge.cli import main

    path = _manifest(tmp_path, [{"id": "lsat", "kind": "calibrate", "data": "resp.csv",
                                 "options": {"se": "false", "method": "EAP"}}])
    assert main(["batch", str(path), "--scheduler", "serial"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("irtbridge batch: error: manifest ")
    assert "unit 'lsat', option 'se'" in err and "unit 'lsat': option 'method' has two meanings" in err
    assert not (tmp_path / "out").exists()


def test_valid_irt_options_pass(tmp_path):
    path = _manifest(tmp_path, [
        {"id": "c", "kind": "calibrate", "data": "resp.csv",
         "options": {"model": "3PL", "se": False, "quadpts": 41, "TOL": 1e-5, "technical": {"NCYCLES": 800},
                     "scoring_method": "wle", "estimation_method": "EM", "seed": 3, "drop_constant": True}},
        {"id": "a", "kind": "abilities", "data": "resp.csv", "options": {"engine": "native", "scoring_method": "ML"}},
        {"id": "f", "kind": "fit", "data": "resp.csv", "options": {"model": ["2PL", "3PL"]}},
        {"id": "l", "kind": "abilities", "data": "resp.csv", "options": {"engine": "ltm", "model": "rasch"}},
    ])
    m = load_manifest(path)
    assert [u.kind for u in m.units] == ["calibrate", "abilities", "fit", "abilities"]
    assert m.units[0].options["se"] is False  # kept as given: the fingerprint of earlier results still holds


def test_checking_irt_units_does_not_load_r(fresh_python):
    """The driver checks what the engines accept without R: rpy2 is not even imported."""
    root = Path(__file__).resolve().parents[2]
    code = ("import sys\nfrom irtbridge.batch import load_manifest\n"
            f"m = load_manifest({str(root / 'docs' / 'examples' / 'batch' / 'manifest.json')!r})\n"
            "print(len(m.units), 'rpy2' in sys.modules, any(k.startswith('irtbridge._r') for k in sys.modules))")
    out = fresh_python.run(code, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["5", "False", "False"]

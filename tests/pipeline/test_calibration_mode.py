"""The calibration mode: one object resolved at the entry, invalid combinations refused before any work,
and every rendering (CLI help and text, summary.json, the report's subtitle) saying what actually ran."""

from __future__ import annotations

import html
import json
import pickle
import re

import pytest

import irtbridge._parallel
from irtbridge.decodirt import CalibrationMode, STABLE_PRIORS
from irtbridge.pipeline import run_benchmark
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.pipeline import Settings

from tests._synthetic import synthetic_evaluation

INVALID = [
    # (calibration, engine, fallback, engine_options, what the one-line message names)
    ("stable", "ltm", None, None, "engine='ltm' cannot fit the stable mode's 3PL with priors"),
    ("stable", None, True, None, "the stable mode has no fallback"),
    ("paper", "native", None, None, "engine='native' is not a paper-mode engine"),
    ("stable", "stan", None, None, "engine='stan' is not supported"),
    ("bayes", None, None, None, "calibration='bayes' is not supported"),
    ("paper", None, None, {"stan": {}}, "engine_options: 'stan' is not an engine of this run"),
    ("paper", "ltm", False, {"mirt": {}}, "engine_options: 'mirt' is not an engine of this run"),
    ("stable", None, None, {"mirt": {"priors": {}}}, "priors are the mode's"),
    ("paper", None, None, {"ltm": 3}, r"engine_options\['ltm'\] must be a mapping"),
]


@pytest.mark.parametrize("calibration, engine, fallback, options, message", INVALID)
def test_invalid_combinations_are_one_line_errors(calibration, engine, fallback, options, message):
    with pytest.raises(ValidationError, match=message) as info:
        CalibrationMode.resolve(calibration, engine, fallback, options)
    assert "\n" not in str(info.value)


def test_the_modes_resolve_to_what_runs():
    stable = CalibrationMode.resolve()
    assert (stable.name, stable.engine, stable.fallback) == ("stable", "mirt", ())
    assert stable.priors == STABLE_PRIORS and stable.options_for("mirt") == {"priors": dict(STABLE_PRIORS)}
    paper = CalibrationMode.resolve("paper")
    assert (paper.engine, paper.fallback, paper.priors) == ("ltm", ("mirt",), {})
    assert CalibrationMode.resolve("paper", "mirt").fallback == ("ltm",)
    assert CalibrationMode.resolve("paper", fallback=False).engines == ("ltm",)
    options = CalibrationMode.resolve("stable", engine_options={"mirt": {"technical": {"NCYCLES": 9}}})
    assert options.options_for("mirt") == {"priors": dict(STABLE_PRIORS), "technical": {"NCYCLES": 9}}
    assert CalibrationMode.resolve(stable) is stable
    with pytest.raises(ValidationError, match="not both"):
        CalibrationMode.resolve(stable, engine="mirt")


def test_settings_hold_the_resolved_mode_and_survive_pickling():
    s = Settings()
    assert (s.engine, s.fallback, s.mode.name) == ("mirt", False, "stable")
    assert pickle.loads(pickle.dumps(s)) == s  # spawned workers receive it pickled
    d = s.to_dict()
    assert d["engine"] == "mirt" and d["fallback"] is False
    assert d["mode"]["description"].startswith("mirt's 3PL with weakly informative priors")
    assert d["mode"]["fallback_engines"] == [] and d["mode"]["priors"]["g"] == ["expbeta", 2.0, 17.0]
    paper = Settings(calibration="paper")
    assert (paper.engine, paper.fallback, paper.mode.fallback) == ("ltm", True, ("mirt",))
    with pytest.raises(ValidationError, match="cannot fit the stable mode"):
        Settings(engine="ltm")


@pytest.fixture
def no_workers(monkeypatch):
    """Fail the test if any unit of work is started (the check must come first)."""
    started = []

    def refuse(*args, **kwargs):
        started.append(args)
        raise AssertionError("a unit of work was started before the options were checked")

    import irtbridge.pipeline._units

    monkeypatch.setattr(irtbridge._parallel, "run_units", refuse)
    monkeypatch.setattr(irtbridge.pipeline._units, "run_units", refuse)  # the one runner of dataset units
    return started


@pytest.mark.parametrize("argv", [
    ["evaluate", "--engine", "ltm", "--datasets", "iris", "--quick"],
    ["evaluate", "--calibration", "paper", "--engine", "native", "--quick"],
    ["benchmark", "--engine", "ltm", "--datasets", "iris", "--quick"],
    ["benchmark", "--calibration", "paper", "--engine", "native", "--quick"],
])
def test_cli_refuses_invalid_modes_before_any_work(argv, tmp_path, capsys, no_workers):
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error:" in err and "engine=" in err
    assert not no_workers and not (tmp_path / "out").exists()


def test_api_refuses_invalid_modes_before_any_work(no_workers):
    with pytest.raises(ValidationError, match="cannot fit the stable mode"):
        run_benchmark(["iris"], Settings(engine="ltm"))
    with pytest.raises(ValidationError, match="no fallback"):
        run_benchmark(["iris"], Settings(fallback=True))
    with pytest.warns(DeprecationWarning), pytest.raises(ValidationError, match="cannot fit the stable mode"):
        run_benchmark(["iris"], engine="ltm")  # irtbridge 0.1's keyword: the same check
    assert not no_workers


def test_help_describes_the_modes(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "mirt's 3PL with weakly informative priors (a1 ~ N(1, 0.5), d ~ N(0, 3), g ~ Beta(2, 17)), no fallback" in text
    assert "ltm's 3PL (maximum likelihood, as decodIRT), mirt's 3PL as fallback" in text
    assert "ltm, mirt as fallback" not in text


@pytest.mark.slow
def test_report_and_summary_name_the_mode_that_ran(tmp_path):
    from irtbridge.report import write_report

    ev = synthetic_evaluation()
    files = write_report(ev, tmp_path / "out")
    page = re.sub(r"\s+", " ", html.unescape(files.index.read_text(encoding="utf-8")))
    assert "item calibration: mirt's 3PL with weakly informative priors" in page and "(stable mode)" in page
    assert "as fallback" not in page and "None" not in re.sub(r"<[^>]+>", "", page.split("</header>")[0])
    summary = json.loads(files.summary.read_text())
    assert summary["settings"]["engine"] == "mirt" and summary["settings"]["fallback"] is False
    assert summary["settings"]["mode"]["description"] == ev.settings.mode.describe()


def test_cli_text_summary_json_and_page_render_one_summary(tmp_path, monkeypatch, capsys):
    """The headline is computed once (Evaluation.summary()); the CLI text, summary.json and the page's
    Summary section only render it: a marker put into that one object shows up in all three."""
    import irtbridge.pipeline
    from irtbridge._summary import Line, Strong, Summary

    ev = synthetic_evaluation()
    real = ev.summary()
    marked = Summary(real.title, real.lines + (Line.of("marker", "Marker line: ", Strong("zq-42")),), data=real.data)
    monkeypatch.setattr(type(ev), "summary", lambda self: marked)
    monkeypatch.setattr(irtbridge.pipeline, "evaluate", lambda *a, **k: ev)
    # the synthetic run has one failed dataset ("broken"): exit 1, the report still written
    assert main(["evaluate", "--quick", "--datasets", "iris", "--out", str(tmp_path / "a")]) == 1
    text = capsys.readouterr().out
    assert "Marker line: zq-42" in text and real.line("best").text in text
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["headline"]["marker"] == "Marker line: zq-42"
    assert summary["headline"] == {x.key: x.text for x in marked.lines}
    page = (tmp_path / "a" / "index.html").read_text(encoding="utf-8")
    assert "<li>Marker line: <b>zq-42</b></li>" in page
    assert ev._repr_html_() == marked.as_html()


def test_one_dataset_says_no_nan():
    """With one dataset the rank correlation is undefined: the headline leaves it out instead of 'nan'."""
    from dataclasses import replace

    ev = synthetic_evaluation()
    one = replace(ev, diagnostics=ev.diagnostics.iloc[:1])
    text = one.summary().as_text()
    assert "nan" not in text.lower() and "rank correlation" not in text
    assert one.summary().to_dict()["difficulty_agreement"] is None


@pytest.mark.r
def test_the_mode_is_resolved_once_where_settings_are_made(monkeypatch):
    # below the entry nothing re-resolves: a dataset runs through the whole per-dataset pipeline (split,
    # classifiers, calibration, scoring) with resolve refused, on the mode resolved when Settings was made
    # (and carried, pickled, to a worker as it is)
    from irtbridge.pipeline import run_dataset

    settings = pickle.loads(pickle.dumps(Settings.quick_run(calibration="paper", engine="mirt", max_items=20)))
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("CalibrationMode.resolve ran again below the entry")

    monkeypatch.setattr(CalibrationMode, "resolve", classmethod(refuse))
    result = run_dataset("iris", settings, extras=False, strict=True)
    assert calls == [] and result.ok
    assert result.calibration_mode == "paper" and result.engine_requested == "mirt"
    assert result.attempts[0].engine == "mirt"

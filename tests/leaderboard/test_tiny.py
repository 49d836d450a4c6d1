"""The tiny benchmark (build_tiny, its bank file, irtbridge tiny, irtbridge estimate --bank).

References: the bank round trip must give identical predictions (exact equality) and an identical item
bank; p-IRT read from the bank file equals p-IRT on the bank in memory; the CLI end to end on a trimmed real
matrix (tests/leaderboard/data/arct_90x120.csv: 90 checkpoints x 120 items of the ARCT set of
nyu-mll/nlu-test-sets) writes every file and its bank predicts what the Python object predicts; the
held-out error table's MAE recomputed here from the held-out models' answers for the sample mean.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import build_tiny, estimate_performance, load_bank, load_tiny, validate_tiny
from irtbridge.leaderboard.tiny import answers_from_long, sample_items
from irtbridge.leaderboard.tiny_cv import protocol_splits

from tests.leaderboard.conftest import ARCT as DATA  # the `responses` fixture reads it


@pytest.fixture(scope="module")
def tiny(responses):
    return build_tiny(responses.iloc[:70], 30, seed=1)


def test_contract(tiny, responses):
    assert len(tiny.items) == 30 and set(tiny.items) <= set(responses.columns)
    out = tiny.predict(responses.iloc[70:][tiny.items])
    assert list(out.columns) == ["theta", "theta_se", "accuracy", "accuracy_se", "lower", "upper", "predicted_share", "se"]
    assert (out["se"] == out["accuracy_se"]).all()  # the deprecated alias
    assert list(out.index) == list(responses.index[70:])
    assert ((out["lower"] <= out["accuracy"]) & (out["accuracy"] <= out["upper"])).all()
    assert "tiny benchmark" in tiny.summary().as_text() and "<" in tiny._repr_html_()


def test_bank_round_trip(tiny, responses, tmp_path):
    path = tiny.save(tmp_path / "bank.json")
    back = load_tiny(path)
    answers = responses.iloc[70:][tiny.items]
    pd.testing.assert_frame_equal(back.predict(answers), tiny.predict(answers), check_exact=True)
    assert back.items == tiny.items and back.method == tiny.method
    bank = load_bank(path)
    np.testing.assert_array_equal(bank.a, tiny.calibration.a)
    direct = estimate_performance(answers, tiny.bank(), tiny.items)
    from_file = estimate_performance(answers, str(path), tiny.items)
    pd.testing.assert_frame_equal(direct, from_file)


def test_exclude_is_never_sampled(responses):
    banned = list(responses.columns[:100])
    t = build_tiny(responses, 15, exclude=banned)
    assert not set(t.items) & set(banned)
    with pytest.raises(ValidationError, match="k = 30 items asked of"):
        build_tiny(responses, 30, exclude=banned)


def test_bad_input_one_line(tiny, responses, tmp_path):
    answers = responses.iloc[70:][tiny.items]
    for bad, msg in [(answers.iloc[:, 1:], "lack"), (answers.replace(1.0, 3.0), "0/1")]:
        with pytest.raises(ValidationError, match=msg) as info:
            tiny.predict(bad)
        assert "\n" not in str(info.value)
    with pytest.raises(ValidationError, match="k = 500 items asked of"):
        build_tiny(responses, 500)
    with pytest.raises(ValidationError, match="not an irtbridge tiny bank"):
        (tmp_path / "not_a_bank.json").write_text("{}")
        load_tiny(tmp_path / "not_a_bank.json")


def test_error_table_mean_by_hand(responses):
    v = validate_tiny(responses, 20, seed=0, method="mean", repeats=1, sizes=[30], design="random", draws=1)
    cal_idx, new_idx = protocol_splits(responses, 0)["extrapolation"]
    row = [r for r in v["errors"] if r["split"] == "extrapolation"][0]
    # the items validate_tiny draws (it is given no exclusions here; build_tiny adds the flagged items to them)
    items = sample_items(tuple(str(c) for c in responses.columns), 20, 0, None)
    truth = responses.iloc[new_idx].mean(axis=1)
    assert row["mae"] == pytest.approx(float(np.abs(responses.iloc[new_idx][items].mean(axis=1) - truth).mean()))
    assert [r["n_calibration"] for r in v["learning_curve"]] == [30]


def test_answers_from_long_hook(tiny, responses):
    wide = responses.iloc[70:72][tiny.items]
    long = wide.stack().rename("score").reset_index().rename(columns={"level_1": "item", responses.index.name: "model"})
    long.insert(1, "task", "arct")
    pd.testing.assert_frame_equal(answers_from_long(long, tiny.items), wide, check_names=False)


@pytest.mark.slow
def test_cli_end_to_end(tmp_path, responses, capsys):
    out = tmp_path / "tiny"
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(out), "--repeats", "1",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {p.name for p in out.iterdir()} == {"items.csv", "bank.json", "errors.csv", "learning_curve.csv",
                                               "summary.json", ".irtbridge-output"}
    assert [r["split"] for r in summary["errors"]] == ["interpolation", "extrapolation"]
    assert summary["learning_curve"][0]["n_calibration"] == 10
    items = pd.read_csv(out / "items.csv")["item"].tolist()
    answers = responses.iloc[:3][items]
    answers.to_csv(tmp_path / "answers.csv")
    assert main(["estimate", str(tmp_path / "answers.csv"), "--id-column", "model", "--bank",
                 str(out / "bank.json"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    expected = load_tiny(out).predict(answers)
    assert [r["accuracy"] for r in rows] == pytest.approx(expected["accuracy"].tolist(), abs=1e-12)
    assert {"theta", "se", "accuracy", "lower", "upper"} <= set(rows[0])


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "500", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert "k = 500" in err and "\n" not in err
    assert not (tmp_path / "t").exists()


def test_bank_file_feeds_adaptive_evaluate_and_the_estimate_cli(tiny, responses, tmp_path, capsys):
    from irtbridge.leaderboard import adaptive_evaluate

    path = tiny.save(tmp_path / "bank.json")
    row = responses.iloc[75]
    from_file = adaptive_evaluate(lambda item: row[item], str(path), stop=0.5, max_items=15)
    in_memory = adaptive_evaluate(lambda item: row[item], tiny.bank(), stop=0.5, max_items=15)
    assert from_file.items == in_memory.items and from_file.accuracy == in_memory.accuracy
    pd.DataFrame({"item": tiny.items}).to_csv(tmp_path / "items.csv", index=False)
    responses.iloc[70:72][tiny.items].to_csv(tmp_path / "answers.csv")
    assert main(["estimate", str(tmp_path / "answers.csv"), "--id-column", "model", "--calibration", str(path),
                 "--anchors", str(tmp_path / "items.csv"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    direct = estimate_performance(responses.iloc[70:72][tiny.items], tiny.bank(), tiny.items)
    assert [r["accuracy"] for r in rows] == pytest.approx(direct["accuracy"].tolist(), abs=1e-12)


def test_flagged_and_unanswered_items_stay_in_the_sample_frame():
    """Issue 39: an item whose 2PL estimate runs away (answered right by every model, or splitting the models
    perfectly) and an item no calibration model answered are drawn like any other item (the frame is every
    item); tiny.exclude holds only what the caller named, and such an item's IRT feature is the calibration
    models' mean on it (the overall share right for the unanswered one)."""
    import warnings

    from irtbridge.leaderboard._predictors import irt_predictions, item_means
    from irtbridge.leaderboard.estimators import runaway_items

    rng = np.random.default_rng(7)
    theta = np.sort(rng.normal(size=60))
    x = (rng.random((60, 20)) < 1 / (1 + np.exp(-(theta[:, None] - np.linspace(-1.5, 1.5, 20))))).astype(float)
    x[:, 0] = 1.0                                  # everyone right: difficulty runs to -infinity
    x[:, 1] = (theta > 0.3).astype(float)          # splits the models perfectly: the slope runs away
    x[:, 2] = np.nan                               # no calibration model answered it
    frame = pd.DataFrame(x, columns=[f"q{j}" for j in range(20)], index=[f"m{i}" for i in range(60)])
    drawn = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(6):
            tiny = build_tiny(frame, 10, seed=seed)
            assert tiny.exclude == ()
            drawn |= set(tiny.items)
        assert "q0" in runaway_items(tiny.calibration) and "q0" in tiny.flagged
        assert {"q0", "q1", "q2"} <= drawn
        everything = build_tiny(frame, 20, seed=0)
    assert everything.items == list(frame.columns)
    new = pd.DataFrame([np.r_[0.0, 1.0, 1.0, np.ones(17)]], columns=frame.columns)
    out = everything.predict(new)
    assert out["accuracy"].iloc[0] == pytest.approx(19 / 20)  # every item answered: the share right, exactly
    # the feature: not the runaway 2PL curve but the item's calibration mean, constant in theta
    cal = everything.calibration
    usable = np.ones(20, dtype=bool)
    usable[[0, 1, 2]] = False
    fallback = item_means(x)
    pred = irt_predictions(cal.a, cal.b, np.arange(3, 10), np.ones((1, 7)), cal.variance, usable, fallback)[0]
    np.testing.assert_allclose(pred[0, :3], [1.0, np.mean(theta > 0.3), np.nanmean(x)])


def test_the_hard_case_stays_design_based():
    """Issue 39, cause 1: the calibration models (weak) fail every one of a third of the items, so the 2PL
    flags them all; the new models (stronger) solve some. Drawing from every item keeps the default's
    interval honest; never drawing the flagged items (today's main) predicted them at ~0 and missed."""
    import warnings

    rng = np.random.default_rng(3)
    n_easy, n_hard = 160, 80
    b = np.r_[rng.normal(-0.5, 1.0, n_easy), rng.uniform(1.0, 2.5, n_hard)]
    names = [f"q{j}" for j in range(n_easy + n_hard)]
    th_cal, th_new = rng.normal(-1.0, 0.6, (60, 1)), rng.normal(1.5, 0.5, (20, 1))
    cal = (rng.random((60, len(b))) < 1 / (1 + np.exp(-1.5 * (th_cal - b)))).astype(float)
    cal[:, n_easy:] = 0.0
    new = (rng.random((20, len(b))) < 1 / (1 + np.exp(-1.5 * (th_new - b)))).astype(float)
    truth = new.mean(axis=1)
    hits, errors = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        calibration = None
        for seed in range(6):
            tiny = build_tiny(pd.DataFrame(cal, columns=names), 50, seed=seed, calibration=calibration)
            calibration = tiny.calibration
            assert len(tiny.flagged) >= n_hard
            out = tiny.predict(pd.DataFrame(new, columns=names)[tiny.items])
            hits += list((out["lower"] <= truth) & (truth <= out["upper"]))
            errors += list(out["accuracy"] - truth)
    assert np.mean(hits) >= 0.85, np.mean(hits)
    assert abs(np.mean(errors)) < 0.03, np.mean(errors)


def test_estimate_scores_a_model_straight_from_its_harness_output(tmp_path, capsys):
    """A bank built on lm-evaluation-harness item ids scores the real metabench sample files of
    pythia-14m through `irtbridge estimate FOLDER --from lm-eval --bank`: the same numbers as
    tiny.predict on the answers read by hand with plain json."""
    import warnings
    from pathlib import Path

    from irtbridge.leaderboard import build_tiny, read_lm_eval

    folder = Path(__file__).parent / "data" / "lm_eval"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ids = sorted(read_lm_eval(folder)["item"])
    rng = np.random.default_rng(11)
    theta = rng.normal(size=50)
    x = (rng.random((50, len(ids))) < 1 / (1 + np.exp(-(theta[:, None] - rng.normal(size=len(ids)))))).astype(float)
    tiny = build_tiny(pd.DataFrame(x, columns=ids, index=[f"m{i}" for i in range(50)]), 12, seed=0)
    tiny.save(tmp_path / "bank.json")
    # the model's answers to the tiny items, read from the sample files without irtbridge
    answers = {}
    for path in folder.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            answers[f"{task}/{rec['doc_hash'][:16]}"] = float(rec["acc"] if "acc" in rec else rec["exact_match"])
    wide = pd.DataFrame([[answers[i] for i in tiny.items]], columns=list(tiny.items), index=["EleutherAI/pythia-14m"])
    expected = tiny.predict(wide)
    assert main(["estimate", str(folder), "--from", "lm-eval", "--bank", str(tmp_path / "bank.json"), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["respondents"][0]
    assert row["respondent"] == "EleutherAI/pythia-14m" and set(row) >= {"theta", "se", "lower", "upper"}
    assert row["accuracy"] == pytest.approx(float(expected["accuracy"].iloc[0]), abs=1e-12)
    assert main(["estimate", str(folder), "--from", "lm-eval", "--json"]) == 2  # harness output needs a bank


def test_tiny_cli_reads_harness_output(tmp_path, capsys):
    """`irtbridge tiny FOLDER --from helm` builds from HELM run folders (the reader's fixtures: two models,
    so too few for a tiny benchmark: a one-line error naming the count, nothing written)."""
    from pathlib import Path

    helm = Path(__file__).parent / "data" / "helm" / "v1"
    code = main(["tiny", str(helm), "--from", "helm", "--threshold", "0.5", "--k", "3", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "2 model(s)" in err and err.count("\n") == 1 and not (tmp_path / "t").exists()


def test_one_calibration_the_leaderboard_prior_by_default(responses, tmp_path):
    """Issue 39, cause 3: tiny, its bank and the leaderboard fit the same 2PL (a1 ~ N(1, 2) by default, the
    leaderboard's prior); the bank stores the prior and the flags; --no-prior / priors=None is plain ML."""
    import warnings

    from irtbridge.calibration import calibrate
    from irtbridge.leaderboard.estimators import DEFAULT_PRIORS, calibrate_2pl
    from irtbridge.leaderboard.report import DEFAULT_PRIORS as LEADERBOARD_PRIORS

    assert dict(DEFAULT_PRIORS) == dict(LEADERBOARD_PRIORS) == {"a1": ("norm", 1.0, 2.0)}
    informative = responses.loc[:, (responses.mean() > 0.05) & (responses.mean() < 0.95)].iloc[:, :60]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = calibrate_2pl(informative)
        theirs = calibrate(informative, "2PL", engine="native", se=False, priors=LEADERBOARD_PRIORS)
        plain = calibrate_2pl(informative, priors=None)
    np.testing.assert_allclose(ours.a, theirs.items["a"].to_numpy(), rtol=1e-4, atol=1e-4)
    assert ours.priors == {"a1": ("norm", 1.0, 2.0)} and plain.priors is None
    assert np.abs(ours.a).max() < np.abs(plain.a).max()
    tiny = build_tiny(responses, 20, seed=0)
    data = json.loads(Path(tiny.save(tmp_path / "bank.json")).read_text())
    assert data["version"] == 2 and data["priors"] == {"a1": ["norm", 1.0, 2.0]}
    assert data["flagged"] == list(tiny.flagged)
    assert load_tiny(tmp_path / "bank.json").calibration.priors == {"a1": ("norm", 1.0, 2.0)}


def test_an_old_bank_still_loads(tiny, responses, tmp_path):
    """A version-1 bank (no priors, no flagged; its exclude held the flagged items) loads and predicts."""
    data = tiny.to_dict()
    data["version"] = 1
    del data["priors"], data["flagged"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = load_tiny(tmp_path / "old.json")
    assert old.calibration.priors is None and old.items == tiny.items
    answers = responses.iloc[70:][tiny.items]
    np.testing.assert_allclose(old.predict(answers)["accuracy"], tiny.predict(answers)["accuracy"], rtol=1e-12)


def _edited(tiny, tmp_path, **changes):
    data = tiny.to_dict()
    for key, value in changes.items():
        if callable(value):
            value(data)
        else:
            data[key] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def test_a_bank_is_checked_whole_on_load(tiny, tmp_path):
    """Issue 40, leaderboard side: each bad bank is one line naming the field (and the item), before use."""
    def set_at(key, j, value):
        def edit(data):
            data[key][j] = value
        return edit

    name0 = tiny.item_names[0]
    cases = [({"version": 99}, "version 99"),
             ({"b": set_at("b", 0, 1e300)}, f"item {name0!r} has b = 1e\\+300"),
             ({"a": set_at("a", 0, float("nan"))}, f"item {name0!r} has a = nan"),
             ({"items": ["zz", "yy", "xx"]}, "items names 3 item"),
             ({"models": set_at("models", 1, tiny.models[0])}, "models name"),
             ({"responses": set_at("responses", 0, "2" * len(tiny.models))}, "responses must be"),
             ({"latent_var": -1.0}, "latent_var"),
             ({"priors": {"a1": ["cauchy", 1, 2]}}, "priors"),
             ({"flagged": [name0]}, "flagged")]
    for change, msg in cases:
        with pytest.raises(ValidationError, match=msg) as info:
            load_tiny(_edited(tiny, tmp_path, **change))
        assert "\n" not in str(info.value)
    with pytest.raises(ValidationError, match=r"^path must be a path to a bank file \(text or os.PathLike\), got None$"):
        load_tiny(None)
    with pytest.raises(ValidationError, match="does not exist; create it first") as info:
        tiny.save(tmp_path / "missing" / "bank.json")
    assert "partial" not in str(info.value)


@pytest.mark.slow
def test_duplicate_models_and_too_few_models_are_refused_before_the_fit(tiny, responses, tmp_path, capsys, monkeypatch):
    import irtbridge.leaderboard.tiny as tiny_module

    bank = tiny.save(tmp_path / "bank.json")
    # the Python API follows the commands' one rule (_answers.one_row_per_model): identical repeats count once,
    # differing ones are refused before the fit
    same = pd.concat([responses.iloc[:20], responses.iloc[:1]])
    assert build_tiny(same, 10, method="mean").models == build_tiny(responses.iloc[:20], 10, method="mean").models
    once = validate_tiny(responses.iloc[:20], 10, method="mean", repeats=2, sizes=[10])
    assert validate_tiny(same, 10, method="mean", repeats=2, sizes=[10]) == once
    differ = pd.concat([responses.iloc[:20], 1.0 - responses.iloc[:1]])
    with pytest.raises(ValidationError, match="appear more than once with different answers"):
        build_tiny(differ, 10)
    with pytest.raises(ValidationError, match="appear more than once with different answers"):
        validate_tiny(differ, 10)

    def no_fit(*args, **kwargs):
        raise AssertionError("the 2PL was fitted before the input was checked")

    monkeypatch.setattr(tiny_module, "calibrate_2pl", no_fit)
    responses.iloc[:6].to_csv(tmp_path / "six.csv")
    code = main(["tiny", str(tmp_path / "six.csv"), "--id-column", "model", "--k", "10", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "needs at least 8" in err and err.count("\n") == 1
    # the same rule on the command line, before any work
    twice = pd.concat([responses.iloc[:20], 1.0 - responses.iloc[:1]])
    twice.to_csv(tmp_path / "twice.csv")
    code = main(["tiny", str(tmp_path / "twice.csv"), "--id-column", "model", "--k", "10", "--out", str(tmp_path / "t")])
    assert code == 2 and "appear more than once" in capsys.readouterr().err
    code = main(["estimate", str(tmp_path / "twice.csv"), "--id-column", "model", "--bank", bank])
    assert code == 2 and "appear more than once" in capsys.readouterr().err


def test_estimate_performance_refuses_a_model_without_answers(tiny, responses):
    answers = responses.iloc[70:72][tiny.items].copy()
    answers.iloc[1] = np.nan
    with pytest.raises(ValidationError, match="answered no anchor item"):
        estimate_performance(answers, tiny.bank(), tiny.items)
    with pytest.raises(ValidationError, match="answered fewer than 3"):
        tiny.predict(answers)


def _hard_case(seed=5, n_models=80, n_easy=120, n_hard=60):
    """The weakest half of the models fail every hard item; the others solve some (2PL answers)."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0.0, 1.2, n_models))
    b = np.r_[rng.normal(-0.5, 1.0, n_easy), rng.uniform(0.5, 2.0, n_hard)]
    x = (rng.random((n_models, len(b))) < 1 / (1 + np.exp(-1.5 * (theta[:, None] - b)))).astype(float)
    x[: n_models // 2, n_easy:] = 0.0
    return pd.DataFrame(x, columns=[f"q{j}" for j in range(len(b))], index=[f"m{i}" for i in range(n_models)])


@pytest.mark.slow
def test_the_error_table_is_what_a_users_runs_measure():
    """Issue 39, cause 2: the table rebuilds every repeat on the fold's calibration models alone (2PL with the
    prior, flags, features, item draw) and draws the items anew in extrapolation too. Measured here
    independently, with the public build_tiny + predict on the same folds and draw seeds: the same MAE and
    coverage (today's main scores extrapolation on one draw, from flags of every model)."""
    import warnings

    frame = _hard_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = validate_tiny(frame, 30, seed=2, repeats=4, sizes=[20], draws=1)
        rows = {r["split"]: r for r in table["errors"]}
        for split in ("interpolation", "extrapolation"):
            errs, hits = [], []
            for r in range(4):
                cal_idx, new_idx = protocol_splits(frame, 2 + r)[split]
                tiny = build_tiny(frame.iloc[cal_idx], 30, seed=2 + r)
                out = tiny.predict(frame.iloc[new_idx][tiny.items])
                truth = frame.iloc[new_idx].mean(axis=1).to_numpy()
                errs.append(np.abs(out["accuracy"].to_numpy() - truth))
                hits.append((out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy()))
            row = rows[split]
            assert row["draws"] == 4 and row["n_held_out"] == sum(len(h) for h in hits)
            assert row["mae"] == pytest.approx(float(np.concatenate(errs).mean()), abs=1e-12)
            assert abs(row["coverage"] - float(np.concatenate(hits).mean())) <= 0.03
            per_draw = [float(e.mean()) for e in errs]
            assert row["mae_se"] == pytest.approx(np.std(per_draw, ddof=1) / 2, rel=1e-9)
            assert row["coverage_lower"] <= row["coverage"] <= row["coverage_upper"]


@pytest.mark.slow
def test_low_coverage_is_a_warning_and_a_note_everywhere(tmp_path, capsys, monkeypatch):
    """A coverage below the threshold: a DataWarning on the CLI's stderr, a note of the Summary (text and HTML)
    and of summary.json. (The threshold is raised above 1 here so that any table trips it.)"""
    import irtbridge.leaderboard.tiny_cv as tiny_cv

    monkeypatch.setattr(tiny_cv, "LOW_COVERAGE", 1.01)
    out = tmp_path / "tiny"
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(out), "--repeats", "2",
                 "--no-validate"]) == 0
    assert "below" not in capsys.readouterr().err
    out2 = tmp_path / "tiny2"
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(out2), "--repeats", "2"]) == 0
    captured = capsys.readouterr()
    assert "DataWarning" in captured.err and "below 1.01" in captured.err
    summary = json.loads((out2 / "summary.json").read_text())
    assert any("below 1.01" in n for n in summary["notes"]) and "below 1.01" in captured.out
    tiny = load_tiny(out2)
    assert any("below 1.01" in n for n in tiny.summary().notes) and "below 1.01" in tiny.summary().as_html()
    errors = pd.read_csv(out2 / "errors.csv")
    assert list(errors.columns) == ["split", "k", "n_calibration", "n_held_out", "draws", "mae", "mae_se", "coverage",
                                    "coverage_se", "coverage_lower", "coverage_upper"]

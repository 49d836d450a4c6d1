"""An output never deletes what irtbridge did not write, and never is, holds or lies inside an input.

One test per case of issue 40's "Data loss" paragraph (each destroyed the user's files on the release before
this rule), then the rule's other sides: a folder irtbridge wrote (its marker) is still replaced whole, an
output that cannot be written is one line before any work, the lock is taken before any work. Every case
asserts what the user is left with: exit status 2, one line on stderr naming the option, the files intact.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge._outdir import MARKER, check_outputs, output_lock, staged_output
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError

from tests.test_faults import ENV, HANG

DATA = Path(__file__).resolve().parent / "leaderboard" / "data"


def _matrix(path: Path, models: int = 40, items: int = 20, seed: int = 0) -> Path:
    """A small 0/1 response matrix (models x items) with model names, as a CSV."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(models, 1))
    x = (rng.random((models, items)) < 1 / (1 + np.exp(-(theta - np.linspace(-2, 2, items))))).astype(int)
    frame = pd.DataFrame(x, index=[f"m{i:02d}" for i in range(models)], columns=[f"q{j:02d}" for j in range(items)])
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.rename_axis("model").to_csv(path)
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(argv: list[str], capsys, flag: str = "--out") -> str:
    """The command exits 2 with one line on stderr naming ``flag``."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and flag in err and "Traceback" not in err, err
    return err


def _no_work(monkeypatch, *targets: str) -> None:
    """Make the named functions fail the test if called: the refusal must come before any work."""
    for target in targets:
        monkeypatch.setattr(target, lambda *a, **k: pytest.fail(f"{target} ran before the output was refused"))


# --------------------------------------------------------------------------------------------------
# the cases of the issue
# --------------------------------------------------------------------------------------------------

def _lm_eval_results(folder: Path) -> Path:
    """An lm-eval results folder with two model folders (the fixture's model, and a copy under another name)."""
    shutil.copytree(DATA / "lm_eval", folder)
    shutil.copytree(folder / "EleutherAI__pythia-14m", folder / "org__b")
    return folder


def test_leaderboard_out_onto_the_lm_eval_results_folder_keeps_it(tmp_path, capsys):
    results = _lm_eval_results(tmp_path / "RESULTS")
    before = _snapshot(results)
    err = _refused(["leaderboard", str(results), "--out", str(results)], capsys)
    assert "input" in err
    assert _snapshot(results) == before


def test_leaderboard_out_onto_the_folder_of_its_input_keeps_the_input_and_other_files(tmp_path, capsys):
    folder = tmp_path / "X"
    _matrix(folder / "mat.csv")
    (folder / "notes.txt").write_text("my notes")
    before = _snapshot(folder)
    _refused(["leaderboard", str(folder / "mat.csv"), "--out", str(folder)], capsys)
    assert _snapshot(folder) == before


def test_leaderboard_out_dot_in_the_folder_of_its_input_keeps_the_working_folder(tmp_path, capsys, monkeypatch):
    here = tmp_path / "Z"
    _matrix(here / "mat.csv")
    (here / "thesis.tex").write_text("chapter 1")
    before = _snapshot(here)
    monkeypatch.chdir(here)
    _refused(["leaderboard", "mat.csv", "--out", "."], capsys)
    assert _snapshot(here) == before


def test_tiny_out_onto_the_folder_of_its_input_is_refused_before_the_fit(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "Y"
    _matrix(folder / "mat.csv")
    before = _snapshot(folder)
    _no_work(monkeypatch, "irtbridge.leaderboard.build_tiny")
    _refused(["tiny", str(folder / "mat.csv"), "--id-column", "model", "--k", "5", "--out", str(folder)], capsys)
    assert _snapshot(folder) == before


def test_evaluate_out_onto_the_folder_of_a_csv_dataset_keeps_it(tmp_path, capsys):
    folder = tmp_path / "EV"
    folder.mkdir()
    (folder / "iris.csv").write_text("x,y,target\n1,2,a\n2,1,b\n")
    (folder / "other.txt").write_text("keep")
    before = _snapshot(folder)
    _refused(["evaluate", "--quick", "--datasets", f"{folder / 'iris.csv'}:target", "--out", str(folder)], capsys)
    assert _snapshot(folder) == before


def test_ingest_out_onto_a_harness_file_keeps_it(tmp_path, capsys):
    results = _lm_eval_results(tmp_path / "L")
    sample = next(results.rglob("samples_metabench_arc_*.jsonl"))
    before = _snapshot(results)
    _refused(["ingest", "lm-eval", str(results), "--out", str(sample)], capsys)
    assert _snapshot(results) == before


def test_ingest_out_inside_the_harness_folder_is_refused(tmp_path, capsys):
    results = _lm_eval_results(tmp_path / "L")
    err = _refused(["ingest", "lm-eval", str(results), "--out", str(results / "all.csv")], capsys)
    assert "inside the input" in err
    assert not (results / "all.csv").exists()


def test_ingest_pyirt_out_onto_its_input_keeps_it(tmp_path, capsys):
    source = tmp_path / "a.jsonlines"
    shutil.copy(DATA / "pyirt" / "responses.jsonlines", source)
    before = source.read_bytes()
    _refused(["ingest", "pyirt", str(source), "--out", str(source)], capsys)
    assert source.read_bytes() == before


def test_calibrate_out_onto_its_input_keeps_it(tmp_path, capsys, monkeypatch):
    data = _matrix(tmp_path / "d.csv")
    before = data.read_bytes()
    monkeypatch.chdir(tmp_path)
    _no_work(monkeypatch, "irtbridge.calibration.calibrate")
    _refused(["calibrate", "d.csv", "--out", "d.csv"], capsys)
    assert data.read_bytes() == before


def test_estimate_out_onto_its_input_keeps_it(tmp_path, capsys):
    data = _matrix(tmp_path / "a.csv")
    before = data.read_bytes()
    (tmp_path / "cal.json").write_text("{}")  # an input that exists: the --out rule is what refuses
    _refused(["estimate", str(data), "--calibration", str(tmp_path / "cal.json"), "--out", str(data)], capsys)
    assert data.read_bytes() == before


def test_rate_history_onto_its_input_keeps_it(tmp_path, capsys):
    matches = tmp_path / "m.csv"
    matches.write_text("period,player,opponent,score\n1,a,b,1\n1,b,c,0.5\n")
    before = matches.read_bytes()
    _refused(["rate", str(matches), "--history", str(matches)], capsys, flag="--history")
    assert matches.read_bytes() == before


def test_an_output_through_a_symbolic_link_to_an_input_is_refused(tmp_path, capsys):
    data = _matrix(tmp_path / "d.csv")
    (tmp_path / "link.csv").symlink_to(data)
    _refused(["calibrate", str(data), "--out", str(tmp_path / "link.csv")], capsys)


# --------------------------------------------------------------------------------------------------
# folders: irtbridge's own are replaced, others refused
# --------------------------------------------------------------------------------------------------

def test_a_folder_with_files_irtbridge_did_not_write_is_refused_whole(tmp_path, capsys):
    data = _matrix(tmp_path / "in" / "mat.csv")
    out = tmp_path / "results"
    out.mkdir()
    (out / "paper.docx").write_text("a year of work")
    err = _refused(["leaderboard", str(data), "--out", str(out)], capsys)
    assert MARKER in err and "empty folder" in err
    assert sorted(p.name for p in out.iterdir()) == ["paper.docx"]


@pytest.mark.slow
def test_a_folder_irtbridge_wrote_is_replaced_by_the_next_run(tmp_path, capsys):
    """The README's promise: a folder holds one run; the previous report is replaced once the new is whole."""
    data = _matrix(tmp_path / "mat.csv")
    out = tmp_path / "board"
    assert main(["leaderboard", str(data), "--out", str(out)]) == 0
    marker = json.loads((out / MARKER).read_text())
    assert marker["command"] == "leaderboard" and marker["written_by"] == "irtbridge"
    (out / "tables" / "stale.csv").write_text("from an earlier run\n")
    assert main(["leaderboard", str(_matrix(tmp_path / "mat2.csv", seed=1)), "--out", str(out)]) == 0
    capsys.readouterr()
    assert not (out / "tables" / "stale.csv").exists()  # replaced whole: nothing of the earlier run mixes in
    assert (out / "index.html").is_file() and (out / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board", "mat.csv", "mat2.csv"]


def test_an_empty_existing_folder_may_be_used(tmp_path, capsys):
    data = _matrix(tmp_path / "mat.csv")
    out = tmp_path / "board"
    out.mkdir()
    assert main(["leaderboard", str(data), "--out", str(out)]) == 0, capsys.readouterr().err
    assert (out / "index.html").is_file()


def test_the_python_writers_refuse_a_folder_they_did_not_write(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "keep.txt").write_text("keep")
    with pytest.raises(ValidationError, match="did not write"):
        with staged_output(out, param="out"):
            pytest.fail("the block ran")
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_a_folder_named_like_a_leftover_but_not_irtbridges_is_left_alone(tmp_path):
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    users = tmp_path / f"report.old-{dead}"  # a user's folder whose name looks like a run's leftover
    users.mkdir()
    (users / "draft.txt").write_text("keep")
    with staged_output(tmp_path / "report") as stage:
        (stage / "a.txt").write_text("new")
    assert (users / "draft.txt").read_text() == "keep"


def test_a_users_folder_named_like_this_runs_staging_or_old_folder_is_left_alone(tmp_path):
    # the names a run used to take were OUT.partial-<pid> / OUT.old-<pid> of its own pid: a user's folder so
    # named was cleared; the run's folders are now new ones with a random token
    users = [tmp_path / f"report.{kind}-{os.getpid()}" for kind in ("partial", "old")]
    for folder in users:
        folder.mkdir()
        (folder / "draft.txt").write_text("keep")
    for text in ("first", "second"):  # the second run moves the first aside, then deletes it
        with staged_output(tmp_path / "report") as stage:
            (stage / "a.txt").write_text(text)
    assert (tmp_path / "report" / "a.txt").read_text() == "second"
    for folder in users:
        assert (folder / "draft.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report"] + [u.name for u in users])


# --------------------------------------------------------------------------------------------------
# outputs that cannot be written: one line, exit 2, before any work
# --------------------------------------------------------------------------------------------------

def test_fit_plots_onto_an_existing_file_is_one_line_before_the_fit(tmp_path, capsys, monkeypatch):
    data = _matrix(tmp_path / "d.csv")
    plots = tmp_path / "plots.png"
    plots.write_text("a file")
    _no_work(monkeypatch, "irtbridge.calibration.calibrate")
    err = _refused(["fit", str(data), "--model", "2PL", "--plots", str(plots)], capsys, flag="--plots")
    assert "is a file" in err and "Errno" not in err
    assert plots.read_text() == "a file"


def test_tiny_out_naming_a_file_is_refused_before_the_fit(tmp_path, capsys, monkeypatch):
    data = _matrix(tmp_path / "d.csv")
    (tmp_path / "taken").write_text("x")
    _no_work(monkeypatch, "irtbridge.leaderboard.build_tiny")
    _refused(["tiny", str(data), "--id-column", "model", "--k", "5", "--out", str(tmp_path / "taken")], capsys)


def test_a_file_output_in_a_missing_folder_is_one_line_before_any_work(tmp_path, capsys, monkeypatch):
    data = _matrix(tmp_path / "d.csv")
    _no_work(monkeypatch, "irtbridge.calibration.calibrate")
    err = _refused(["calibrate", str(data), "--out", str(tmp_path / "nope" / "items.csv")], capsys)
    assert "does not exist" in err
    assert not (tmp_path / "nope").exists()


def test_a_file_output_naming_a_folder_is_one_line(tmp_path, capsys):
    data = _matrix(tmp_path / "d.csv")
    (tmp_path / "dir").mkdir()
    err = _refused(["calibrate", str(data), "--out", str(tmp_path / "dir")], capsys)
    assert "is a folder" in err


def test_a_folder_output_under_a_file_is_one_line(tmp_path, capsys):
    data = _matrix(tmp_path / "d.csv")
    blocker = tmp_path / "a-file"
    blocker.write_text("keep")
    err = _refused(["tiny", str(data), "--id-column", "model", "--k", "5", "--out", str(blocker / "t")], capsys)
    assert "cannot be created" in err and blocker.read_text() == "keep"


def test_a_read_only_file_output_is_one_line(tmp_path, monkeypatch):
    import os

    import irtbridge._outdir as outdir

    target = tmp_path / "ro.csv"
    target.write_text("x")
    target.chmod(0o444)
    real_access = os.access
    try:
        # root writes anything: what the permission bits say for another user is what the check reads
        monkeypatch.setattr(outdir.os, "access",
                            lambda path, mode: False if os.fspath(path) == os.fspath(target) and mode & os.W_OK
                            else real_access(path, mode))
        with pytest.raises(ValidationError, match="read-only"):
            check_outputs([("--out", target, "file")])
    finally:
        target.chmod(0o644)


# --------------------------------------------------------------------------------------------------
# the lock is taken before any work
# --------------------------------------------------------------------------------------------------

def test_tiny_into_a_folder_being_written_is_refused_before_the_fit(tmp_path, capsys, monkeypatch):
    data = _matrix(tmp_path / "d.csv")
    out = tmp_path / "tiny"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from irtbridge._outdir import output_lock\n"
                               f"with output_lock({str(out)!r}):\n    print('locked', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        _no_work(monkeypatch, "irtbridge.leaderboard.build_tiny")
        err = _refused(["tiny", str(data), "--id-column", "model", "--k", "5", "--out", str(out)], capsys)
        assert f"pid {holder.pid}" in err
    finally:
        holder.communicate(b"", timeout=HANG)


def test_the_lock_is_reentrant_and_released_by_the_outermost_holder(tmp_path):
    out = tmp_path / "report"
    with output_lock(out) as lock:
        with staged_output(out) as stage:
            (stage / "a.txt").write_text("x")
        assert lock.exists()  # the inner writer did not drop the outer run's lock
    assert not lock.exists() and (out / "a.txt").is_file()


# --------------------------------------------------------------------------------------------------
# batch units
# --------------------------------------------------------------------------------------------------

def _manifest(folder: Path, output: str) -> Path:
    (folder / "t.csv").write_text("name,tp,fp,fn,tn\nA,5,1,2,9\n")
    path = folder / "m.json"
    path.write_text(json.dumps({"output": output, "units": [{"id": "a", "kind": "ei", "data": "t.csv",
                                                             "options": {"name": "name"}}]}))
    return path


def test_batch_output_holding_its_manifest_and_inputs_is_refused(tmp_path, capsys):
    manifest = _manifest(tmp_path, ".")
    before = _snapshot(tmp_path)
    err = _refused(["batch", str(manifest), "--scheduler", "serial"], capsys, flag="out")
    assert "contains the input" in err
    assert _snapshot(tmp_path) == before


def test_batch_into_a_folder_it_did_not_write_is_refused(tmp_path, capsys):
    manifest = _manifest(tmp_path, "res")
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "mine.txt").write_text("keep")
    _refused(["batch", str(manifest), "--scheduler", "serial"], capsys, flag="out")
    assert [p.name for p in (tmp_path / "res").iterdir()] == ["mine.txt"]

#!/usr/bin/env python3
"""A hostile review of irtbridge's surfaces: careless or hostile inputs, each run and classified.

The catalogue was written from the user-facing docs only (README.md, docs/, ``irtbridge --help`` and each
command's ``--help``, the public docstrings), before reading the validation code (issue 40). Each case is an
input a new user could give; ``refuse`` cases should get a one-line error before any work, ``accept`` cases
are legitimately valid and should work.

Classes:
  refused    exit 2, one line on stderr, no traceback, nothing written (Python: a ValueError subclass whose
             message is one line)
  late       refused as above but only after work (more than LATE seconds, or something was written)
  cryptic    an error, but not one line / not exit 2 / not a ValueError
  crash      a traceback
  silent     a refuse case that exited 0 (accepted but wrong)
  accepted   an accept case that exited 0
  rejected   an accept case that failed

Usage: ``python tools/hostile-review.py [--json] [--only SUBSTRING] [--jobs N]`` from the repository root
(with the package importable). Prints the share of refuse cases that were ``refused`` and every failure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LATE = 60.0   # seconds: a refusal after this long did work first (generous: start-up alone takes 20 s on
#               a loaded 2-core machine; a case that wrote anything is late whatever the time)
TIMEOUT = 180.0
ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

# ---------------------------------------------------------------------------------------------- fixtures


def _matrix(n_rows: int, n_items: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_rows, 1))
    b = np.linspace(-1.5, 1.5, n_items)
    a = rng.uniform(0.8, 2.0, n_items)
    p = 1 / (1 + np.exp(-a * (theta - b)))
    return (rng.uniform(size=p.shape) < p).astype(int)


def _csv(header: list[str], rows: list[list]) -> str:
    return ",".join(header) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows)


def build_fixtures(base: Path) -> None:
    """Valid inputs, each command's own; the cases spoil copies of them."""
    x = _matrix(80, 6, 1)
    items = [f"i{j + 1}" for j in range(6)]
    (base / "resp.csv").write_text(_csv(items, x.tolist()))
    y = _matrix(14, 40, 2)
    lb_items = [f"q{j}" for j in range(40)]
    (base / "lb.csv").write_text(_csv(["model"] + lb_items, [[f"m{i}"] + r for i, r in enumerate(y.tolist())]))
    (base / "long.csv").write_text(_csv(["model", "item", "score"],
                                        [[f"m{i}", lb_items[j], y[i, j]] for i in range(14) for j in range(40)]))
    (base / "matches.csv").write_text(_csv(["period", "player", "opponent", "score"],
                                           [[1, "a", "b", 1], [1, "b", "c", 0.5], [2, "a", "c", 0], [2, "c", "b", 1]]))
    rng = np.random.default_rng(3)
    lab = rng.integers(0, 2, 50)
    s1 = np.clip(lab * 0.6 + rng.uniform(0, 0.4, 50), 0, 1).round(3)
    s2 = np.clip(lab * 0.3 + rng.uniform(0, 0.7, 50), 0, 1).round(3)
    (base / "hard.csv").write_text(_csv(["id", "y", "m1", "m2"],
                                        [[f"r{i}", lab[i], s1[i], s2[i]] for i in range(50)]))
    (base / "cases.csv").write_text(_csv(["truth", "score"], [[lab[i], s1[i]] for i in range(50)]))
    perf = rng.uniform(0.3, 1.0, (30, 4)).round(3)
    (base / "perf.csv").write_text(_csv(["dataset", "A", "B", "C", "D"],
                                        [[f"d{i}"] + perf[i].tolist() for i in range(30)]))
    feats = rng.normal(size=(120, 4)).round(3)
    tgt = (feats[:, 0] + rng.normal(size=120) > 0).astype(int)
    (base / "mlc.csv").write_text(_csv(["f1", "f2", "f3", "f4", "target"],
                                       [feats[i].tolist() + [tgt[i]] for i in range(120)]))
    (base / "anchors.csv").write_text("item\ni1\ni3\ni5\n")
    (base / "new.csv").write_text(_csv(["model", "i1", "i3", "i5"], [["n1", 1, 0, 1], ["n2", 0, 0, 1]]))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cal = subprocess.run([PY, "-m", "irtbridge", "calibrate", "resp.csv", "--engine", "native", "--json"],
                         cwd=base, env=env, capture_output=True, text=True)
    (base / "cal.json").write_text(cal.stdout)
    subprocess.run([PY, "-m", "irtbridge", "tiny", "lb.csv", "--k", "10", "--no-validate", "--out", "tinyout"],
                   cwd=base, env=env, capture_output=True, text=True)
    (base / "manifest.json").write_text(json.dumps({"units": [
        {"id": "h", "kind": "hardness", "data": "hard.csv", "options": {"label": "y", "scores": ["m1"]}}]}))


# ---------------------------------------------------------------------------------------------- the cases
# (id, expect, argv or python code, files to write into the case folder {name: text | bytes | None = folder})

BIN = bytes(range(256)) * 4
LAT1 = "i1,i2\n1,0\n0,1\n\xe9,1\n".encode("latin-1")
R = "refuse"
A = "accept"


def cli_cases() -> list[tuple]:
    c: list[tuple] = []

    def bad_files(cmd: list[str], pos: int, tag: str, extra_refuse=()) -> None:
        """The same bad files for every command reading a CSV at argv[pos]."""
        variants = {
            "missing": None, "empty": b"", "folder": "DIR", "binary": BIN, "latin1": LAT1,
            "header-only": b"a,b,c\n",
        }
        for name, content in variants.items():
            argv = list(cmd)
            fname = f"{name}.csv"
            argv[pos] = fname
            files = {} if content is None else {fname: content}
            c.append((f"{tag}:file-{name}", R, argv, files))
        for name, content in extra_refuse:
            argv = list(cmd)
            argv[pos] = f"{name}.csv"
            c.append((f"{tag}:{name}", R, argv, {f"{name}.csv": content}))

    cal = ["calibrate", "resp.csv", "--engine", "native"]
    bad_files(cal, 1, "calibrate", [
        ("ragged", "i1,i2,i3\n1,0,1\n0,1\n1,1,1,1\n"),
        ("dup-header", "i1,i1,i2\n1,0,1\n0,1,0\n1,1,0\n0,0,1\n"),
        ("non01", "i1,i2,i3\n1,0,7\n0,1,0\n1,-3,1\n0,0,1\n"),
        ("strings", "i1,i2,i3\nyes,no,yes\nno,no,yes\nyes,yes,no\n"),
        ("one-row", "i1,i2,i3\n1,0,1\n"),
        ("all-missing-col", "i1,i2,i3\n1,,1\n0,,0\n1,,0\n0,,1\n1,,1\n"),
        ("huge-int", "i1,i2,i3\n1,0,99999999999999999999999\n0,1,0\n1,1,0\n"),
        ("inf", "i1,i2,i3\n1,0,inf\n0,1,0\n1,1,0\n"),
    ])
    c += [
        ("calibrate:model-bogus", R, cal + ["--model", "9PL"], {}),
        ("calibrate:native-gpcm-bogus-model", R, cal + ["--model", ""], {}),
        ("calibrate:dims-0", R, cal[:2] + ["--dims", "0"], {}),
        ("calibrate:dims-neg", R, cal[:2] + ["--dims", "-2"], {}),
        ("calibrate:dims-nan", R, cal[:2] + ["--dims", "nan"], {}),
        ("calibrate:id-column-missing", R, cal + ["--id-column", "nope"], {}),
        ("calibrate:prior-bad", R, cal[:2] + ["--prior", "a1=banana,0,1"], {}),
        ("calibrate:prior-nan", R, cal[:2] + ["--prior", "a1=lnorm,nan,1"], {}),
        ("calibrate:spec-missing", R, cal[:2] + ["--spec", "nofile.txt"], {}),
        ("calibrate:itemtype-file-missing", R, cal[:2] + ["--itemtype-file", "none.txt"], {}),
        ("calibrate:itemtype-file-unknown-item", R, cal[:2] + ["--itemtype-file", "it.txt"],
         {"it.txt": "zz,2PL\n"}),
        ("calibrate:key-wrong-length", R, cal + ["--key", "1,2"], {}),
        ("calibrate:missing-codes-without-key", R, cal + ["--missing-codes", "8"], {}),
        ("calibrate:long-columns-bad", R, ["calibrate", "long.csv", "--engine", "native", "--long",
                                           "--long-columns", "a,b"], {}),
        ("calibrate:long-columns-absent", R, ["calibrate", "long.csv", "--engine", "native", "--long",
                                              "--long-columns", "x,y,z"], {}),
        ("calibrate:out-is-input", R, cal + ["--out", "resp.csv"], {}),
        ("calibrate:out-is-folder", R, cal + ["--out", "sub"], {"sub": "DIR"}),
        ("calibrate:out-missing-parent", R, cal + ["--out", "no/such/items.csv"], {}),
        ("calibrate:out-readonly", R, cal + ["--out", "ro/items.csv"], {"ro": "RODIR"}),
        # reclassified after the first run, from the docs: the native engine takes priors (CHANGELOG, 4PL)
        ("calibrate:native-with-prior", A, cal + ["--prior", "a1=lnorm,0,0.5"], {}),
        ("calibrate:semicolon-sniffed", A, cal, {"resp.csv": "SEMI:resp.csv"}),
        ("calibrate:method-native", R, cal + ["--method", "MHRM"], {}),
        ("calibrate:ltm-4pl", R, ["calibrate", "resp.csv", "--engine", "ltm", "--model", "4PL"], {}),
    ]
    abil = ["abilities", "resp.csv", "--engine", "native"]
    bad_files(abil, 1, "abilities", [("non01", "i1,i2\n1,5\n0,1\n1,0\n")])
    c += [
        ("abilities:method-bogus", R, abil + ["--method", "XYZ"], {}),
        ("abilities:native-WLE", R, abil + ["--method", "WLE"], {}),
        ("abilities:out-is-input", R, abil + ["--out", "resp.csv"], {}),
        ("abilities:out-readonly", R, abil + ["--out", "ro/a.csv"], {"ro": "RODIR"}),
    ]
    fit = ["fit", "resp.csv"]
    bad_files(fit, 1, "fit")
    c += [
        ("fit:engine-ltm", R, fit + ["--engine", "ltm"], {}),
        ("fit:engine-bogus", R, fit + ["--engine", "bogus"], {}),
        ("fit:impute-0-is-the-default", A, fit + ["--impute", "0"], {}),
        ("fit:impute-neg", R, fit + ["--impute", "-3"], {}),
        ("fit:impute-and-narm", R, fit + ["--impute", "3", "--na-rm"], {}),
        ("fit:seed-neg", R, fit + ["--seed", "-1"], {}),
        ("fit:seed-float", R, fit + ["--seed", "1.5"], {}),
        ("fit:plots-existing-file", R, fit + ["--plots", "p.png"], {"p.png": "mine"}),
        ("fit:plots-user-folder", R, fit + ["--plots", "mine"], {"mine/notes.txt": "keep me"}),
        ("fit:plots-empty-folder", A, fit + ["--plots", "mine"], {"mine": "DIR"}),  # documented: empty is taken
        ("fit:model-bogus", R, fit + ["--model", "7PL"], {}),
    ]
    dif = ["dif", "difr.csv", "--groups", "g"]
    difr = "g," + _csv([f"i{j}" for j in range(4)], [])[:-1] + "\n" + "".join(
        f"{'AB'[i % 2]},{i % 2},{(i // 2) % 2},{(i // 3) % 2},{(i // 5) % 2}\n" for i in range(40))
    c += [
        ("dif:groups-missing-column", R, ["dif", "difr.csv", "--groups", "zz"], {"difr.csv": difr}),
        ("dif:one-group", R, dif, {"difr.csv": difr.replace("B,", "A,")}),
        ("dif:items-typo", R, dif + ["--items", "i0,nope"], {"difr.csv": difr}),
        ("dif:which-bogus", R, dif + ["--which", "zz"], {"difr.csv": difr}),
        ("dif:p-adjust-bogus", R, dif + ["--p-adjust", "xx"], {"difr.csv": difr}),
        ("dif:file-missing", R, ["dif", "none.csv", "--groups", "g"], {}),
        ("dif:file-empty", R, dif, {"difr.csv": ""}),
        ("dif:model-bogus", R, dif + ["--model", "8PL"], {"difr.csv": difr}),
    ]
    rate = ["rate", "matches.csv"]
    bad_files(rate, 1, "rate", [
        ("missing-cols", "period,player,score\n1,a,1\n"),
        ("score-2", "period,player,opponent,score\n1,a,b,2\n"),
        ("score-nan", "period,player,opponent,score\n1,a,b,\n"),
        ("self-play", "period,player,opponent,score\n1,a,a,1\n"),
    ])
    c += [
        ("rate:tau-neg", R, rate + ["--tau", "-1"], {}),
        ("rate:tau-nan", R, rate + ["--tau", "nan"], {}),
        ("rate:tau-inf", R, rate + ["--tau", "inf"], {}),
        ("rate:tau-string", R, rate + ["--tau", "abc"], {}),
        ("rate:history-is-input", R, rate + ["--history", "matches.csv"], {}),
        ("rate:history-folder", R, rate + ["--history", "sub"], {"sub": "DIR"}),
        ("rate:bom", A, rate, {"matches.csv": "\ufeffperiod,player,opponent,score\n1,a,b,1\n1,b,c,0\n"}),
    ]
    hard = ["hardness", "hard.csv", "--label", "y", "--score", "m1"]
    bad_files(hard, 1, "hardness", [
        ("label-2", "y,m1\n0,0.2\n2,0.9\n1,0.5\n"),
        ("score-out-of-range", "y,m1\n0,0.2\n1,1.9\n1,0.5\n"),
        ("score-nan", "y,m1\n0,0.2\n1,\n1,0.5\n"),
    ])
    c += [
        ("hardness:label-missing-col", R, ["hardness", "hard.csv", "--label", "zz", "--score", "m1"], {}),
        ("hardness:score-missing-col", R, ["hardness", "hard.csv", "--label", "y", "--score", "zz"], {}),
        ("hardness:threshold-2", R, hard + ["--method", "sf", "--threshold", "2"], {}),
        ("hardness:threshold-nan", R, hard + ["--method", "sf", "--threshold", "nan"], {}),
        ("hardness:threshold-without-sf", R, hard + ["--threshold", "0.3"], {}),
        ("hardness:label-is-score", R, ["hardness", "hard.csv", "--label", "y", "--score", "y"], {}),
        ("hardness:id-missing-col", R, hard + ["--id", "zz"], {}),
        ("hardness:dup-id", R, hard + ["--id", "id"], {"hard.csv": "id,y,m1\na,0,0.2\na,1,0.9\nb,1,0.5\n"}),
    ]
    c += [
        ("ei:counts-neg", R, ["ei", "--tp", "-1", "--fp", "2", "--fn", "3", "--tn", "4"], {}),
        ("ei:counts-float", R, ["ei", "--tp", "1.5", "--fp", "2", "--fn", "3", "--tn", "4"], {}),
        ("ei:counts-nan", R, ["ei", "--tp", "nan", "--fp", "2", "--fn", "3", "--tn", "4"], {}),
        ("ei:counts-partial", R, ["ei", "--tp", "1", "--fp", "2"], {}),
        ("ei:counts-all-zero", R, ["ei", "--tp", "0", "--fp", "0", "--fn", "0", "--tn", "0"], {}),
        ("ei:nothing", R, ["ei"], {}),
        ("ei:both-file-and-counts", R, ["ei", "cases.csv", "--truth", "truth", "--score", "score",
                                        "--tp", "1", "--fp", "1", "--fn", "1", "--tn", "1"], {}),
        ("ei:level-0", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--level", "0"], {}),
        ("ei:level-1", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--level", "1"], {}),
        ("ei:level-95", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--level", "95"], {}),
        ("ei:correction-neg", R, ["ei", "--tp", "1", "--fp", "0", "--fn", "3", "--tn", "4",
                                  "--correction", "-0.5"], {}),
        ("ei:nboot-0", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--ci-method",
                           "bootstrap", "--n-boot", "0"], {}),
        ("ei:ci-method-bogus", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4",
                                   "--ci-method", "magic"], {}),
        ("ei:seed-neg", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--ci-method",
                            "bootstrap", "--seed", "-5"], {}),
        ("ei:truth-missing-col", R, ["ei", "cases.csv", "--truth", "zz", "--score", "score"], {}),
        ("ei:truth-not-01", R, ["ei", "c2.csv", "--truth", "truth", "--score", "score"],
         {"c2.csv": "truth,score\n0,0.1\n3,0.5\n1,0.7\n"}),
        ("ei:file-missing", R, ["ei", "none.csv", "--truth", "truth", "--score", "score"], {}),
        ("ei:file-folder", R, ["ei", "sub", "--truth", "truth", "--score", "score"], {"sub": "DIR"}),
        ("ei:out-is-input", R, ["ei", "cases.csv", "--truth", "truth", "--score", "score", "--out",
                                "cases.csv"], {}),
        ("ei:out-without-file", R, ["ei", "--tp", "1", "--fp", "2", "--fn", "3", "--tn", "4", "--out",
                                    "t.csv"], {}),
    ]
    mlc = ["mlc", "mlc.csv", "--target", "target", "--out", "mo"]
    c += [
        ("mlc:target-missing", R, ["mlc", "mlc.csv", "--target", "zz", "--out", "mo"], {}),
        ("mlc:classifier-bogus", R, mlc + ["--classifier", "deepnet"], {}),
        ("mlc:seed-neg", R, mlc + ["--seed", "-1"], {}),
        ("mlc:out-is-input", R, ["mlc", "mlc.csv", "--target", "target", "--out", "mlc.csv"], {}),
        ("mlc:out-user-folder", R, ["mlc", "mlc.csv", "--target", "target", "--out", "mine"],
         {"mine/notes.txt": "keep me"}),
        ("mlc:out-contains-input", R, ["mlc", "mlc.csv", "--target", "target", "--out", "."], {}),
        ("mlc:three-classes", R, mlc, {"mlc.csv": "f1,target\n" + "".join(f"{i},{i % 3}\n" for i in range(60))}),
        ("mlc:string-feature", R, mlc, {"mlc.csv": "f1,f2,target\n" + "".join(
            f"{i},x{i},{i % 2}\n" for i in range(60))}),
        ("mlc:file-missing", R, ["mlc", "none.csv", "--target", "target", "--out", "mo"], {}),
    ]
    port = ["portfolio", "perf.csv", "--model", "continuous", "--id", "dataset", "--out", "po"]
    c += [
        ("portfolio:bins-1", R, ["portfolio", "perf.csv", "--model", "polytomous", "--id", "dataset",
                                 "--bins", "1", "--out", "po"], {}),
        ("portfolio:bins-0", R, ["portfolio", "perf.csv", "--model", "polytomous", "--id", "dataset",
                                 "--bins", "0", "--out", "po"], {}),
        ("portfolio:min-above-max", R, port + ["--min", "1", "--max", "0"], {}),
        ("portfolio:min-wrong-count", R, port + ["--min", "0,0"], {}),
        ("portfolio:min-string", R, port + ["--min", "low"], {}),
        ("portfolio:epsilon-neg", R, port + ["--epsilon", "-1"], {}),
        ("portfolio:epsilon-nan", R, port + ["--epsilon", "nan"], {}),
        ("portfolio:id-missing", R, ["portfolio", "perf.csv", "--model", "continuous", "--id", "zz",
                                     "--out", "po"], {}),
        ("portfolio:out-user-folder", R, port[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("portfolio:out-is-input", R, port[:-1] + ["perf.csv"], {}),
        ("portfolio:scale-with-polytomous", R, ["portfolio", "perf.csv", "--model", "polytomous", "--id",
                                                "dataset", "--scale", "single", "--out", "po"], {}),
        ("portfolio:string-cell", R, port, {"perf.csv": "dataset,A,B\nd1,0.5,x\nd2,0.4,0.3\n"}),
        ("portfolio:file-empty", R, port, {"perf.csv": ""}),
    ]
    c += [
        ("batch:manifest-missing", R, ["batch", "none.json", "--scheduler", "serial"], {}),
        ("batch:manifest-empty", R, ["batch", "m.json", "--scheduler", "serial"], {"m.json": ""}),
        ("batch:manifest-not-json", R, ["batch", "m.json", "--scheduler", "serial"], {"m.json": "{units:"}),
        ("batch:manifest-bad-kind", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [{"id": "x", "kind": "teleport", "data": "hard.csv"}]})}),
        ("batch:manifest-dup-ids", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [
             {"id": "x", "kind": "hardness", "data": "hard.csv", "options": {"label": "y", "scores": ["m1"]}},
             {"id": "x", "kind": "hardness", "data": "hard.csv", "options": {"label": "y", "scores": ["m2"]}}]})}),
        ("batch:unit-data-missing", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [{"id": "x", "kind": "hardness", "data": "no.csv",
                                           "options": {"label": "y", "scores": ["m1"]}}]})}),
        ("batch:unit-column-typo", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [{"id": "x", "kind": "hardness", "data": "hard.csv",
                                           "options": {"label": "yy", "scores": ["m1"]}}]})}),
        ("batch:unit-unknown-option", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [{"id": "x", "kind": "hardness", "data": "hard.csv",
                                           "options": {"label": "y", "scores": ["m1"], "colour": 3}}]})}),
        ("batch:workers-0", R, ["batch", "manifest.json", "--workers", "0"], {}),
        ("batch:retries-neg", R, ["batch", "manifest.json", "--scheduler", "serial", "--retries", "-1"], {}),
        ("batch:out-user-folder", R, ["batch", "manifest.json", "--scheduler", "serial", "--out", "mine"],
         {"mine/notes.txt": "keep me"}),
        ("batch:out-is-manifest", R, ["batch", "manifest.json", "--scheduler", "serial", "--out",
                                      "manifest.json"], {}),
        ("batch:unit-id-path", R, ["batch", "m.json", "--scheduler", "serial"],
         {"m.json": json.dumps({"units": [{"id": "../../x", "kind": "hardness", "data": "hard.csv",
                                           "options": {"label": "y", "scores": ["m1"]}}]})}),
    ]
    bench = ["benchmark", "--datasets", "iris", "--quick", "--out", "bo"]
    c += [
        ("benchmark:dataset-unknown", R, ["benchmark", "--datasets", "nosuchset", "--out", "bo"], {}),
        ("benchmark:no-out", R, ["benchmark", "--datasets", "iris", "--quick"], {}),
        ("benchmark:test-fraction-0", R, bench + ["--test-fraction", "0"], {}),
        ("benchmark:test-fraction-1.5", R, bench + ["--test-fraction", "1.5"], {}),
        ("benchmark:max-items-0", R, bench + ["--max-items", "0"], {}),
        ("benchmark:tau-neg", R, bench + ["--tau", "-2"], {}),
        ("benchmark:tolerance-nan", R, bench + ["--tolerance", "nan"], {}),
        ("benchmark:order-bogus", R, bench + ["--order", "alphabetical"], {}),
        ("benchmark:pool-bogus", R, bench + ["--pool", "SVM,NotAModel"], {}),
        ("benchmark:jobs-0", R, bench + ["--jobs", "0"], {}),
        ("benchmark:seed-neg", R, bench + ["--seed", "-1"], {}),
        ("benchmark:paper-native", R, bench + ["--calibration", "paper", "--engine", "native"], {}),
        ("benchmark:csv-target-missing", R, ["benchmark", "--datasets", "mlc.csv:zz", "--out", "bo"], {}),
        ("benchmark:out-user-folder", R, bench[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("benchmark:max-train-0", R, bench + ["--max-train", "0"], {}),
    ]
    ev = ["evaluate", "--datasets", "iris", "--quick", "--out", "eo"]
    c += [
        ("evaluate:dataset-unknown", R, ["evaluate", "--datasets", "nosuch", "--out", "eo"], {}),
        ("evaluate:csv-missing", R, ["evaluate", "--datasets", "none.csv:target", "--out", "eo"], {}),
        ("evaluate:csv-target-missing", R, ["evaluate", "--datasets", "mlc.csv:zz", "--out", "eo"], {}),
        ("evaluate:jobs-0", R, ev + ["--jobs", "0"], {}),
        ("evaluate:jobs-neg", R, ev + ["--jobs", "-4"], {}),
        ("evaluate:max-items-neg", R, ev + ["--max-items", "-1"], {}),
        ("evaluate:seed-neg", R, ev + ["--seed", "-1"], {}),
        ("evaluate:paper-native", R, ev + ["--calibration", "paper", "--engine", "native"], {}),
        ("evaluate:out-user-folder", R, ev[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("evaluate:out-contains-input", R, ["evaluate", "--datasets", "ev/mlc.csv:target", "--out", "ev"],
         {"ev/mlc.csv": (("f1,target\n" + "".join(f"{i},{i % 2}\n" for i in range(60))))}),
        ("evaluate:out-is-file", R, ev[:-1] + ["f.txt"], {"f.txt": "mine"}),
    ]
    anc = ["anchors", "cal.json", "--k", "3"]
    c += [
        ("anchors:k-0", R, ["anchors", "cal.json", "--k", "0"], {}),
        ("anchors:k-neg", R, ["anchors", "cal.json", "--k", "-2"], {}),
        ("anchors:k-too-many", R, ["anchors", "cal.json", "--k", "500"], {}),
        ("anchors:k-float", R, ["anchors", "cal.json", "--k", "2.5"], {}),
        ("anchors:seed-neg", R, anc + ["--seed", "-1"], {}),
        ("anchors:cluster-without-responses", A, anc + ["--method", "cluster"], {}),
        ("anchors:cal-missing", R, ["anchors", "none.json", "--k", "3"], {}),
        ("anchors:cal-empty", R, ["anchors", "c.json", "--k", "3"], {"c.json": ""}),
        ("anchors:cal-not-json", R, ["anchors", "c.json", "--k", "3"], {"c.json": "items: [1,2]"}),
        ("anchors:cal-wrong-json", R, ["anchors", "c.json", "--k", "3"], {"c.json": json.dumps({"a": 1})}),
        ("anchors:cal-is-csv", R, ["anchors", "resp.csv", "--k", "3"], {}),
        ("anchors:cal-binary", R, ["anchors", "c.json", "--k", "3"], {"c.json": BIN}),
        ("anchors:out-is-input", R, anc + ["--out", "cal.json"], {}),
        ("anchors:responses-mismatch", R, anc + ["--method", "cluster", "--responses", "lb.csv",
                                                 "--id-column", "model"], {}),
        ("anchors:cal-bom-json", A, ["anchors", "calbom.json", "--k", "3"], {"calbom.json": "BOM:cal.json"}),
    ]
    est = ["estimate", "new.csv", "--calibration", "cal.json", "--anchors", "anchors.csv"]
    c += [
        ("estimate:no-calibration", R, ["estimate", "new.csv", "--anchors", "anchors.csv"], {}),
        ("estimate:anchors-unknown-item", R, ["estimate", "new.csv", "--calibration", "cal.json",
                                              "--anchors", "a2.csv"], {"a2.csv": "item\ni1\nzz\n"}),
        ("estimate:responses-non01", R, est, {"new.csv": "model,i1,i3,i5\nn1,1,5,1\n"}),
        ("estimate:responses-dup-model", R, est, {"new.csv": "model,i1,i3,i5\nn1,1,0,1\nn1,0,0,1\n"}),
        ("estimate:responses-no-answers", R, est, {"new.csv": "model,i1,i3,i5\nn1,,,\nn2,1,0,1\n"}),
        ("estimate:responses-missing-anchor", R, est, {"new.csv": "model,i1,i3\nn1,1,0\n"}),
        ("estimate:respondent-unknown", R, est + ["--respondent", "zz"], {}),
        ("estimate:folds-1", R, est + ["--validate", "resp.csv", "--folds", "1"], {}),
        ("estimate:folds-0", R, est + ["--validate", "resp.csv", "--folds", "0"], {}),
        ("estimate:out-is-input", R, est + ["--out", "new.csv"], {}),
        ("estimate:bank-and-calibration", R, ["estimate", "new.csv", "--bank", "tinyout/bank.json",
                                              "--calibration", "cal.json"], {}),
        ("estimate:bank-missing", R, ["estimate", "new.csv", "--bank", "none.json"], {}),
        ("estimate:bank-version-99", R, ["estimate", "new.csv", "--bank", "b99.json"], {"b99.json": "BANK:99"}),
        ("estimate:bank-b-huge", R, ["estimate", "new.csv", "--bank", "bh.json"], {"bh.json": "BANK:huge"}),
        ("estimate:threshold-nan", R, ["estimate", "new.csv", "--bank", "tinyout/bank.json", "--from",
                                       "pyirt", "--threshold", "nan"], {}),
        ("estimate:from-bogus", R, ["estimate", "new.csv", "--bank", "tinyout/bank.json", "--from", "xls"], {}),
        ("estimate:file-missing", R, ["estimate", "none.csv", "--calibration", "cal.json", "--anchors",
                                      "anchors.csv"], {}),
    ]
    ing = ["ingest", "pyirt"]
    pyirt = "\n".join(json.dumps({"subject_id": s, "responses": {"q1": 1, "q2": 0}}) for s in ("a", "b")) + "\n"
    c += [
        ("ingest:format-bogus", R, ["ingest", "xls", "x", "--out", "o.csv"], {"x": "DIR"}),
        ("ingest:path-missing", R, ing + ["none.jsonlines", "--out", "o.csv"], {}),
        ("ingest:no-out", R, ing + ["p.jsonlines"], {"p.jsonlines": pyirt}),
        ("ingest:out-is-input", R, ing + ["p.jsonlines", "--out", "p.jsonlines"], {"p.jsonlines": pyirt}),
        ("ingest:out-inside-input-folder", R, ["ingest", "lm-eval", "le", "--out", "le/out.csv"],
         {"le/x.txt": "x"}),
        ("ingest:pyirt-score-2-warns", A, ing + ["p.jsonlines", "--out", "o.csv"],
         {"p.jsonlines": json.dumps({"subject_id": "a", "responses": {"q1": 2, "q2": -1}}) + "\n"}),
        ("ingest:pyirt-bad-line", R, ing + ["p.jsonlines", "--out", "o.csv"], {"p.jsonlines": pyirt + "{oops\n"}),
        ("ingest:pyirt-empty", R, ing + ["p.jsonlines", "--out", "o.csv"], {"p.jsonlines": ""}),
        ("ingest:threshold-nan", R, ing + ["p.jsonlines", "--out", "o.csv", "--threshold", "nan"],
         {"p.jsonlines": pyirt}),
        ("ingest:trial-bogus", R, ["ingest", "helm", "x", "--out", "o.csv", "--trial", "many"], {"x": "DIR"}),
        ("ingest:epoch-0", R, ["ingest", "inspect", "x", "--out", "o.csv", "--epoch", "0"], {"x": "DIR"}),
        ("ingest:empty-folder", R, ["ingest", "lm-eval", "x", "--out", "o.csv"], {"x": "DIR"}),
        ("ingest:model-empty", R, ing + ["p.jsonlines", "--out", "o.csv", "--model", ""], {"p.jsonlines": pyirt}),
        ("ingest:item-id-bogus", R, ["ingest", "lm-eval", "x", "--out", "o.csv", "--item-id", "hash2"],
         {"x": "DIR"}),
    ]
    lb = ["leaderboard", "lb.csv", "--out", "lo"]
    bad_files(lb, 1, "leaderboard", [
        ("dup-models", "model,a,b,c\nm1,1,0,1\nm1,0,1,1\nm2,1,1,0\n"),
        ("non01", "model,a,b,c\nm1,1,0,3\nm2,0,1,1\nm3,1,1,0\n"),
        ("dup-items", "model,a,a,c\nm1,1,0,1\nm2,0,1,1\nm3,1,1,0\n"),
    ])
    c += [
        ("leaderboard:out-is-input-folder", R, ["leaderboard", "x/lb.csv", "--out", "x"],
         {"x/lb.csv": "COPY:lb.csv", "x/notes.txt": "keep"}),
        ("leaderboard:out-dot", R, ["leaderboard", "lb.csv", "--out", "."], {}),
        ("leaderboard:out-user-folder", R, lb[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("leaderboard:out-is-file", R, lb[:-1] + ["f.txt"], {"f.txt": "mine"}),
        ("leaderboard:top-0", R, lb + ["--top", "0"], {}),
        ("leaderboard:min-items-neg", R, lb + ["--min-items", "-1"], {}),
        ("leaderboard:min-models-0", R, lb + ["--min-models", "0"], {}),
        ("leaderboard:threshold-inf", R, lb + ["--threshold", "inf"], {}),
        ("leaderboard:from-bogus", R, lb + ["--from", "xls"], {}),
        ("leaderboard:id-column-missing", R, lb + ["--id-column", "zz"], {}),
        ("leaderboard:tiny-missing", R, lb + ["--tiny", "nodir"], {}),
        ("leaderboard:jsonlines-as-csv", R, ["leaderboard", "p.jsonlines", "--out", "lo", "--from", "matrix"],
         {"p.jsonlines": pyirt}),
    ]
    tiny = ["tiny", "lb.csv", "--k", "5", "--out", "to"]
    bad_files(tiny, 1, "tiny", [
        ("dup-models", "model,a,b,c\n" + "".join(f"m{i % 5},{i % 2},{(i // 2) % 2},1\n" for i in range(10))),
        ("six-models", "model," + ",".join(f"q{j}" for j in range(12)) + "\n" + "".join(
            f"m{i}," + ",".join(str((i + j) % 2) for j in range(12)) + "\n" for i in range(6))),
    ])
    c += [
        ("tiny:k-0", R, ["tiny", "lb.csv", "--k", "0", "--out", "to"], {}),
        ("tiny:k-neg", R, ["tiny", "lb.csv", "--k", "-5", "--out", "to"], {}),
        ("tiny:k-too-many", R, ["tiny", "lb.csv", "--k", "4000", "--out", "to"], {}),
        ("tiny:seed-neg", R, tiny + ["--seed", "-1"], {}),
        ("tiny:repeats-0", R, tiny + ["--repeats", "0"], {}),
        ("tiny:ncycles-0", R, tiny + ["--ncycles", "0"], {}),
        ("tiny:exclude-missing-file", R, tiny + ["--exclude", "none.csv"], {}),
        ("tiny:exclude-unknown-items", R, tiny + ["--exclude", "ex.csv"], {"ex.csv": "item\nzz\n"}),
        ("tiny:out-is-file", R, tiny[:-1] + ["f.txt"], {"f.txt": "mine"}),
        ("tiny:out-user-folder", R, tiny[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("tiny:out-contains-input", R, ["tiny", "y/lb.csv", "--k", "5", "--out", "y"],
         {"y/lb.csv": "COPY:lb.csv"}),
        ("tiny:out-readonly", R, tiny[:-1] + ["ro/t"], {"ro": "RODIR"}),
        ("tiny:documents-missing", R, tiny + ["--documents", "none.csv"], {}),
        ("tiny:method-bogus", R, tiny + ["--method", "magic"], {}),
    ]
    tp = ["twophase", "new.csv", "--bank", "tinyout/bank.json", "--model", "n1", "--out", "tpo"]
    c += [
        ("twophase:bank-missing", R, ["twophase", "new.csv", "--bank", "none.json", "--out", "tpo"], {}),
        ("twophase:n2-0", R, tp + ["--n2", "0"], {}),
        ("twophase:n2-neg", R, tp + ["--n2", "-3"], {}),
        ("twophase:floor-2", R, tp + ["--floor", "2"], {}),
        ("twophase:floor-neg", R, tp + ["--floor", "-0.1"], {}),
        ("twophase:floor-nan", R, tp + ["--floor", "nan"], {}),
        ("twophase:seed-neg", R, tp + ["--seed", "-1"], {}),
        ("twophase:model-unknown", R, tp[:4] + ["--model", "zz", "--out", "tpo"], {}),
        ("twophase:plan-missing", R, tp + ["--plan", "none.json"], {}),
        ("twophase:out-user-folder", R, tp[:-1] + ["mine"], {"mine/notes.txt": "keep me"}),
        ("twophase:bank-version-99", R, ["twophase", "new.csv", "--bank", "b99.json", "--model", "n1",
                                         "--out", "tpo"], {"b99.json": "BANK:99"}),
    ]
    c += [
        ("cli:unknown-command", R, ["teleport"], {}),
        ("cli:unknown-flag", R, ["rate", "matches.csv", "--colour", "red"], {}),
    ]
    c += [
        ("calibrate:bom-csv", A, cal, {"resp.csv": "BOM:resp.csv"}),
        ("calibrate:valid", A, cal, {}),
        ("hardness:valid", A, hard, {}),
        ("ei:valid", A, ["ei", "--tp", "10", "--fp", "2", "--fn", "3", "--tn", "20"], {}),
        ("anchors:valid", A, anc, {}),
        ("estimate:valid", A, est, {}),
        ("leaderboard:crlf", A, lb, {"lb.csv": "CRLF:lb.csv"}),
    ]
    return c


PY_CASES: list[tuple[str, str, str]] = [
    # (id, expect, python statement); `ib` is irtbridge, `pd`/`np` pandas/numpy, `X` a valid 0/1 frame
    ("py:calibrate-empty-frame", R, "ib.calibrate(pd.DataFrame(), engine='native')"),
    ("py:calibrate-strings", R, "ib.calibrate(X.astype(str).replace({'1': 'yes'}), engine='native')"),
    ("py:calibrate-model-bogus", R, "ib.calibrate(X, model='9PL', engine='native')"),
    ("py:calibrate-engine-bogus", R, "ib.calibrate(X, engine='stan')"),
    ("py:calibrate-dims-0", R, "ib.calibrate(X, dims=0)"),
    ("py:calibrate-seed-neg", R, "ib.calibrate(X, engine='native', seed=-1)"),
    ("py:calibrate-one-row", R, "ib.calibrate(X.iloc[:1], engine='native')"),
    ("py:calibrate-nan-all-col", R, "ib.calibrate(X.assign(i1=np.nan), engine='native')"),
    ("py:calibrate-inf", R, "ib.calibrate(X.astype(float).assign(i1=np.inf), engine='native')"),
    ("py:calibrate-list", A, "ib.calibrate([[1, 0], [0, 1]], engine='native')"),
    ("py:estimate_abilities-method", R, "ib.estimate_abilities(X, ITEMS, method='XYZ')"),
    ("py:estimate_abilities-quadrature-0", R, "ib.estimate_abilities(X, ITEMS, quadrature=0)"),
    ("py:estimate_abilities-bounds-reversed", R, "ib.estimate_abilities(X, ITEMS, bounds=(6, -6))"),
    ("py:estimate_abilities-prior-sd-neg", R, "ib.estimate_abilities(X, ITEMS, prior=(0, -1))"),
    ("py:estimate_abilities-items-mismatch", R, "ib.estimate_abilities(X[['i1', 'i2']].rename("
     "columns={'i1': 'zz'}), ITEMS)"),
    ("py:true_score-theta-nan", R, "ib.true_score([np.nan], ITEMS)"),
    ("py:glicko2-tau-neg", R, "ib.glicko2(MATCHES, tau=-1)"),
    ("py:glicko2-tau-nan", R, "ib.glicko2(MATCHES, tau=float('nan'))"),
    ("py:glicko2-init-rd-neg", R, "ib.glicko2(MATCHES, init=(1500, -1, 0.06))"),
    ("py:glicko2-tol-0", R, "ib.glicko2(MATCHES, tol=0)"),
    ("py:glicko2-missing-cols", R, "ib.glicko2(MATCHES.drop(columns='score'))"),
    ("py:efficiency-neg", R, "ib.efficiency_indices(-1, 2, 3, 4)"),
    ("py:efficiency-level", R, "ib.efficiency_indices(1, 2, 3, 4, level=1.5)"),
    ("py:efficiency-ci", R, "ib.efficiency_indices(1, 2, 3, 4, ci_method='magic')"),
    ("py:efficiency-nboot-0", R, "ib.efficiency_indices(1, 2, 3, 4, ci_method='bootstrap', n_boot=0)"),
    ("py:efficiency-float-count", R, "ib.efficiency_indices(1.5, 2, 3, 4)"),
    ("py:hardness-labels-2", R, "ib.instance_hardness([0, 2, 1], [0.1, 0.5, 0.9])"),
    ("py:hardness-length", R, "ib.instance_hardness([0, 1, 1], [0.1, 0.5])"),
    ("py:hardness-method", R, "ib.instance_hardness([0, 1, 1], [0.1, 0.5, 0.9], method='zz')"),
    ("py:hardness-threshold-nan", R, "ib.instance_hardness([0, 1, 1], [0.1, 0.5, 0.9], method='sf',"
     " threshold=float('nan'))"),
    ("py:hardness-score-out", R, "ib.instance_hardness([0, 1, 1], [0.1, 1.5, 0.9])"),
    ("py:portfolio-model", R, "ib.evaluate_portfolio(PERF, model='quantum')"),
    ("py:portfolio-epsilon-neg", R, "ib.evaluate_portfolio(PERF, epsilon=-1)"),
    ("py:portfolio-ngrid-0", R, "ib.evaluate_portfolio(PERF, n_grid=0)"),
    ("py:portfolio-convention", R, "ib.evaluate_portfolio(PERF, convention='x')"),
    ("py:long-nan-model", R, "ib.responses_from_long(pd.DataFrame({'model': ['a', np.nan], 'item': ['q', 'q'],"
     " 'score': [1, 0]}))"),
    ("py:long-inf-score", R, "ib.responses_from_long(pd.DataFrame({'model': ['a', 'b'], 'item': ['q', 'q'],"
     " 'score': [1, np.inf]}))"),
    ("py:long-missing-column", R, "ib.responses_from_long(pd.DataFrame({'model': ['a'], 'item': ['q']}))"),
    ("py:long-conflict", R, "ib.responses_from_long(pd.DataFrame({'model': ['a', 'a'], 'item': ['q', 'q'],"
     " 'score': [1, 0]}))"),
    ("py:select_anchors-k0", R, "ib.select_anchors(CAL, 0)"),
    ("py:select_anchors-kneg", R, "ib.select_anchors(CAL, -1)"),
    ("py:select_anchors-k-float", R, "ib.select_anchors(CAL, 2.5)"),
    ("py:select_anchors-k-too-many", R, "ib.select_anchors(CAL, 99)"),
    ("py:select_anchors-method", R, "ib.select_anchors(CAL, 2, method='zz')"),
    ("py:select_anchors-seed-neg", R, "ib.select_anchors(CAL, 2, seed=-1)"),
    ("py:select_anchors-seed-float", R, "ib.select_anchors(CAL, 2, method='random', seed=1.5)"),
    ("py:estimate_performance-unknown-anchor", R, "ib.estimate_performance(NEW, CAL, ['i1', 'zz'])"),
    ("py:estimate_performance-no-answers", R, "ib.estimate_performance(NEW.iloc[:, :0].assign(i1=np.nan), CAL,"
     " ['i1'])"),
    ("py:estimate_performance-non01", R, "ib.estimate_performance(NEW.replace(1, 7), CAL, ['i1', 'i3', 'i5'])"),
    ("py:validate_anchors-folds-1", R, "ib.validate_anchors(X, CAL, ['i1', 'i3'], folds=1)"),
    ("py:validate_anchors-seed-neg", R, "ib.validate_anchors(X, CAL, ['i1', 'i3'], seed=-1)"),
    ("py:adaptive-stop-neg", R, "ib.adaptive_evaluate(lambda i: 1, CAL, stop=-1)"),
    ("py:adaptive-selection", R, "ib.adaptive_evaluate(lambda i: 1, CAL, selection='zz')"),
    ("py:adaptive-min-gt-max-cap-wins", A, "ib.adaptive_evaluate(lambda i: 1, CAL, min_items=50, max_items=10)"),
    ("py:settings-max-items-0", R, "ib.Settings(max_items=0)"),
    ("py:settings-test-fraction", R, "ib.Settings(test_fraction=1.5)"),
    ("py:settings-calibration", R, "ib.Settings(calibration='x')"),
    ("py:settings-seed-neg", R, "ib.Settings(seed=-1)"),
    ("py:settings-tau-nan", R, "ib.Settings(tau=float('nan'))"),
    ("py:build_tiny-k0", R, "build_tiny(LB, 0)"),
    ("py:build_tiny-seed-neg", R, "build_tiny(LB, 5, seed=-1)"),
    ("py:build_tiny-method", R, "build_tiny(LB, 5, method='zz')"),
    # identical repeated rows count once (build_tiny's docstring, irtbridge/leaderboard/tiny.py, and issue 39's
    # one rule for every command); differing ones are refused (the next case)
    ("py:build_tiny-dup-models", A, "build_tiny(pd.concat([LB, LB]), 5)"),
    ("py:build_tiny-dup-models-differing", R, "build_tiny(pd.concat([LB, 1 - LB.iloc[:1]]), 5)"),
    ("py:load_tiny-none", R, "load_tiny(None)"),
    ("py:load_tiny-missing", R, "load_tiny('none.json')"),
    ("py:read_lm_eval-model-empty", R, "readers.read_lm_eval(LMEVAL, model='')"),
    ("py:read_lm_eval-metric-typo", R, "readers.read_lm_eval(LMEVAL, metric={'hellaswg': 'acc'})"),
    ("py:read_helm-perturbations-str", R, "readers.read_helm('x', perturbations='no')"),
    ("py:read_pyirt-missing", R, "readers.read_pyirt('none.jsonlines')"),
    ("py:simulate_cat-n0", R, "ib.simulate_cat(ITEMS, theta=[0.0], n_examinees=0)"),
    ("py:estimate_abilities-valid", A, "ib.estimate_abilities(X, ITEMS, model='2PL')"),
]

PY_DRIVER = r"""
import json, sys, time, traceback, warnings
import numpy as np, pandas as pd
import irtbridge as ib
from irtbridge.leaderboard import build_tiny, load_tiny, readers
warnings.simplefilter('ignore')
X = pd.read_csv('resp.csv')
LB = pd.read_csv('lb.csv', index_col=0)
NEW = pd.read_csv('new.csv', index_col=0)
MATCHES = pd.read_csv('matches.csv')
PERF = pd.read_csv('perf.csv', index_col=0)
CAL = ib.calibrate(X, engine='native')
ITEMS = CAL.items
LMEVAL = sys.argv[2]
out = []
for cid, code in json.loads(open(sys.argv[1]).read()):
    t0 = time.time()
    try:
        eval(code)
        out.append([cid, 'ok', '', time.time() - t0])
    except ValueError as e:
        out.append([cid, 'valueerror', str(e), time.time() - t0])
    except Exception as e:
        out.append([cid, 'exception', type(e).__name__ + ': ' + str(e) + '\n' + traceback.format_exc(),
                    time.time() - t0])
print(json.dumps(out))
"""

# ---------------------------------------------------------------------------------------------- running


def _materialise(case_dir: Path, base: Path, files: dict) -> None:
    for item in base.iterdir():
        dest = case_dir / item.name
        if item.is_dir():
            shutil.copytree(item, dest)
        else:
            shutil.copy2(item, dest)
    for name, content in files.items():
        p = case_dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if content in ("DIR", "RODIR"):
            if p.is_file():
                p.unlink()
            p.mkdir(exist_ok=True)
            if content == "RODIR":
                p.chmod(0o555)
        elif isinstance(content, str) and content.startswith(("COPY:", "BOM:", "CRLF:", "BANK:", "SEMI:")):
            kind, src = content.split(":", 1)
            if kind == "BANK":
                bank = json.loads((base / "tinyout" / "bank.json").read_text())
                if src == "99":
                    bank["version"] = 99
                else:
                    _spoil_numbers(bank)
                p.write_text(json.dumps(bank))
            else:
                text = (base / src).read_text()
                text = {"COPY": text, "BOM": "\ufeff" + text, "CRLF": text.replace("\n", "\r\n"),
                        "SEMI": text.replace(",", ";")}[kind]
                p.write_bytes(text.encode())
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def _spoil_numbers(obj) -> bool:
    """Set the first list of numbers named like a difficulty to 1e300 (a bank with an absurd parameter)."""
    if isinstance(obj, dict):
        for key, val in obj.items():
            if key in ("b", "d", "difficulty") and isinstance(val, list) and val:
                val[0] = 1e300
                return True
            if _spoil_numbers(val):
                return True
    elif isinstance(obj, list):
        return any(_spoil_numbers(v) for v in obj)
    return False


def _snapshot(folder: Path) -> dict:
    snap = {}
    for p in folder.rglob("*"):
        try:
            st = p.stat()
        except OSError:
            continue
        snap[str(p.relative_to(folder))] = (st.st_mtime_ns, st.st_size) if p.is_file() else "dir"
    return snap


def run_cli_case(case: tuple, base: Path, work: Path) -> dict:
    cid, expect, argv, files = case
    case_dir = work / cid.replace(":", "__")
    case_dir.mkdir()
    _materialise(case_dir, base, files)
    before = _snapshot(case_dir)
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    t0 = time.time()
    try:
        proc = subprocess.run([PY, "-m", "irtbridge", *argv], cwd=case_dir, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT, errors="replace")
        rc, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, "timeout"
    secs = time.time() - t0
    after = _snapshot(case_dir)
    written = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    for p in case_dir.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(case_dir, ignore_errors=True)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if rc == 0:
        cls = "accepted" if expect == A else "silent"
    elif expect == A:
        cls = "rejected"
    elif "Traceback" in err:
        cls = "crash"
    elif rc == 2 and len(lines) == 1:
        cls = "late" if (written or secs > LATE) else "refused"
    else:
        cls = "cryptic"
    print(f"{cls:9} {cid} {secs:.1f}s", file=sys.stderr, flush=True)
    return {"id": cid, "expect": expect, "class": cls, "exit": rc, "seconds": round(secs, 2),
            "stderr": err.strip()[-600:], "written": written[:5], "argv": argv}


def run_py_cases(base: Path, work: Path) -> list[dict]:
    case_dir = work / "python"
    case_dir.mkdir()
    _materialise(case_dir, base, {})
    (case_dir / "cases.json").write_text(json.dumps([[cid, code] for cid, _, code in PY_CASES]))
    (case_dir / "driver.py").write_text(PY_DRIVER)
    lm = ROOT / "tests" / "leaderboard" / "data" / "lm_eval"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([PY, "driver.py", "cases.json", str(lm)], cwd=case_dir, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT * 4)
    try:
        rows = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise SystemExit(f"the Python driver failed:\n{proc.stderr[-3000:]}")
    expect = {cid: e for cid, e, _ in PY_CASES}
    out = []
    for cid, status, msg, secs in rows:
        e = expect[cid]
        if status == "ok":
            cls = "accepted" if e == A else "silent"
        elif e == A:
            cls = "rejected"
        elif status == "valueerror" and "\n" not in msg.strip():
            cls = "late" if secs > LATE else "refused"
        elif status == "valueerror":
            cls = "cryptic"
        else:
            cls = "crash"
        out.append({"id": cid, "expect": e, "class": cls, "seconds": round(secs, 2), "stderr": msg[-600:]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print every case and the totals as JSON")
    ap.add_argument("--only", default="", help="run only the cases whose id contains one of these (comma-separated)")
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    ap.add_argument("--no-python", action="store_true", help="skip the Python API cases")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="irtb-hostile-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        build_fixtures(base)
        work = Path(tmp) / "work"
        work.mkdir()
        wanted = [w for w in args.only.split(",")]
        cases = [c for c in cli_cases() if any(w in c[0] for w in wanted)]
        if os.geteuid() == 0:  # root writes into a read-only folder: those cases test nothing here
            cases = [c for c in cases if "RODIR" not in c[3].values()]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda c: run_cli_case(c, base, work), cases))
        if not args.no_python and (not args.only or any(w.startswith("py") for w in wanted)):
            results += run_py_cases(base, work)
    refuse = [r for r in results if r["expect"] == R]
    good = [r for r in refuse if r["class"] == "refused"]
    counts: dict[str, int] = {}
    for r in results:
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    pct = 100.0 * len(good) / max(1, len(refuse))
    failures = [r for r in results if r["class"] not in ("refused", "accepted")]
    if args.json:
        print(json.dumps({"cases": len(results), "refuse_cases": len(refuse), "refused": len(good),
                          "percent": round(pct, 1), "counts": counts, "failures": failures,
                          "results": results}, indent=1))
    else:
        for r in failures:
            print(f"{r['class']:9} {r['id']:45} exit={r.get('exit')} {r['seconds']}s  "
                  f"{(r['stderr'].strip().splitlines() or [''])[-1][:160]}")
        print(f"\n{len(results)} cases ({len(refuse)} to refuse): {counts}")
        print(f"one-line error before any work: {len(good)}/{len(refuse)} = {pct:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())

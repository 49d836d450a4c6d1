"""irtbridge measured against mirt's own test suite (issue 26, item 4).

For every file of mirt's ``tests/testthat`` (mirt 1.48's source, github.com/philchalmers/mirt) the
registry (``cases.py``, ``cases2.py`` beside this file) holds cases: a call taken from that
test, written once as R (run here in the embedded R, mirt attached) and once through irtbridge's public
API, with the route the Python side takes (first-class, passthrough, not expressible). Each case is run
both ways and the numbers compared (default 1e-8, relative and absolute; a case states a looser
tolerance only when the test itself does).

Usage::

    python -m tests.conformance.runner                 # markdown tables on stdout, progress on stderr
    python -m tests.conformance.runner -k 00-basics    # only cases whose file or name contains the text
    python -m tests.conformance.runner --write-docs    # also replace the block in docs/coming-from-r.md

(from the repository's root). ``test_mirt_conformance.py`` beside it runs a few representative cases as
tests (marker ``conformance``).

The R snippets are fixed text in the registry (no data crosses from Python into R source); rpy2 is used
directly only here, to run them, as the live-R tests do.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DOC = HERE.parents[1] / "docs" / "coming-from-r.md"
BEGIN, END = "<!-- mirt-testsuite:begin -->", "<!-- mirt-testsuite:end -->"
TEST_FILES = ("00-basics", "01-mirtOne", "02-mirtTwo", "03-bfactor", "04-multipleGroup", "05-confmirtOne",
              "06-confmirtTwo", "07-mixedmirt", "08-createItem", "09-mirt.model", "10-extras", "11-discrete",
              "12-gpcm_mats", "13-grsmIRT", "14-unfolding", "15-IRTpars", "16-DCIRT", "17-DIF_DRF", "18-LLTM",
              "19-PIRT")
GOAL_EXPRESSIBLE, GOAL_FIRST = 0.90, 0.75


def load_cases() -> list:
    from . import cases, cases2  # noqa: F401  (cases2 registers the second half)

    return cases.CASES


@dataclass(frozen=True)
class Result:
    case: object
    status: str  # equal, different, error, not expressible
    detail: str = ""
    seconds: float = 0.0


_R_SETUP = """
suppressPackageStartupMessages(library(mirt))
if (!exists('mts_memo')) mts_memo <- local({
  cache <- new.env()
  function(key, value) {
    if (!exists(key, envir = cache, inherits = FALSE)) assign(key, value, envir = cache)
    get(key, envir = cache)
  }
})
"""


def _r(code: str):
    import rpy2.robjects as ro

    return ro.r(code)


def r_value(code: str) -> np.ndarray:
    """The numeric vector an R snippet ends with, evaluated in its own local environment."""
    _r(_R_SETUP)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = _r(f"as.double(local({{\n{code}\n}}))")  # column-major, NA as NaN
        return np.array(value, dtype=float, copy=True)  # copied while ``value`` keeps R's memory alive


def py_value(case) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(case.py(), dtype=float).ravel()


def run_case(case) -> Result:
    from .cases import NONE

    if case.route == NONE:
        return Result(case, "not expressible", case.note)
    started = time.perf_counter()
    try:
        expected = r_value(case.r)
    except Exception as exc:  # the R snippet itself failed: a defect of the registry, shown as such
        return Result(case, "error", f"R snippet: {_one_line(exc)}", time.perf_counter() - started)
    try:
        got = py_value(case)
    except Exception as exc:
        return Result(case, "error", f"{type(exc).__name__}: {_one_line(exc)}", time.perf_counter() - started)
    seconds = time.perf_counter() - started
    if got.shape != expected.shape:
        return Result(case, "different", f"{got.size} numbers, R gives {expected.size}", seconds)
    if np.allclose(got, expected, rtol=case.tol, atol=case.tol, equal_nan=True):
        return Result(case, "equal", "", seconds)
    both = np.isfinite(got) & np.isfinite(expected)
    worst = float(np.max(np.abs(got[both] - expected[both]))) if both.any() else float("nan")
    nan_mismatch = int(np.sum(np.isnan(got) != np.isnan(expected)))
    detail = f"max abs diff {worst:.3g}" + (f", {nan_mismatch} NaN mismatches" if nan_mismatch else "")
    return Result(case, "different", detail, seconds)


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:160] + ("..." if len(text) > 160 else "")


def _share(n: int, total: int) -> str:
    return f"{n} ({100 * n / total:.0f}%)" if total else "0"


def summary_table(results: list[Result]) -> tuple[str, dict]:
    from .cases import FIRST, NONE, PASS

    lines = ["| test file | cases | expressible | equal | first-class | passthrough | not expressible |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    totals = dict(cases=0, expressible=0, equal=0, first=0, passthrough=0, none=0)
    for stem in TEST_FILES:
        rows = [r for r in results if r.case.file == f"test-{stem}.R"]
        if not rows:
            continue
        counts = dict(cases=len(rows), expressible=sum(r.case.route != NONE for r in rows),
                      equal=sum(r.status == "equal" for r in rows), first=sum(r.case.route == FIRST for r in rows),
                      passthrough=sum(r.case.route == PASS for r in rows),
                      none=sum(r.case.route == NONE for r in rows))
        for k, v in counts.items():
            totals[k] += v
        lines.append(f"| test-{stem}.R | {counts['cases']} | {counts['expressible']} | {counts['equal']} | "
                     f"{counts['first']} | {counts['passthrough']} | {counts['none']} |")
    n = totals["cases"]
    lines.append(f"| **total** | **{n}** | **{_share(totals['expressible'], n)}** | **{_share(totals['equal'], n)}** | "
                 f"**{_share(totals['first'], n)}** | **{_share(totals['passthrough'], n)}** | "
                 f"**{_share(totals['none'], n)}** |")
    return "\n".join(lines), totals


def detail_table(results: list[Result]) -> str:
    lines = ["| test file | case | route | result | note |", "|---|---|---|---|---|"]
    for r in results:
        note = "; ".join(x for x in (r.detail if r.status != "not expressible" else "", r.case.note) if x)
        tol = "" if r.case.tol == 1e-8 else f" (tol {r.case.tol:g})"
        lines.append(f"| {r.case.file} | {r.case.name} | {r.case.route} | {r.status}{tol} | {note.replace('|', '/')} |")
    return "\n".join(lines)


def goals(results: list[Result], totals: dict) -> str:
    n = totals["cases"]
    files = {r.case.file for r in results}
    all_files = all(f"test-{s}.R" in files for s in TEST_FILES)
    expressible = totals["expressible"] / n
    first = totals["first"] / n
    different = sum(r.status == "different" for r in results)
    errors = sum(r.status == "error" for r in results)

    def mark(ok: bool) -> str:
        return "met" if ok else "**not met**"

    return "\n".join([
        f"- every test file represented ({len(files)} of {len(TEST_FILES)}): {mark(all_files)}",
        f"- at least {GOAL_EXPRESSIBLE:.0%} of cases expressible: {expressible:.0%}, {mark(expressible >= GOAL_EXPRESSIBLE)}",
        f"- at least {GOAL_FIRST:.0%} through first-class wrappers: {first:.0%}, {mark(first >= GOAL_FIRST)}",
        f"- of the {totals['expressible']} expressible cases, {totals['equal']} equal mirt run directly, "
        f"{different} differ and {errors} raise an error (listed below)",
    ])


def report(results: list[Result], mirt_version: str) -> str:
    table, totals = summary_table(results)
    return "\n".join([
        f"Generated by `python -m tests.conformance.runner --write-docs` (mirt {mirt_version}; cases from "
        "`tests/testthat/test-*.R` of mirt's source). Each case is one call from that test, run in R and "
        "through irtbridge's public API; *equal* means every number agrees to 1e-8 (relative and absolute) "
        "unless the row states a tolerance. Routes: *first-class* uses only irtbridge's own functions, "
        "methods and documented arguments; *passthrough* needs at least one `irtbridge.mirt.<function>` "
        "call; *not expressible* cases are not run. Simulated test data are drawn again by `simdata` with "
        "the same seed on both sides (tests/conformance/data.py).",
        "",
        table,
        "",
        "Goals (issue 26):",
        "",
        goals(results, totals),
        "",
        "<details><summary>Every case</summary>",
        "",
        detail_table(results),
        "",
        "</details>",
    ])


def write_docs(text: str, path: Path = DOC) -> None:
    doc = path.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _: block, doc)
    else:
        doc = doc.rstrip("\n") + "\n\n## mirt's own test suite, through irtbridge\n\n" + block + "\n"
    path.write_text(doc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="only", action="append",
                        help="run only cases whose file or name contains this text (repeatable)")
    parser.add_argument("--write-docs", action="store_true", help=f"replace the marked block in {DOC.name}")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    cases = load_cases()
    if args.only:
        cases = [c for c in cases if any(k in c.file or k in c.name for k in args.only)]
    if args.list:
        for c in cases:
            print(f"{c.file}\t{c.route}\t{c.name}")
        return 0
    results = []
    for c in cases:
        with contextlib.redirect_stdout(sys.stderr):  # R's console (progress bars, printed tables) is not the report
            result = run_case(c)
        results.append(result)
        print(f"{result.seconds:7.1f}s  {result.status:15s} {c.file} :: {c.name}  {result.detail}",
              file=sys.stderr, flush=True)
    version = str(_r("as.character(packageVersion('mirt'))")[0]) if results else "?"
    text = report(results, version)
    print(text)
    if args.write_docs:
        if args.only:
            parser.error("--write-docs needs the whole registry (drop -k)")
        write_docs(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

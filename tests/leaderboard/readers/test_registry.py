"""The reader registry: every row is detected on its fixture, reads it into the long table, and is offered by
`ingest` and every command's `--from` (a new row is tested the moment it exists: add its fixture to FIXTURES)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import pytest

from irtbridge.cli import build_parser, main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.readers.registry import FORMAT_NAMES, READERS, detect_format, read_format

DATA = Path(__file__).parents[1] / "data"
# one real (or schema-true) fixture per row; a row without one fails test_every_row_has_a_fixture
FIXTURES = {
    "lm-eval": DATA / "lm_eval",
    "helm": DATA / "helm",
    "pyirt": DATA / "pyirt" / "responses.jsonlines",
    "inspect": DATA / "inspect",
    "open-llm-leaderboard": DATA / "open_llm_leaderboard" / "v2",
    "opencompass": DATA / "opencompass",
}
NEEDS_R = {"open-llm-leaderboard"}  # parquet through nanoparquet where pyarrow is absent
NO_FIXTURE_FILE = {"lighteval": "its committed details are Git LFS pointers; tested in test_readers_details.py"}


def test_every_row_has_a_fixture():
    assert set(FIXTURES) | set(NO_FIXTURE_FILE) == set(READERS)


def _params():
    return [pytest.param(n, marks=pytest.mark.r) if n in NEEDS_R else n for n in FIXTURES]


@pytest.mark.parametrize("name", _params())
def test_row_detects_and_reads_its_fixture(name):
    fixture = FIXTURES[name]
    assert detect_format([fixture]) == name
    with pytest.warns() if name == "inspect" else _nothing():
        table = read_format(name, [fixture])
    assert list(table.columns[:4]) == ["model", "task", "item", "score"]
    assert len(table) and not table.duplicated(["model", "item"]).any()
    assert table["score"].between(0, 1).all()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_ingest_and_from_take_their_choices_from_the_registry():
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    ingest = subs.choices["ingest"]
    fmt = next(a for a in ingest._actions if a.dest == "format")
    assert tuple(fmt.choices) == FORMAT_NAMES
    for command, fixed in (("leaderboard", ("auto", "matrix", "long")), ("tiny", ("csv",)), ("estimate", ("csv",))):
        option = next(a for a in subs.choices[command]._actions if a.dest == "source")
        assert tuple(option.choices) == fixed + FORMAT_NAMES


def test_unknown_option_of_a_row_is_one_line():
    with pytest.raises(ValidationError, match="--split is not an option of the inspect reader"):
        read_format("inspect", [FIXTURES["inspect"]], split="test")


def test_ingest_inspect(tmp_path, capsys):
    out = tmp_path / "long.csv"
    assert main(["ingest", "inspect", str(FIXTURES["inspect"]), "--epoch", "1", "--out", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    table = pd.read_csv(out)
    assert info["format"] == "inspect" and info["rows"] == len(table) == 7
    assert main(["ingest", "inspect", str(FIXTURES["inspect"]), "--split", "x", "--out", str(out)]) == 2
    assert "--split is not an option of `ingest inspect`" in capsys.readouterr().err


def test_ingest_opencompass_and_list_metrics_where_a_row_has_none(tmp_path, capsys):
    out = tmp_path / "long.csv"
    assert main(["ingest", "opencompass", str(FIXTURES["opencompass"]), "--out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 14
    assert main(["ingest", "opencompass", str(FIXTURES["opencompass"]), "--list-metrics"]) == 2
    assert "--list-metrics is not an option of `ingest opencompass`" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_line_names_the_formats_without_loading_the_readers():
    import subprocess
    import sys

    code = ("import sys; from irtbridge.cli import build_parser; build_parser(); "
            "print(any(m.startswith('irtbridge.leaderboard') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"

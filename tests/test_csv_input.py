"""Reading CSV input: the rough edges found by trying bad files (duplicate headers, semicolons, tabs)."""

from __future__ import annotations

import pandas as pd
import pytest

from irtbridge._validation import read_csv
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError


def test_duplicate_column_names_are_named(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("a,b,a,c,c\n1,0,1,0,1\n0,1,1,1,0\n")
    with pytest.raises(ValidationError, match=r"repeats column name\(s\) 'a', 'c'"):
        read_csv(path, "responses")


def test_semicolon_file_is_read_as_such(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("i0;i1;score\n1;0;0,5\n0;1;1,25\n")
    frame = read_csv(path)
    assert list(frame.columns) == ["i0", "i1", "score"]
    assert frame["score"].tolist() == [0.5, 1.25]
    assert frame["i0"].tolist() == [1, 0]


def test_tab_file_is_read_as_such(tmp_path):
    path = tmp_path / "tab.csv"
    path.write_text("i0\ti1\n1\t0\n0\t1\n")
    assert read_csv(path).shape == (2, 2)


def test_comma_file_with_semicolons_in_values_stays_comma(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text('name,x\n"a;b",1\n"c",2\n')
    frame = read_csv(path)
    assert frame["name"].tolist() == ["a;b", "c"]


def test_cli_reports_duplicates_in_one_line(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    pd.DataFrame([[1, 0, 1], [0, 1, 0]]).to_csv(path, index=False, header=["q1", "q2", "q1"])
    assert main(["calibrate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'q1'" in err and "dup.csv" in err

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


# -- the decimal mark is read from the numbers, not guessed from the delimiter (issue 34 item 4) ---------
DIALECTS = {  # name -> (file text, the numbers pandas must read in column "x")
    "semicolon, dot decimals": ("i0;x\n1;0.5\n0;1.25\n1;-2e-1\n", [0.5, 1.25, -0.2]),
    "semicolon, comma decimals": ("i0;x\n1;0,5\n0;1,25\n1;-,5\n", [0.5, 1.25, -0.5]),
    "comma, dot decimals": ("i0,x\n1,0.5\n0,1.25\n1,3\n", [0.5, 1.25, 3.0]),
    "tab, dot decimals": ("i0\tx\n1\t0.5\n0\t1.25\n1\t3\n", [0.5, 1.25, 3.0]),
    "tab, comma decimals": ("i0\tx\n1\t0,5\n0\t1,25\n1\t3\n", [0.5, 1.25, 3.0]),
    "semicolon, integers only": ("i0;x\n1;2\n0;3\n1;4\n", [2.0, 3.0, 4.0]),
}


@pytest.mark.parametrize("name", list(DIALECTS))
def test_decimal_mark_is_read_from_the_numbers(tmp_path, name):
    text, expected = DIALECTS[name]
    path = tmp_path / "data.csv"
    path.write_text(text)
    frame = read_csv(path, "responses")
    assert list(frame.columns) == ["i0", "x"]
    assert pd.api.types.is_numeric_dtype(frame["x"])
    assert frame["x"].tolist() == pytest.approx(expected)
    assert frame["i0"].tolist() == [1, 0, 1]


def test_mixed_decimal_marks_are_one_line_naming_both(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("i0;x;y\n1;0.5;2\n0;1;0,25\n")
    with pytest.raises(ValidationError) as info:
        read_csv(path, "responses")
    message = str(info.value)
    assert "\n" not in message
    assert "line 2, column 'x'" in message and "line 3, column 'y'" in message


def test_hardness_cli_reads_semicolon_dot_decimals(tmp_path, capsys):
    """`irtbridge hardness` on a semicolon file with dot decimals: read as numbers (on main: 'non-numeric')."""
    path = tmp_path / "semi_dot.csv"
    rows = ["model;instance;score"] + [f"m{m};i{i};0.{(m * 7 + i * 3) % 10}" for m in range(4) for i in range(6)]
    path.write_text("\n".join(rows) + "\n")
    frame = read_csv(path, "hardness input")
    assert frame["score"].dtype.kind == "f" and frame["score"].iloc[1] == pytest.approx(0.3)

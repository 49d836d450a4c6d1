"""Key scoring (issue 26, item 3): ``score_key`` against mirt's ``key2binary`` on mirt's raw SAT12 answers,
and ``irtbridge calibrate --key`` against ``mirt(key2binary(SAT12, key))``, both computed by
tests/r/reference_keys.R. Scoring is exact (0/1/NA); the fit agrees to 1e-8 (the same EM on the same data).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.calibration import score_key
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("keys")
    paths = [tmp / "ref.json", tmp / "raw.csv", tmp / "letters.csv"]
    run_r(["Rscript", str(HERE / "r" / "reference_keys.R"), *map(str, paths)], check=True)
    return {"json": json.loads(paths[0].read_text()), "raw_csv": paths[1], "letters_csv": paths[2],
            "raw": pd.read_csv(paths[1]), "letters": pd.read_csv(paths[2], keep_default_na=False, na_values=[""])}


def _equal(scored: pd.DataFrame, expected: dict) -> None:
    """Every cell equals key2binary's, NA where R has NA."""
    assert list(scored.columns) == list(expected)
    want = pd.DataFrame({k: [np.nan if v is None else float(v) for v in col] for k, col in expected.items()})
    np.testing.assert_array_equal(scored.to_numpy(), want.to_numpy())


@pytest.mark.r
def test_raw_sat12_equals_key2binary(ref):
    key = ref["json"]["key"]
    assert key == [1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5]
    _equal(score_key(ref["raw"], key), ref["json"]["raw"])
    _equal(score_key(ref["raw"], key, missing=8), ref["json"]["missing8"])
    _equal(score_key(ref["raw"], key, missing=[8], score_missing=True), ref["json"]["score_missing"])
    assert score_key(ref["raw"], key, missing=8).isna().sum().sum() == (ref["raw"] == 8).sum().sum() > 0


@pytest.mark.r
def test_mapping_letters_and_several_correct_answers(ref):
    key = ref["json"]["key"]
    columns = list(ref["raw"].columns)
    by_item = dict(zip(reversed(columns), reversed(key)))  # order of a mapping does not matter
    _equal(score_key(ref["raw"], by_item, missing=8), ref["json"]["missing8"])
    _equal(score_key(ref["raw"], pd.Series(key, index=columns), missing=8), ref["json"]["missing8"])
    _equal(score_key(ref["letters"], ["ABCDE"[k - 1] for k in key]), ref["json"]["letters"])
    _equal(score_key(ref["raw"], [[1, 2], *key[1:]], missing=8), ref["json"]["two_keys"])
    arr = score_key(ref["raw"].to_numpy(), key, missing=8)  # numpy in, numpy out
    assert isinstance(arr, np.ndarray)
    np.testing.assert_array_equal(arr, score_key(ref["raw"], key, missing=8).to_numpy())


@pytest.mark.r
@pytest.mark.parametrize("key_form", ["list", "file_rows", "file_items"])
def test_cli_key_scores_then_calibrates_like_mirt(ref, key_form, tmp_path, capsys):
    key = ref["json"]["key"]
    columns = list(ref["raw"].columns)
    if key_form == "list":
        spec = ",".join(map(str, key))
    else:
        path = tmp_path / "key.csv"
        path.write_text(",".join(map(str, key)) + "\n" if key_form == "file_rows" else
                        "item,key\n" + "".join(f"{c},{k}\n" for c, k in zip(columns, key)))
        spec = str(path)
    assert main(["calibrate", str(ref["raw_csv"]), "--key", spec, "--missing-codes", "8", "--no-se", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = ref["json"]["fit"]
    assert out["loglik"] == pytest.approx(expected["loglik"], abs=1e-8)
    for col in ("a", "b"):
        np.testing.assert_allclose([r[col] for r in out["items"]], expected["items"][col], rtol=0, atol=1e-8)
    assert [r["item"] for r in out["items"]] == columns


def test_bad_keys_are_one_line_errors():
    answers = pd.DataFrame({"q1": [1, 2], "q2": [3, 3]})
    cases = [([1], "key: 1 key(s) for 2 items"), ({"q1": 1, "q3": 2}, "key: unknown item(s) 'q3'"),
             ({"q1": 1}, "key: no key for item(s) 'q2'"), ("13", "key must be a sequence"),
             ([1, None], "key of item 'q2' is missing"), ([1, []], "key of item 'q2' is empty"),
             ([1, "C"], "key of item 'q2' is 'C', but the item's answers are numbers")]
    for key, match in cases:
        with pytest.raises(ValidationError, match=re.escape(match)) as info:
            score_key(answers, key)
        assert "\n" not in str(info.value)
    with pytest.raises(ValidationError, match="responses must be a DataFrame or a 2-D array"):
        score_key([[1, 2]], [1, 2])
    with pytest.raises(ValidationError, match="key: unknown item"):  # an array has no item names
        score_key(answers.to_numpy(), {"q1": 1, "q2": 3})


def test_answers_compare_as_numbers_when_both_read_as_numbers():
    answers = pd.DataFrame({"q1": ["4", "4.0", "A", None], "q2": [4.0, 1.0, np.nan, 8.0]})
    scored = score_key(answers, [4, "4"], missing="8")
    np.testing.assert_array_equal(scored.to_numpy(), [[1, 1], [1, 0], [0, np.nan], [np.nan, np.nan]])
    assert list(scored.index) == list(answers.index)


def test_cli_bad_key_exits_2(tmp_path, capsys):
    path = tmp_path / "answers.csv"
    path.write_text("q1,q2\n1,2\n2,2\n")
    assert main(["calibrate", str(path), "--key", "1,2,3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "key: 3 key(s) for 2 items" in err
    assert main(["calibrate", str(path), "--key", "missing.csv"]) == 2
    assert "--key file 'missing.csv' does not exist" in capsys.readouterr().err
    assert main(["calibrate", str(path), "--missing-codes", "8"]) == 2
    assert "--missing-codes is for raw answers scored with --key" in capsys.readouterr().err

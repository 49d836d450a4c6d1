"""`irtbridge portfolio` from the command line."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import DataWarning
from irtbridge.portfolio import airt_performance
from tests._cli import status

ALGORITHM_KEYS = ["algorithm", "discrimination", "anomalous", "stability", "goodness_auc",
                  "effectiveness_auc_actual", "effectiveness_auc_predicted"]
# Kandanaarachchi & Smith-Miles (2020): latent_trait_analysis(classification_cts, epsilon = 0)$strengths$proportions
SEED_OCCUPANCY = {"J48": 0.472, "RBF_SVM": 0.340, "L_SVM": 0.119, "KNN": 0.0553, "poly_SVM": 0.0128}


@pytest.fixture(scope="module")
def cts_csv(tmp_path_factory):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        data = airt_performance("classification_cts")
    data.index = [f"d{i:03d}" for i in range(len(data))]
    path = tmp_path_factory.mktemp("cli") / "cts.csv"
    data.to_csv(path, index_label="dataset")
    return path


@pytest.mark.r
def test_continuous_json_contract_and_files(cts_csv, tmp_path, capsys):
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        code = main(["portfolio", str(cts_csv), "--model", "continuous", "--min", "0", "--max", "1",
                     "--out", str(out), "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["algorithms", "occupancy"]
    assert all(list(row) == ALGORITHM_KEYS for row in doc["algorithms"])
    assert [r["algorithm"] for r in doc["algorithms"]][:3] == ["NB", "LDA", "QDA"]
    assert all(isinstance(r["anomalous"], bool) for r in doc["algorithms"])
    assert all(list(row) == ["algorithm", "proportion"] for row in doc["occupancy"])
    occ = {r["algorithm"]: r["proportion"] for r in doc["occupancy"]}
    assert list(occ) == list(SEED_OCCUPANCY)
    for name, value in SEED_OCCUPANCY.items():  # printed to 3 significant digits
        assert occ[name] == pytest.approx(value, abs=5e-4 if value > 0.1 else 5e-5)
    for name in ("algorithms.csv", "datasets.csv", "predicted.csv", "occupancy.csv", "goodness_curves.csv",
                 "effectiveness_curves.csv", "latent_curves.csv", "strengths.csv", "weaknesses.csv",
                 "portfolio.json", "summary.txt", "crm_heatmaps.png", "strengths_weaknesses.png",
                 "goodness_curves.png", "effectiveness_auc.png"):
        assert (out / name).stat().st_size > 0, name
    assert json.loads((out / "portfolio.json").read_text()) == doc
    datasets = pd.read_csv(out / "datasets.csv", index_col="dataset")
    assert datasets.index[0] == "d000" and list(datasets.columns) == ["easiness", "theta", "se"]
    table = pd.read_csv(out / "algorithms.csv", index_col="algorithm")
    np.testing.assert_allclose(table["goodness_auc"], [r["goodness_auc"] for r in doc["algorithms"]], rtol=1e-12)


@pytest.mark.r
def test_polytomous_with_bins_text_output(cts_csv, tmp_path, capsys):
    out = tmp_path / "poly"
    code = main(["portfolio", str(cts_csv), "--model", "polytomous", "--bins", "5", "--out", str(out),
                 "--no-figures", "--convention", "airt"])
    assert code == 0
    text = capsys.readouterr().out
    assert "gpcm model (mirt)" in text and "convention 'airt'" in text and "QDA" in text
    table = pd.read_csv(out / "algorithms.csv", index_col="algorithm")
    # Kandanaarachchi & Smith-Miles's goodness table for QDA and NB (bins of classification_cts = classification_poly); airt's
    # convention reproduces these two exactly (printed to 7 decimals)
    assert table.loc["QDA", "goodness_auc"] == pytest.approx(0.7962766, abs=1e-6)
    assert table.loc["NB", "goodness_auc"] == pytest.approx(0.9590426, abs=1e-6)
    assert not list(out.glob("*.png"))


def _run_bad(tmp_path, capsys, content: str, *extra: str) -> str:
    path = tmp_path / "in.csv"
    path.write_text(content)
    code = main(["portfolio", str(path), "--model", "continuous", "--out", str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def _csv(n=12, m=3, value=None) -> str:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.uniform(0.2, 0.9, size=(n, m)), columns=[f"A{j}" for j in range(m)])
    if value is not None:
        frame.iloc[2, 1] = value
    return frame.to_csv(index=False)


def test_value_outside_bounds_exits_2(tmp_path, capsys):
    err = _run_bad(tmp_path, capsys, _csv(value=1.5), "--min", "0", "--max", "1")
    assert "above the bound max_item" in err and "'A1'" in err


def test_non_numeric_exits_2(tmp_path, capsys):
    frame = pd.read_csv(io.StringIO(_csv())).assign(A1="fast")
    err = _run_bad(tmp_path, capsys, frame.to_csv(index=False))
    assert "non-numeric" in err


def test_too_few_algorithms_exits_2(tmp_path, capsys):
    assert "at least 2" in _run_bad(tmp_path, capsys, _csv(m=1))


def test_too_few_datasets_exits_2(tmp_path, capsys):
    assert "at least 10" in _run_bad(tmp_path, capsys, _csv(n=4))


def test_missing_file_exits_2(tmp_path, capsys):
    code = status(["portfolio", str(tmp_path / "nope.csv"), "--model", "continuous", "--out", str(tmp_path)])
    assert code == 2 and "does not exist" in capsys.readouterr().err


def test_bad_bound_list_exits_2(tmp_path, capsys):
    assert "2 values for 3 algorithm" in _run_bad(tmp_path, capsys, _csv(), "--max", "1,1")
    assert "must be a number" in _run_bad(tmp_path, capsys, _csv(), "--min", "zero")


def test_polytomous_on_fractions_without_bins_exits_2(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text(_csv())
    assert main(["portfolio", str(path), "--model", "polytomous", "--out", str(tmp_path / "o")]) == 2
    assert "--bins" in capsys.readouterr().err


def test_model_is_required(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["portfolio", "x.csv", "--out", str(tmp_path)])
    assert exc.value.code == 2

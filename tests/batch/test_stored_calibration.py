"""An abilities unit that scores with a stored calibration (option ``calibration``), R-free.

The calibration is written by a native calibrate unit; the abilities unit's scores are compared with
the public API on the same file (irtbridge.irt.estimate_abilities, itself tested against mirt's fscores
in tests/irt), which runs the same code: equal to the CSV round trip (1e-10). The calibration file is
part of the unit's fingerprint: a changed calibration is scored again.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.batch import load_manifest, run_batch
from irtbridge.calibration import Calibration
from irtbridge.exceptions import ValidationError
from irtbridge.irt import estimate_abilities

ROUND_TRIP = 1e-10


def _responses(path: Path, seed: int, n: int = 400, items: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    b = np.linspace(-1.2, 1.2, items)
    x = (rng.random((n, items)) < 1 / (1 + np.exp(-1.1 * (theta[:, None] - b)))).astype(int)
    frame = pd.DataFrame(x, columns=[f"q{j + 1}" for j in range(items)])
    frame.to_csv(path, index=False)
    return frame


def _calibrate(folder: Path) -> Path:
    manifest = folder / "cal.json"
    manifest.write_text(json.dumps({"output": "cal", "units": [
        {"id": "cal", "kind": "calibrate", "data": "train.csv", "options": {"engine": "native", "se": False}}]}))
    assert run_batch(manifest, scheduler="serial").n_failed == 0
    return folder / "cal" / "units" / "cal" / "calibration.json"


@pytest.mark.parametrize("method", ["EAP", "MAP", "ML"])
def test_abilities_from_a_stored_calibration_equal_the_api(tmp_path, method):
    _responses(tmp_path / "train.csv", seed=1)
    new = _responses(tmp_path / "new.csv", seed=2, n=50)
    _calibrate(tmp_path)
    manifest = tmp_path / "score.json"
    manifest.write_text(json.dumps({"output": "scores", "units": [
        {"id": "new", "kind": "abilities", "data": "new.csv",
         "options": {"calibration": "cal/units/cal/calibration.json", "scoring_method": method}}]}))
    res = run_batch(manifest, scheduler="serial")
    assert res.units.loc["new", "status"] == "done", res.units.loc["new", "error"]
    got = pd.read_csv(tmp_path / "scores" / "units" / "new" / "abilities.csv", index_col=0)
    cal = Calibration.from_json((tmp_path / "cal" / "units" / "cal" / "calibration.json").read_text())
    api = estimate_abilities(new, cal, method=method, prior=(cal.latent_mean, cal.latent_var ** 0.5))
    np.testing.assert_allclose(got[["theta", "se"]].to_numpy(), api[["theta", "se"]].to_numpy(), rtol=0,
                               atol=ROUND_TRIP, equal_nan=True)
    assert (got["at_bound"] == api["at_bound"]).all()


def test_a_changed_calibration_is_scored_again(tmp_path):
    _responses(tmp_path / "train.csv", seed=1)
    _responses(tmp_path / "new.csv", seed=2, n=30)
    _calibrate(tmp_path)
    manifest = tmp_path / "score.json"
    manifest.write_text(json.dumps({"output": "scores", "units": [
        {"id": "new", "kind": "abilities", "data": "new.csv", "options": {"calibration": "cal/units/cal/calibration.json"}}]}))
    first = run_batch(manifest, scheduler="serial")
    assert first.units.loc["new", "status"] == "done"
    assert run_batch(manifest, scheduler="serial").units.loc["new", "status"] == "skipped"
    _responses(tmp_path / "train.csv", seed=9)  # another training set, another calibration
    _calibrate(tmp_path)
    again = run_batch(manifest, scheduler="serial")
    assert again.units.loc["new", "status"] == "done"
    meta = json.loads((tmp_path / "scores" / "units" / "new" / "unit.json").read_text())
    assert meta["paths"]["calibration"] == str((tmp_path / "cal" / "units" / "cal" / "calibration.json").resolve())
    assert len(meta["digests"]["calibration"]) == 64


def test_stored_calibration_options_checked_first(tmp_path):
    _responses(tmp_path / "new.csv", seed=2, n=10)
    (tmp_path / "cal.json").write_text("{}")

    def refused(options):
        (tmp_path / "m.json").write_text(json.dumps({"units": [{"id": "s", "kind": "abilities", "data": "new.csv",
                                                                 "options": options}]}))
        with pytest.raises(ValidationError) as info:
            load_manifest(tmp_path / "m.json")
        return str(info.value)

    assert refused({"calibration": "gone.json"}).startswith("manifest unit 's', option 'calibration': file ")
    assert "option(s) 'model' would calibrate" in refused({"calibration": "cal.json", "model": "3PL"})
    assert "WLE needs the live mirt fit" in refused({"calibration": "cal.json", "scoring_method": "WLE"})
    assert "option 'calibration': calibration must be a non-empty string" in refused({"calibration": 3})


def test_a_file_that_is_no_calibration_fails_the_unit(tmp_path):
    _responses(tmp_path / "new.csv", seed=2, n=10)
    (tmp_path / "cal.json").write_text('{"items": []}')
    (tmp_path / "m.json").write_text(json.dumps({"units": [{"id": "s", "kind": "abilities", "data": "new.csv",
                                                             "options": {"calibration": "cal.json"}}]}))
    res = run_batch(tmp_path / "m.json", scheduler="serial")
    assert res.units.loc["s", "status"] == "failed" and res.units.loc["s", "attempts"] == 1
    assert "is not a calibration written by Calibration.to_json" in res.units.loc["s", "error"]

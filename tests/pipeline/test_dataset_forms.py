"""The forms a dataset may take in ``evaluate``/``run_benchmark`` (issue 34 item 4): names and CSV paths as
before, and in memory ``(X, y)``, ``(frame, "target")``, a DataFrame with a ``target`` column or a mapping
``{name: (X, y)}``; anything else is one line that shows the entry by type and shape (never the object)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irtbridge.decodirt.classification_data import BenchmarkDataset, load_benchmark_dataset
from irtbridge.exceptions import ValidationError
from irtbridge.pipeline import resolve_datasets
from irtbridge.pipeline.stages import dataset_units


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"f1": rng.normal(size=40), "f2": rng.normal(size=40), "label": ["a", "b"] * 20})


def _features_and_labels(ds: BenchmarkDataset) -> tuple[list[str], list[str]]:
    return list(ds.X.columns), ds.y.astype(str).tolist()


def test_x_y_and_frame_target_become_named_datasets(frame):
    refs = resolve_datasets(["iris", (frame[["f1", "f2"]], frame["label"]), (frame, "label")])
    assert refs[0] == "iris"
    for ref, name in zip(refs[1:], ("dataset_2", "dataset_3")):
        assert isinstance(ref, BenchmarkDataset) and ref.name == name
        assert _features_and_labels(ref) == (["f1", "f2"], ["a", "b"] * 20)
        assert load_benchmark_dataset(ref) is ref  # what the workers load
    # the units of the run are keyed by these references, as for names
    assert [key[1] for key in dataset_units(refs, None)] == refs  # type: ignore[arg-type]


def test_a_tuple_of_names_is_still_several_datasets():
    assert resolve_datasets(("iris", "WINE")) == ["iris", "wine"]


def test_numpy_features_mapping_names_and_target_column(frame):
    refs = resolve_datasets({"mine": (frame[["f1", "f2"]].to_numpy(), frame["label"].to_numpy())})
    assert [r.name for r in refs] == ["mine"] and list(refs[0].X.columns) == ["x1", "x2"]
    one = resolve_datasets(frame.rename(columns={"label": "target"}))
    assert one[0].name == "dataset_1" and list(one[0].X.columns) == ["f1", "f2"]


@pytest.mark.parametrize("entry, fragment", [
    (lambda f: f, "is a DataFrame of shape (40 x 3)"),
    (lambda f: (f, "nope"), "no column(s) 'nope'"),
    (lambda f: (f[["f1"]], f["label"][:5]), "X has 40 rows but y has 5 labels"),
    (lambda f: 42, "give a dataset name"),
])
def test_bad_entries_are_one_line_without_the_object(frame, entry, fragment):
    with pytest.raises(ValidationError) as info:
        resolve_datasets([entry(frame)])
    message = str(info.value)
    assert fragment in message and "\n" not in message and "0.1" not in message and len(message) < 300

"""Shared fixtures of the leaderboard tests."""

from pathlib import Path

import pandas as pd
import pytest

#: 90 real model checkpoints x 120 items of the ARCT test set (nyu-mll/nlu-test-sets), trimmed
ARCT = Path(__file__).parent / "data" / "arct_90x120.csv"


@pytest.fixture(scope="module")
def responses():
    """The ARCT matrix, models x items, 1/0 as floats."""
    return pd.read_csv(ARCT, index_col=0).astype(float)

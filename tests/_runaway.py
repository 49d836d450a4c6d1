"""The runaway matrix of issue 34: 60 respondents x 200 items of a simulated 2PL, 30% of the cells missing.

With about 42 answers per item, some items separate their respondents perfectly (everyone above some
ability right, everyone below wrong): the 2PL likelihood then rises without bound as the slope grows, and
no finite maximum likelihood estimate exists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def runaway_matrix(seed: int = 34) -> pd.DataFrame:
    """60 x 200, slopes ``U(0.5, 2.5)``, difficulties ``N(0, 1)``, 30% missing; no constant item, no empty row."""
    rng = np.random.default_rng(seed)
    n, j = 60, 200
    theta = rng.normal(size=n)
    a, b = rng.uniform(0.5, 2.5, j), rng.normal(0.0, 1.0, j)
    x = (rng.random((n, j)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    frame = pd.DataFrame(x, columns=[f"q{k:03d}" for k in range(j)])
    answered = frame.notna().sum()
    right = frame.sum()
    keep = (right > 0) & (right < answered)
    return frame.loc[:, keep]

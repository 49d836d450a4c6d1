"""A small classifier-shaped matrix on which the 3PL's log-posterior has several modes.

The shape of the real decodIRT matrices where the native 3PL once stopped at a worse mode than mirt (kc2:
132 classifiers, of which 20 predict the minority class for every instance): most classifiers have an
ability and answer 2PL items (80% majority-class instances, easy; 20% minority-class ones, hard), and 15%
of them predict the minority class always, so they are right exactly on the minority-class instances (3% of
their answers flipped). A minority-class instance is then a negatively discriminating item, and a positive
slope with much guessing is a second, lower maximum of its M-step objective.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def minority_predictors(n: int = 60, j: int = 60, seed: int = 0) -> pd.DataFrame:
    """``n`` classifiers x ``j`` instances (constant instances dropped), 0/1."""
    rng = np.random.default_rng(seed)
    npred = max(2, int(n * 0.15))
    theta = rng.normal(0.0, 1.0, n - npred)
    minor = rng.random(j) < 0.2
    a = rng.uniform(1.0, 2.5, j)
    b = np.where(minor, rng.normal(1.0, 0.7, j), rng.normal(-1.0, 0.7, j))
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    able = (rng.random(p.shape) < p).astype(float)
    pred = np.tile(minor.astype(float), (npred, 1))
    flip = rng.random(pred.shape) < 0.03
    pred[flip] = 1 - pred[flip]
    frame = pd.DataFrame(np.vstack([able, pred]), columns=[f"i{q}" for q in range(j)],
                         index=[f"c{r}" for r in range(n)])
    return frame.loc[:, frame.nunique() > 1]

"""Response matrices shaped like the real workloads, simulated with a fixed seed.

``classifier_responses``: few respondents (classifiers) and hundreds of items (test instances), most of
them easy, some answered correctly by every respondent but one or two, a few with negative slopes: the
shape of the decodIRT benchmark matrices (Cardoso et al.), where a 3PL's information matrix is often
singular.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def classifier_params(n_items: int = 150, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.3, 0.5, n_items)
    a[rng.random(n_items) < 0.05] *= -0.5
    b = rng.normal(-1.5, 1.0, n_items)
    g = rng.uniform(0.0, 0.25, n_items)
    return pd.DataFrame({"a": a, "b": b, "g": g, "u": 1.0}, index=[f"i{j}" for j in range(n_items)])


def classifier_responses(n_respondents: int = 132, n_items: int = 150, seed: int = 0,
                         items: pd.DataFrame | None = None) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame]:
    """(responses, true abilities, true items); every item keeps at least one 0 and one 1."""
    rng = np.random.default_rng(seed + 1)
    items = classifier_params(n_items, seed) if items is None else items
    theta = rng.normal(0.5, 1.0, n_respondents)
    a, b, g = (items[c].to_numpy() for c in ("a", "b", "g"))
    p = g + (1 - g) / (1 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.random(p.shape) < p).astype(float)
    for j in range(x.shape[1]):  # no constant columns: flip the least likely response once
        if x[:, j].min() == x[:, j].max():
            x[int(np.argmin(p[:, j]) if x[0, j] == 1 else np.argmax(p[:, j])), j] = 1 - x[0, j]
    frame = pd.DataFrame(x, columns=items.index, index=[f"clf{r}" for r in range(n_respondents)])
    return frame, theta, items

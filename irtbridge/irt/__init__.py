"""Native IRT: response functions, information, ability estimation and True-Scores, in numpy.

Modules: :mod:`~irtbridge.irt.bank` (the validated item bank; its docstring states the parameterization,
mirt's IRT one), :mod:`~irtbridge.irt.fast` (unchecked fast paths shared with ``cat/``),
:mod:`~irtbridge.irt.functions` (checked response functions) and :mod:`~irtbridge.irt.abilities` (EAP/MAP/ML).
"""

from __future__ import annotations

from irtbridge.irt.bank import DICHOTOMOUS_MODELS, METHODS, MODELS, POLYTOMOUS_MODELS, ItemBank, as_item_bank
from irtbridge.irt.functions import (
    category_probabilities,
    expected_score,
    item_information,
    response_probability,
    sem,
    test_information,
    true_score,
)
from irtbridge.irt.abilities import estimate_abilities

__all__ = [
    "MODELS",
    "DICHOTOMOUS_MODELS",
    "POLYTOMOUS_MODELS",
    "METHODS",
    "ItemBank",
    "as_item_bank",
    "response_probability",
    "category_probabilities",
    "expected_score",
    "item_information",
    "test_information",
    "sem",
    "estimate_abilities",
    "true_score",
]

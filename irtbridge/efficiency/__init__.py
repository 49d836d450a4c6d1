"""The Efficiency Index family for binary classifiers, with confidence intervals
(Larner 2023, "Efficiency Index for Binary Classifiers").

Every index is a ratio ``X / (1 - X)`` of an accuracy-like quantity ``X`` to its complement, computed
from one 2 x 2 table. With ``a = TP``, ``b = FP``, ``c = FN``, ``d = TN`` and ``N = a + b + c + d``:

=========  ===============================  ==============================================
index      ``X``                            in words
=========  ===============================  ==============================================
``acc``    ``(a + d) / N``                  accuracy (fraction correct)
``inacc``  ``(b + c) / N``                  inaccuracy (error rate) ``= 1 - acc``
``ei``     ``acc``                          Efficiency Index ``(a + d) / (b + c)``
``ini``    ``acc``                          Inefficiency Index ``(b + c) / (a + d) = 1 / ei``
``bei``    ``(Sens + Spec) / 2``            balanced EI (free of the prevalence ``P``)
``blei``   ``(PPV + NPV) / 2``              balanced level EI (free of the level ``Q``)
``qei``    ``P QSens + P' QSpec``           quality EI, Kraemer's ``Q``-rescaled Sens/Spec
``uei``    ``(acc - pe) / (1 - pe)``        unbiased EI, chance agreement ``pe = PQ + P'Q'``
=========  ===============================  ==============================================

``P = (a + c) / N`` is the prevalence, ``Q = (a + b) / N`` the level of the test (Kraemer's positive
sign rate), ``P' = 1 - P`` and ``Q' = 1 - Q``. Two identities shape the intervals below: the quality
accuracy equals the markedness, ``QAcc = PPV + NPV - 1 = (ad - bc) / (N^2 Q Q')``, so
``QEI = (BLEI - 1) / 2`` exactly; and the unbiased accuracy is Cohen's kappa, so ``UEI = kappa / (1 -
kappa)``. BLEI is BEI of the transposed table (swap ``b`` and ``c``).

Confidence intervals
--------------------
``ci_method="logit"`` (the default) uses closed forms that are sound for any table without empty
cells, all built on the ``X`` scale and carried to the index by the monotone map ``X / (1 - X)``:

* ``acc``, ``inacc``, ``ei``, ``ini``: one Wald interval for the log-odds of a correct outcome,
  ``log EI +/- z sqrt(1/(a + d) + 1/(b + c))``. EI *is* the odds of a correct outcome, and
  ``a + d`` out of ``N`` is one binomial count, so this is the textbook logit interval for a
  proportion (R: ``exp(confint.default(glm(cbind(a + d, b + c) ~ 1, family = binomial)))``). The four
  intervals are transforms of each other.
* ``bei``, ``blei``: delta method on ``logit(X)``, with ``Var X = [Se(1 - Se)/(a + c) +
  Sp(1 - Sp)/(b + d)] / 4`` for BEI and the same with PPV/NPV over the test margins for BLEI, each
  ``p(1 - p)`` taken at ``(k + 0.5)/(n + 1)`` so that a proportion of 0 or 1 does not claim zero
  variance (without that, 95% intervals covered 91% with 23 cases per class).
* ``qei``: mapped from the BLEI interval through ``QEI = (BLEI - 1) / 2``.
* ``uei``: Wald interval for kappa with the large-sample variance of Fleiss, Cohen and Everitt (1969),
  clipped to ``[-1, 1]``, mapped through ``kappa / (1 - kappa)``.

``ci_method="bootstrap"`` resamples the table (multinomial, ``N`` fixed) ``n_boot`` times with the
seeded ``random_state`` and takes percentiles of every ``X``; use it for small tables where the
large-sample closed forms are doubtful.

``ci_method="larner2023"`` reproduces the intervals the paper prints: Wald ``p +/- z sqrt(p(1 - p)/N)``
for ``acc`` and ``inacc``, and for EI ``log EI +/- z SE`` with the SE printed in the paper,
``SE = sqrt(1/a - 1/(a + c) + 1/b - 1/(b + d))`` (``ini`` is its reciprocal). That SE is Katz's
formula for the log of a ratio of two independent proportions, here ``[a/(a + c)] / [b/(b + d)]`` =
``Sens / (1 - Spec)``, the positive likelihood ratio: a different statistic from ``(a + d)/(b + c)``,
so its width fits EI only by accident (for the MACE table it is 0.068 against 0.083, and a nominal
95% interval covers the true EI about 89% of the time; for a balanced table it is too wide). It is
kept to match published numbers; prefer the default. The paper prints no interval for BEI, BLEI,
QEI or UEI, so those use the default closed forms. Two printed intervals are not reproduced because
no formula yields them: Acc 0.722-0.754 is ``Acc +/- 1 SE`` (the ``z`` seems dropped; larner2023
gives the Wald 0.706-0.769, the complement of the printed Inacc 0.231-0.294), and InI 0.321-0.390
(larner2023 gives the reciprocal of the EI interval, 0.311-0.406).

Empty cells
-----------
No input raises ``ZeroDivisionError``. A perfect classifier gives ``ei = inf`` and ``ini = 0``; an
index whose ingredients are undefined (no positives, so no sensitivity) is ``nan``. Where a closed
form degenerates (a zero standard error or an estimate on the boundary), the interval is recomputed
with 0.5 added to every cell and then widened to include the estimate; the index names are listed
in ``boundary``. ``correction=c`` instead adds ``c`` to all four cells of any table that has an empty
cell (Haldane-Anscombe for ``c = 0.5``), estimates included; tables without empty cells are left alone.

Modules: :mod:`~irtbridge.efficiency.core` (the names of the indices and interval methods),
:mod:`~irtbridge.efficiency.indices` (result objects and the public functions),
:mod:`~irtbridge.efficiency.plots` (the figure).
"""

from irtbridge.efficiency.core import CI_METHODS, INDICES
from irtbridge.efficiency.indices import (
    EfficiencyIndices,
    Interval,
    classify_ei,
    efficiency_by_cutoff,
    efficiency_frame,
    efficiency_indices,
    efficiency_indices_from_predictions,
)
from irtbridge.efficiency.plots import plot_efficiency_by_cutoff

__all__ = [
    "INDICES",
    "CI_METHODS",
    "Interval",
    "EfficiencyIndices",
    "efficiency_indices",
    "efficiency_indices_from_predictions",
    "efficiency_frame",
    "efficiency_by_cutoff",
    "plot_efficiency_by_cutoff",
    "classify_ei",
]

"""The adaptive per-respondent E-step of the native D-factor 2PL (``method="adaptive"`` of
:func:`irtbridge.em.factors.fit_factors`): adaptive quadrature by importance sampling.

With thousands of answers a respondent's posterior is narrow (standard deviations of 0.02-0.1 per factor
at 28,000 items), so a set of points shared by every respondent (the quadrature grid, QMC-EM's 5,000
points) puts almost all of them where the posterior is negligible. As Schilling & Bock (2005),
"High-dimensional maximum marginal likelihood item factor analysis by adaptive quadrature"
(Psychometrika 70), the points are moved to each respondent instead:

1. **Mode and Laplace covariance.** For every respondent ``i`` the mode ``mu_i`` of the log posterior
   ``sum_j m_ij [y_ij z_ij - log(1 + exp z_ij)] - |theta|^2 / 2`` (``z_ij = a_j' theta + d_j``) by damped
   Newton steps in D dimensions with a backtracking (Armijo) line search, all respondents of a block at
   once (the gradient ``(Y - M o P) A - theta`` and the Hessians ``-(M o P o Q) [a_j a_j'] - I`` by matrix
   products, batched D x D solves), warm-started at the previous cycle's modes, each respondent run until
   its Newton decrement is below 1e-10; ``Sigma_i`` is the inverse of the negative Hessian at the mode and
   ``L_i`` its Cholesky factor.
2. **Points.** One fixed standard-normal design ``z_s`` (the same for every respondent and cycle: the
   E-step is a deterministic map of the item parameters), moved to each respondent,
   ``theta_is = mu_i + L_i z_s``: up to D = 3 the Gauss-Hermite product rule; above, where every respondent
   answered at least 500 items (posterior standard deviations of a few hundredths, near normal), Stroud's
   2D-point rule of degree 3 (``+-sqrt(D)`` on each axis, equal weights: exact for every polynomial of
   degree 3 under the proposal); otherwise scrambled Sobol points through the normal quantile
   (:func:`default_points`).
3. **Importance weights.** ``log w_is = loglik_i(theta_is) + log phi(theta_is) - log q_i(theta_is)`` with
   the proposal ``q_i = N(mu_i, Sigma_i)``, so ``log q_i = log phi(z_s) - log|L_i|``;
   ``p(x_i) ~ sum_s rule_s w_is`` (the log-likelihood; exact for every rule where the posterior is normal)
   and the self-normalised weights give the posterior expectations. The Monte-Carlo error of the total
   log-likelihood is estimated by the delta method from the spread of each respondent's weights, as if the
   points were independent (for scrambled QMC points an upper bound in practice; 0 for Gauss-Hermite).
4. **Sufficient statistics of the M-step** (no items x points table exists: every respondent has its own
   points). Per item, the gradient of the expected complete-data log-likelihood, ``g_j = sum_is w_is m_ij
   (y_ij - P_ijs) x_is`` with ``x_is = (theta_is, 1)`` (exact), and its Hessian
   ``-sum_i m_ij E_i[P_ij Q_ij x x']`` taken as ``-sum_i m_ij E_i[P_ij Q_ij] E_i[x x']`` (exact where
   ``P Q`` is flat over the posterior, i.e. a narrow one; a respondents x items table times a respondents x
   (D + 1)(D + 2)/2 one instead of respondents x points x items x (D + 1)(D + 2)/2, which was most of
   a cycle). By one compiled pass per respondent (:mod:`irtbridge.em.adaptive_jit`, numba) or by numpy
   in blocks of respondents (``B S x J`` cells at a time, memory bounded by :data:`CELLS`).
5. **M-step.** One Newton step per cycle from the current ``(a_j, d_j)`` (the EM gradient algorithm of
   Lange (1995), "A gradient algorithm locally equivalent to the EM algorithm", JRSS B 57), capped at a
   change of 1 per parameter; its fixed points are those of EM (the score, by Fisher's identity, is zero).
6. **Parameter expansion** (without priors, :func:`expand`): the latent mean and covariance estimated from
   the posterior moments and folded back into the items (PX-EM, Liu, Rubin & Wu 1998). At narrow
   posteriors plain EM crawls along the factors' scale and rotation (measured before it: 5 cycles of
   395 x 28,659 at D = 10 still moving every item by the step cap); with it, 395 x 3,000 at D = 10 had
   all but 18 of 3,000 items within 0.01 after 8 cycles.
7. **Stop.** mirt's rule (the largest change of a parameter below ``TOL``) or the objective's rise over a
   cycle below ``TOL / 100`` of its size (a rotation-invariant rule; it also ends the creep of items whose
   maximum lies at infinity: with 395 respondents and 11 parameters an item answered right by 4 is
   separated by a hyperplane of the abilities, its slopes and intercept run off by the step cap every
   cycle, in mirt's fit as in this one, while the log-likelihood gains less and less).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
from scipy import sparse
from scipy.special import expit, log_expit, logsumexp

from irtbridge.em import adaptive_jit
from irtbridge.em.core import ResponseData
from irtbridge.em.factor_steps import Cycles, prior_parts
from irtbridge.irt.logistic import log_pq

__all__ = ["ADAPTIVE_POINTS", "CELLS", "CYCLE_STEPS", "AdaptiveCycles", "AdaptiveEstep", "adaptive_update", "default_points",
           "design", "expand"]

#: the default points per respondent: Gauss-Hermite nodes per factor up to D = 3; above, Stroud's degree-3
#: rule (2D points) where every respondent answered at least ``"narrow"`` items, else scrambled Sobol points
ADAPTIVE_POINTS = {1: 15, 2: 9, 3: 7, "sobol": 512, "narrow": 500}

_THREADS = 2  # the mode search's blocks run on two threads (the machine's cores; numpy releases the GIL)
CELLS = 2**22  # respondent-points x items per block (32 MB per float64 array; a handful of arrays live at once)
GH_FACTORS = 3  # Gauss-Hermite product rules up to this many factors, scrambled Sobol points above
_NEWTON_TOL = 1e-10  # the Newton decrement at which a respondent's mode is converged
_NEWTON_MAX = 50
#: Newton steps towards the modes in a cycle of the fit, from the last cycle's: the modes converge over the
#: cycles as the items do (the importance weights correct a proposal off the mode), the final E-step runs
#: them to convergence; at 395 x 6,000, D = 10, the modes were 60% of a cycle with up to 5 steps
CYCLE_STEPS = 2


def design(n_factors: int, n_points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The standard-normal points ``z_s`` and their log weights (summing to one on the exp scale).

    Up to :data:`GH_FACTORS` factors the product Gauss-Hermite rule with ``n_points`` nodes per factor
    (adaptive Gauss-Hermite quadrature, as Schilling & Bock (2005); deterministic, exact for a normal
    posterior and very accurate for a smooth one); above, ``n_points`` scrambled Sobol points through the
    normal quantile with equal weights (the posteriors there are narrow and near normal).

    Parameters
    ----------
    n_factors, n_points : int
        D; nodes per factor (D <= 3) or points in total.
    seed : int
        The scrambling (Sobol).

    Returns
    -------
    z : ndarray
        Points x D.
    log_weights : ndarray
        One per point.

    Examples
    --------
    >>> z, lw = design(2, 5, 1)
    >>> z.shape, round(float(np.exp(lw).sum()), 12)
    ((25, 2), 1.0)
    """
    if n_factors <= GH_FACTORS:
        x, w = np.polynomial.hermite.hermgauss(n_points)
        nodes, logw = np.sqrt(2.0) * x, np.log(w / np.sqrt(np.pi))
        grids = np.meshgrid(*([np.arange(n_points)] * n_factors), indexing="ij")
        index = np.stack([g.ravel() for g in grids], axis=1)
        return nodes[index], logw[index].sum(axis=1)
    if n_points == 2 * n_factors:  # Stroud's degree-3 rule: +-sqrt(D) on every axis, equal weights
        z = np.sqrt(n_factors) * np.vstack([np.eye(n_factors), -np.eye(n_factors)])
        return z, np.full(n_points, -np.log(n_points))
    import warnings

    from scipy.stats import norm, qmc

    with warnings.catch_warnings():  # a count that is not a power of 2 loses Sobol's balance, not its use
        warnings.simplefilter("ignore", UserWarning)
        u = qmc.Sobol(d=n_factors, scramble=True, seed=seed).random(n_points)
    return norm.ppf(np.clip(u, 1e-12, 1 - 1e-12)), np.full(n_points, -np.log(n_points))


def default_points(data: ResponseData, n_factors: int) -> int:
    """The default ``quadpts`` of an adaptive fit (:data:`ADAPTIVE_POINTS`).

    Parameters
    ----------
    data : ResponseData
        The responses.
    n_factors : int
        D.

    Returns
    -------
    int
        Nodes per factor (D <= 3) or points per respondent.
    """
    if n_factors <= GH_FACTORS:
        return int(ADAPTIVE_POINTS[n_factors])
    fewest = float(np.asarray(data.M.sum(axis=1)).min())
    return 2 * n_factors if fewest >= ADAPTIVE_POINTS["narrow"] else int(ADAPTIVE_POINTS["sobol"])


def _dense(block: Any) -> np.ndarray:
    return block.toarray() if sparse.issparse(block) else np.asarray(block, dtype=float)


class AdaptiveEstep:
    """The adaptive E-step (the module docstring): per call, the M-step's gradient and Hessian per item
    and the marginal log-likelihood.

    Parameters
    ----------
    data : ResponseData
        0/1 responses, dense or sparse.
    n_factors : int
        D.
    n_points : int
        S, the points per respondent.
    seed : int
        The scrambling of the points.
    compiled : bool, default True
        Use the compiled sums (:mod:`irtbridge.em.adaptive_jit`) where numba imports; False: numpy's.
    """

    def __init__(self, data: ResponseData, n_factors: int, n_points: int, seed: int, compiled: bool = True):
        self.Y, self.M = data.A, data.M
        if sparse.issparse(self.M):
            self.Y, self.M = sparse.csr_matrix(self.Y), sparse.csr_matrix(self.M)
        N, J = data.shape
        self.z, self.log_rule = design(n_factors, n_points, seed)
        self.gauss_hermite = n_factors <= GH_FACTORS
        # the rule's weight over the proposal's density at z (less the constant, which the prior's cancels)
        self.log_phi_z = -0.5 * (self.z**2).sum(axis=1) - self.log_rule
        S = len(self.z)
        self.D, self.S = n_factors, S
        size = max(1, CELLS // max(J * S, 1))
        self.blocks = [(s, min(N, s + size)) for s in range(0, N, size)]
        self.mode_blocks = [(s, min(N, s + max(1, CELLS // J))) for s in range(0, N, max(1, CELLS // J))]
        self.mu = np.zeros((N, n_factors))
        self.precision: np.ndarray | None = None  # -Hessian at the modes (N x D x D)
        self.unconverged = 0  # respondents whose mode moved after _NEWTON_MAX steps (last call)
        self.loglik_se = 0.0
        self.mean = np.zeros((N, n_factors))
        self.var = np.zeros((N, n_factors))
        self.moments = np.zeros((n_factors, n_factors))  # sum_i E_i[theta theta'] (upper triangle), last call
        # the compiled E-step (numba) where it runs: the responses one byte per cell
        self.codes = adaptive_jit.codes(self.Y, self.M) if compiled and adaptive_jit.available() else None

    def _hessian(self, W: np.ndarray, a: np.ndarray) -> np.ndarray:
        """``A' diag(w_i) A + I`` for every row ``w_i`` of ``W`` (respondents x items): respondents x D x D."""
        D = self.D
        iu = np.triu_indices(D)
        half = W @ (a[:, iu[0]] * a[:, iu[1]])
        out = np.zeros((len(W), D, D))
        out[:, iu[0], iu[1]] = half
        out[:, iu[1], iu[0]] = half
        out[:, np.arange(D), np.arange(D)] += 1.0
        return out

    def _log_posterior(self, th: np.ndarray, Y: np.ndarray, M: np.ndarray, a: np.ndarray, d: np.ndarray
                       ) -> np.ndarray:
        """Each respondent's log posterior (up to a constant) at ``th`` (respondents x D)."""
        z = th @ a.T + d  # log P - log Q = z: one log_expit per cell
        return (Y * z + M * log_expit(-z)).sum(axis=1) - 0.5 * (th**2).sum(axis=1)

    def _mode_block(self, start: int, stop: int, a: np.ndarray, d: np.ndarray, steps: int, prec: np.ndarray) -> int:
        """:meth:`modes` on respondents ``start..stop-1``: their modes into ``self.mu``, their precisions into
        ``prec``; returns how many were still moving after ``steps`` steps."""
        Y, M = _dense(self.Y[start:stop]), _dense(self.M[start:stop])
        th = self.mu[start:stop].copy()
        f = self._log_posterior(th, Y, M, a, d)
        active = np.arange(len(th))
        block = np.empty((len(th), self.D, self.D))
        for _ in range(steps):
            Ya, Ma, ta = Y[active], M[active], th[active]
            P = expit(ta @ a.T + d)
            grad = (Ya - Ma * P) @ a - ta
            H = self._hessian(Ma * P * (1.0 - P), a)
            block[active] = H  # at th: final for a respondent that stops here
            step = np.linalg.solve(H, grad[:, :, None])[:, :, 0]
            decrement = (grad * step).sum(axis=1)
            moving = decrement > _NEWTON_TOL
            active, step, decrement, ta = active[moving], step[moving], decrement[moving], ta[moving]
            if not active.size:
                break
            Ya, Ma, fa = Ya[moving], Ma[moving], f[active]
            scale = np.ones(len(active))
            todo = np.ones(len(active), dtype=bool)
            for _ in range(30):  # backtracking: halve the step until Armijo's condition holds
                trial = ta[todo] + scale[todo, None] * step[todo]
                ft = self._log_posterior(trial, Ya[todo], Ma[todo], a, d)
                ok = ft >= fa[todo] + 1e-4 * scale[todo] * decrement[todo]
                where = np.flatnonzero(todo)[ok]
                th[active[where]], f[active[where]] = trial[ok], ft[ok]
                todo[where] = False
                if not todo.any():
                    break
                scale[todo] *= 0.5
            active = active[~todo | (scale > 1e-6)]
        if active.size:  # out of steps: moved since their last Hessian
            P = expit(th[active] @ a.T + d)
            block[active] = self._hessian(M[active] * P * (1.0 - P), a)
        prec[start:stop] = block
        self.mu[start:stop] = th
        return len(active)

    def modes(self, a: np.ndarray, d: np.ndarray, steps: int = _NEWTON_MAX) -> tuple[np.ndarray, np.ndarray]:
        """Every respondent's posterior mode and the Cholesky factor of its Laplace covariance.

        Damped Newton's method on each respondent's log posterior (concave: the logistic log-likelihood
        plus the normal prior), warm-started at the previous cycle's modes, all respondents of a block at
        once (batched D x D solves); a step is halved until it raises the log posterior by Armijo's
        condition. A respondent stops when its Newton decrement ``g' H^-1 g`` is below
        :data:`_NEWTON_TOL` (the mode is then converged to about ``1e-5`` posterior standard deviations);
        respondents still moving after :data:`_NEWTON_MAX` steps are counted in :attr:`unconverged`.

        Parameters
        ----------
        a, d : ndarray
            Items x D slopes; intercepts.
        steps : int, default 50
            The most Newton steps per respondent (the cycles of a fit take :data:`CYCLE_STEPS`).

        Returns
        -------
        mu : ndarray
            Respondents x D.
        chol : ndarray
            Respondents x D x D, lower triangular: ``chol @ chol.T`` is the Laplace covariance.
        """
        prec = np.empty((len(self.mu), self.D, self.D))
        # the blocks are independent (each writes its own rows): two threads, as numpy releases the GIL in its
        # products and ufuncs; the same numbers whatever the threads' timing
        with ThreadPoolExecutor(max_workers=_THREADS) as pool:
            counts = list(pool.map(lambda b: self._mode_block(b[0], b[1], a, d, steps, prec), self.mode_blocks))
        unconverged = sum(counts)
        self.unconverged = unconverged
        self.precision = prec
        return self.mu, np.linalg.cholesky(np.linalg.inv(prec))

    def __call__(self, a: np.ndarray, d: np.ndarray, steps: int = _NEWTON_MAX
                 ) -> tuple[np.ndarray, np.ndarray, float]:
        """The E-step at ``(a, d)``.

        Parameters
        ----------
        a, d : ndarray
            Items x D slopes; intercepts.
        steps : int, default 50
            The most Newton steps per respondent towards its mode (:meth:`modes`).

        Returns
        -------
        grad : ndarray
            Items x (D + 1): the gradient of the expected complete-data log-likelihood in ``(a_j, d_j)``.
        hess : ndarray
            Items x (D + 1) x (D + 1): its Hessian with ``E_i[P Q x x']`` taken as ``E_i[P Q] E_i[x x']``
            (exact where ``P Q`` is constant over the posterior: a narrow one), negative definite.
        loglik : float
            The marginal log-likelihood (its importance-sampling estimate).
        """
        mu, chol = self.modes(a, d, steps)
        if self.codes is not None:
            out = adaptive_jit.estep(self.codes, a, d, mu, chol, self.z, self.log_phi_z)
        else:
            out = self._sums(a, d, mu, chol)
        self.mean, self.var = out["mean"], out["var"]
        K = self.D + 1
        iu = np.triu_indices(K)
        second = out["second"]
        self.moments = second[:, :-1, :-1].sum(axis=0)  # sum_i E_i[theta theta'], upper triangle
        half = out["pq"].T @ second[:, iu[0], iu[1]]  # items x K(K+1)/2
        hess = np.zeros((len(d), K, K))
        hess[:, iu[0], iu[1]] = -half
        hess[:, iu[1], iu[0]] = -half
        if not self.gauss_hermite:  # delta method: Var(mean ratio) / mean^2, per respondent
            self.loglik_se = float(np.sqrt(np.maximum(out["spread"], 0.0).sum() / self.S))
        return out["grad"], hess, float(out["marginal"].sum())

    def _sums(self, a: np.ndarray, d: np.ndarray, mu: np.ndarray, chol: np.ndarray) -> dict[str, Any]:
        """The sums of :func:`irtbridge.em.adaptive_jit.estep` by numpy, in blocks of respondents."""
        D, S = self.D, self.S
        K = D + 1
        N, J = mu.shape[0], len(d)
        out = {"grad": np.zeros((J, K)), "pq": np.zeros((N, J)), "second": np.zeros((N, K, K)),
               "mean": np.zeros((N, D)), "var": np.zeros((N, D)), "marginal": np.zeros(N), "spread": np.zeros(N)}
        logdet = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        for start, stop in self.blocks:
            b = stop - start
            Y, M = _dense(self.Y[start:stop]), _dense(self.M[start:stop])
            theta = mu[start:stop, None, :] + np.einsum("bde,se->bsd", chol[start:stop], self.z)  # b x S x D
            flat = theta.reshape(b * S, D)
            lp, lq = log_pq(flat @ a.T + d)  # bS x J
            lp3, lq3 = lp.reshape(b, S, J), lq.reshape(b, S, J)
            ll = np.matmul(lp3 - lq3, Y[:, :, None])[:, :, 0] + np.matmul(lq3, M[:, :, None])[:, :, 0]
            logw = ll - 0.5 * (theta**2).sum(axis=2) - self.log_phi_z[None, :] + logdet[start:stop, None]
            marginal = logsumexp(logw, axis=1)
            out["marginal"][start:stop] = marginal
            w = np.exp(logw - marginal[:, None])  # self-normalised: rows sum to one
            out["spread"][start:stop] = S * (w**2).sum(axis=1) - 1.0
            P = np.exp(lp3)
            resid = (Y[:, None, :] - M[:, None, :] * P) * w[:, :, None]
            X = np.concatenate([flat, np.ones((b * S, 1))], axis=1)
            out["grad"] += resid.reshape(b * S, J).T @ X
            out["pq"][start:stop] = np.einsum("bs,bsj->bj", w, P * (1.0 - P)) * M
            mean = np.einsum("bs,bsd->bd", w, theta)
            out["mean"][start:stop] = mean
            out["var"][start:stop] = np.einsum("bs,bsd->bd", w, theta**2) - mean**2
            X3 = X.reshape(b, S, K)
            out["second"][start:stop] = np.triu(np.einsum("bs,bsk,bsl->bkl", w, X3, X3))
        return out


def adaptive_update(grad: np.ndarray, hess: np.ndarray, x: np.ndarray, free: np.ndarray,
                    prior: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """One Newton step on every item's ``(a_j, d_j)`` (the EM gradient algorithm), fixed slopes held.

    Parameters
    ----------
    grad : ndarray
        Items x (D + 1), from :class:`AdaptiveEstep`.
    hess : ndarray
        Items x (D + 1) x (D + 1).
    x : ndarray
        Items x (D + 1): the slopes then the intercept.
    free : ndarray of bool
        Items x (D + 1).
    prior : tuple of ndarray, optional
        From :func:`irtbridge.em.factor_steps.parse_priors`.

    Returns
    -------
    ndarray
        The new ``x``.
    """
    k = x.shape[1]
    _, pg, ph = prior_parts(prior, x, free, False)
    g = np.where(free, grad + pg, 0.0)
    H = hess.copy()
    H[:, np.arange(k), np.arange(k)] += ph
    fixed = ~free
    H[fixed[:, :, None] | fixed[:, None, :]] = 0.0
    diag = H[:, np.arange(k), np.arange(k)]
    diag[fixed] = -1.0
    H[:, np.arange(k), np.arange(k)] = diag - 1e-10
    step = np.linalg.solve(-H, g[:, :, None])[:, :, 0]
    big = np.abs(step).max(axis=1, keepdims=True)
    step = np.where(big > 1.0, step / np.maximum(big, 1e-300), step)
    return np.where(free, x + step, 0.0)


def expand(x: np.ndarray, mean: np.ndarray, moments: np.ndarray, triangular: bool) -> np.ndarray:
    """The parameter-expanded EM step (PX-EM, Liu, Rubin & Wu (1998), Biometrika 85): the latent mean and
    covariance estimated from the E-step and folded back into the items.

    With ``m`` the mean of the respondents' posterior means and ``Sigma = T T'`` the mean of their
    ``E_i[theta theta']`` less ``m m'``, the model with ``theta ~ N(m, Sigma)`` and items ``(a_j, d_j)`` is the
    model with ``theta ~ N(0, I)`` and items ``(T' a_j, d_j + a_j' m)``. ``T`` is the lower Cholesky factor
    where every item's free slopes are a leading run F1..Fm (mirt's exploratory pattern is kept: the
    identification does not change), the diagonal of standard deviations otherwise (any confirmatory
    mask). The fixed points are EM's (at the maximum ``m = 0``, ``Sigma = I``); EM's slow directions
    at narrow posteriors (the scale and the rotation of the factors, along which the likelihood is pinned
    only by the N(0, I) prior of the abilities) move in one step.

    Parameters
    ----------
    x : ndarray
        Items x (D + 1): slopes, then the intercept (after the M-step).
    mean : ndarray
        Respondents x D posterior means.
    moments : ndarray
        D x D: ``sum_i E_i[theta theta']``, the upper triangle.
    triangular : bool
        Whether the lower Cholesky factor keeps the slopes' pattern.

    Returns
    -------
    ndarray
        The items in the N(0, I) metric.
    """
    N = len(mean)
    m = mean.mean(axis=0)
    upper = np.triu(moments)
    cov = (upper + np.triu(upper, 1).T) / N - np.outer(m, m)
    if triangular:
        T = np.linalg.cholesky(cov)
    else:
        T = np.diag(np.sqrt(np.diag(cov)))
    a = x[:, :-1]
    out = np.empty_like(x)
    out[:, :-1] = a @ T
    out[:, -1] = x[:, -1] + a @ m
    return out


class AdaptiveCycles(Cycles):
    """The EM map of the adaptive fit on the flat ``(a, d)`` (the protocol of
    :class:`irtbridge.em.accelerate.EMMap`): one adaptive E-step and one Newton step per cycle.

    Parameters
    ----------
    step : AdaptiveEstep
        The E-step.
    free, prior, TOL, NCYCLES, progress : as :class:`irtbridge.em.factor_steps.Cycles` takes them
        The free parameters, priors, convergence tolerance, most cycles and progress callback.
    """

    def __init__(self, step: AdaptiveEstep, free: np.ndarray, prior: Any, TOL: float, NCYCLES: int,
                 progress: Callable[[int, float], None] | None):
        super().__init__(step, free, prior, TOL, NCYCLES, progress)
        self.last = -np.inf  # the objective at the previous call
        slopes = free[:, :-1]
        # the pattern kept by a lower-triangular T (every item's free slopes F1..Fm): mirt's exploratory one
        self.triangular = bool((np.cumprod(slopes, axis=1) == slopes).all())

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """One cycle from ``x``: the new point and the objective (log-likelihood plus log prior) at ``x``.

        Parameters
        ----------
        x : ndarray
            The flat ``(a, d)``.

        Returns
        -------
        new : ndarray
        objective : float
        """
        cur = np.where(self.free, x.reshape(self.free.shape), 0.0)
        grad, hess, loglik = self.step(cur[:, :-1], cur[:, -1], CYCLE_STEPS)
        new = adaptive_update(grad, hess, cur, self.free, self.prior)
        if self.prior is None:
            new = expand(new, self.step.mean, self.step.moments, self.triangular)
        change = float(np.abs(new - cur).max())
        self.cycle += 1
        self.history.append((loglik, change))
        if self.progress is not None:
            self.progress(self.cycle, change)
        objective = loglik + float(prior_parts(self.prior, cur, self.free, False)[0].sum())
        rise = objective - self.last
        self.last = objective
        # mirt's rule on the parameters, or the objective's rise below TOL / 100 of itself (rotation-invariant;
        # it also ends the creep of items whose maximum is at infinity: the module docstring)
        self.converged = change < self.TOL or 0.0 <= rise < 0.01 * self.TOL * abs(objective)
        return new.ravel(), objective

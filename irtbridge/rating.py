"""Glicko-2 ratings from tidy match tables, and round-robin tournaments between respondents.

The update is Glickman's "Example of the Glicko-2 system" (2012, revised 2013) step by step: every
player in a rating period is updated from the ratings, RDs and volatilities all players had at the start
of the period; the new volatility is the root of Glickman's f(x), found with the Illinois algorithm to
the paper's tolerance (1e-6); a player who sits out a period keeps rating and volatility while the RD
grows to sqrt(phi^2 + sigma^2). Every step is vectorized over the games and players of a period
(``np.bincount`` for the per-player sums, the Illinois iteration over all players at once), so a
million games take about a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Number, constraints
from irtbridge._match_checks import as_matches, check_score_values, period_codes, player_codes, score_array
from irtbridge._summary import HasSummary, Line, Strong, Summary
from irtbridge._ties import stable_argsort
from irtbridge._validation import check_number
from irtbridge.exceptions import ConvergenceError, ValidationError
from irtbridge.matches import round_robin

#: Glicko-2's system constant and the volatility iteration's tolerance (Glickman 2013): both > 0
POSITIVE = Number(low=0.0, low_open=True)

__all__ = [
    "GLICKO2_SCALE",
    "Glicko2Result",
    "glicko2",
    "glicko2_period",
    "glicko2_volatility",
    "round_robin",
]

#: Glickman's factor between the Glicko and the Glicko-2 scale (400 / ln 10, rounded as in the paper).
GLICKO2_SCALE = 173.7178

_BASE_RATING = 1500.0
_PI2 = math.pi**2


def _g(phi: np.ndarray) -> np.ndarray:
    # Glickman's g(phi): how much an opponent's uncertainty flattens the expected score
    return 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / _PI2)


@constraints(tau=POSITIVE, tol=POSITIVE, max_iter=Int(low=1))
def glicko2_volatility(
    phi: Any,
    sigma: Any,
    v: Any,
    delta: Any,
    *,
    tau: float = 0.5,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> np.ndarray:
    """New volatilities sigma' (Glickman's step 5), for many players at once.

    Parameters
    ----------
    phi, sigma : array_like
        Pre-period RD and volatility on the Glicko-2 scale (``phi = RD / 173.7178``).
    v, delta : array_like
        Estimated variance of the rating from the games and estimated improvement (steps 3 and 4).
    tau : float, default 0.5
        System constant constraining the change in volatility.
    tol : float, default 1e-6
        Convergence tolerance epsilon of the Illinois iteration, on x = ln(sigma'^2).
    max_iter : int, default 100
        Safety bound on Illinois steps; the iteration converges superlinearly, so reaching it is a bug.

    Returns
    -------
    numpy.ndarray
        sigma' for each player, same shape as ``phi``.

    Notes
    -----
    With a = ln(sigma^2), sigma' = exp(A / 2) where A is the root of

    .. math:: f(x) = \\frac{e^x (\\Delta^2 - \\phi^2 - v - e^x)}{2 (\\phi^2 + v + e^x)^2} - \\frac{x - a}{\\tau^2}

    bracketed by A = a and B = ln(Delta^2 - phi^2 - v) if Delta^2 > phi^2 + v, else B = a - k tau for
    the smallest k >= 1 with f(a - k tau) >= 0, and narrowed by the Illinois rule: C = A + (A - B)
    f_A / (f_B - f_A); if f_C f_B <= 0 then A, f_A <- B, f_B, else f_A <- f_A / 2; then B, f_B <- C,
    f_C; until ``|B - A| <= tol``. The function uses the RD phi; the PyPI ``glicko2`` package puts the
    rating mu there instead, which is not Glickman's f. ("<= 0" rather than "< 0" only matters when
    f_C is exactly 0, where "<" would never move A.) Each player iterates independently until their
    own bracket is below ``tol``; converged players leave the vectorized loop.

    Examples
    --------
    Glickman's worked example (v = 1.7790, Delta = -0.4839 before rounding):

    >>> s = glicko2_volatility(200 / GLICKO2_SCALE, 0.06, 1.778977, -0.483933)
    >>> print(f"{float(s):.7f}")  # the paper prints 0.05999
    0.0599960
    """
    tau, tol = float(tau), float(tol)  # declared above
    phi, sigma, v, delta = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (phi, sigma, v, delta)))
    shape = phi.shape
    phi2 = (phi * phi).ravel()
    v = v.ravel()
    delta2 = (delta * delta).ravel()
    a = np.log(sigma.ravel() ** 2)
    tau2 = tau * tau

    def f(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        ex = np.exp(x)
        denom = phi2[idx] + v[idx] + ex
        return ex * (delta2[idx] - phi2[idx] - v[idx] - ex) / (2.0 * denom * denom) - (x - a[idx]) / tau2

    n = a.size
    A = a.copy()
    B = np.empty(n)
    excess = delta2 - phi2 - v
    big = excess > 0
    B[big] = np.log(excess[big])
    # step 5.2: walk down from a in steps of tau until f turns non-negative (f -> +inf as x -> -inf)
    idx = np.flatnonzero(~big)
    k = 1
    while idx.size:
        x = a[idx] - k * tau
        negative = f(x, idx) < 0
        done = idx[~negative]
        B[done] = x[~negative]
        idx = idx[negative]
        k += 1
    every = np.arange(n)
    fA = f(A, every)
    fB = f(B, every)
    idx = np.flatnonzero(np.abs(B - A) > tol)
    for _ in range(max_iter):
        if not idx.size:
            break
        a_, b_, fa, fb = A[idx], B[idx], fA[idx], fB[idx]
        c = a_ + (a_ - b_) * fa / (fb - fa)
        fc = f(c, idx)
        swap = fc * fb <= 0
        A[idx] = np.where(swap, b_, a_)
        fA[idx] = np.where(swap, fb, fa / 2.0)
        B[idx] = c
        fB[idx] = fc
        idx = idx[np.abs(c - A[idx]) > tol]
    else:
        if idx.size:
            raise ConvergenceError(
                f"Glicko-2 volatility iteration did not reach tol={tol} in {max_iter} steps for "
                f"{idx.size} player(s); this is a bug, please report it with the match table"
            )
    return np.exp(A / 2.0).reshape(shape)


def _period_update(
    mu: np.ndarray,
    phi: np.ndarray,
    sigma: np.ndarray,
    both_player: np.ndarray,
    both_opponent: np.ndarray,
    both_score: np.ndarray,
    tau: float,
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One period on the Glicko-2 scale; games are given from both sides (each game twice)."""
    n = mu.size
    g_opp = _g(phi)[both_opponent]
    # everyone is scored against the opponents' start-of-period state: mu, phi are never touched here
    with np.errstate(over="ignore"):  # exp overflow is E = 0, the right limit
        expected = 1.0 / (1.0 + np.exp(-g_opp * (mu[both_player] - mu[both_opponent])))
    v_inv = np.bincount(both_player, weights=g_opp * g_opp * expected * (1.0 - expected), minlength=n)
    improvement = np.bincount(both_player, weights=g_opp * (both_score - expected), minlength=n)
    games = np.bincount(both_player, minlength=n)
    played = games > 0

    new_mu = mu.copy()
    new_sigma = sigma.copy()
    # step 6 for players who sat out: only the RD grows
    new_phi = np.sqrt(phi * phi + sigma * sigma)
    if played.any():
        vi = v_inv[played]
        v = 1.0 / vi
        delta = v * improvement[played]
        s_new = glicko2_volatility(phi[played], sigma[played], v, delta, tau=tau, tol=tol)
        phi_star2 = phi[played] ** 2 + s_new**2
        phi_new = 1.0 / np.sqrt(1.0 / phi_star2 + vi)
        new_sigma[played] = s_new
        new_phi[played] = phi_new
        new_mu[played] = mu[played] + phi_new**2 * improvement[played]
    return new_mu, new_phi, new_sigma, games


@constraints(tau=POSITIVE, tol=POSITIVE)
def glicko2_period(
    rating: Any,
    rd: Any,
    volatility: Any,
    player: Any,
    opponent: Any,
    score: Any,
    *,
    tau: float = 0.5,
    tol: float = 1e-6,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rate one period: new rating, RD and volatility of every player in a pool.

    Parameters
    ----------
    rating, rd, volatility : array_like of shape (n_players,)
        State at the start of the period, on the Glicko scale (1500 / 350 / 0.06 for a new player).
    player, opponent : array_like of int
        Positions (0-based) into the state arrays, one entry per game.
    score : array_like of float
        The player's score in each game (1 win, 0.5 draw, 0 loss; the opponent scores 1 - score).
    tau : float, default 0.5
        System constant.
    tol : float, default 1e-6
        Convergence tolerance of the volatility iteration.

    Returns
    -------
    rating, rd, volatility : numpy.ndarray
        End-of-period state of every player; those without games keep rating and volatility and have
        RD' = 173.7178 * sqrt(phi^2 + sigma^2).

    Notes
    -----
    On the Glicko-2 scale mu = (r - 1500) / 173.7178, phi = RD / 173.7178, with
    g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2) and E = 1 / (1 + exp(-g(phi_j)(mu - mu_j))):
    v = [sum_j g(phi_j)^2 E (1 - E)]^-1, Delta = v sum_j g(phi_j)(s_j - E), sigma' from
    :func:`glicko2_volatility`, phi* = sqrt(phi^2 + sigma'^2), phi' = 1 / sqrt(1/phi*^2 + 1/v),
    mu' = mu + phi'^2 sum_j g(phi_j)(s_j - E). Same as PlayerRatings'
    ``glicko2(games, status, tau = tau, rdmax = Inf)`` for one period, up to its volatility search.

    Examples
    --------
    Glickman's worked example: 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.

    >>> r, rd, vol = glicko2_period([1500, 1400, 1550, 1700], [200, 30, 100, 300], [0.06] * 4,
    ...                             player=[0, 0, 0], opponent=[1, 2, 3], score=[1, 0, 0])
    >>> round(float(r[0]), 2), round(float(rd[0]), 2)
    (1464.05, 151.52)
    """
    tau, tol = float(tau), float(tol)  # declared above
    r = np.asarray(rating, dtype=float)
    d = np.asarray(rd, dtype=float)
    s = np.asarray(volatility, dtype=float)
    if not (r.ndim == d.ndim == s.ndim == 1 and r.size == d.size == s.size):
        raise ValidationError(
            f"rating, rd and volatility must be 1-D arrays of one length, got shapes {r.shape}, {d.shape}, {s.shape}"
        )
    if not (np.isfinite(r).all() and np.isfinite(d).all() and np.isfinite(s).all()):
        raise ValidationError("rating, rd and volatility must be finite numbers")
    if (d <= 0).any() or (s <= 0).any():
        raise ValidationError("rd and volatility must be positive")
    i = np.asarray(player)
    j = np.asarray(opponent)
    sc = np.asarray(score, dtype=float)
    if not (i.ndim == j.ndim == sc.ndim == 1 and i.size == j.size == sc.size):
        raise ValidationError(f"player, opponent and score must be 1-D of one length, got {i.shape}, {j.shape}, {sc.shape}")
    for name, arr in (("player", i), ("opponent", j)):
        if arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() >= r.size):
            raise ValidationError(f"{name} must hold integer positions in 0..{r.size - 1}")
    check_score_values(sc, "score")
    if (i == j).any():
        raise ValidationError(f"player {int(i[i == j][0])} meets itself; every game needs two different players")
    mu, phi, sigma, _ = _period_update(
        (r - _BASE_RATING) / GLICKO2_SCALE,
        d / GLICKO2_SCALE,
        s,
        np.concatenate([i, j]).astype(np.intp),
        np.concatenate([j, i]).astype(np.intp),
        np.concatenate([sc, 1.0 - sc]),
        tau,
        tol,
    )
    return mu * GLICKO2_SCALE + _BASE_RATING, phi * GLICKO2_SCALE, sigma


@dataclass(frozen=True)
class Glicko2Result(HasSummary):
    """Final Glicko-2 ratings and their history over the rating periods.

    Attributes
    ----------
    ratings : pandas.DataFrame
        One row per player (index ``player``), best first: ``rating``, ``rd``, ``volatility``,
        ``lower`` and ``upper`` (rating -/+ 2 RD, Glickman's 95% interval), ``games``, ``wins``,
        ``draws``, ``losses``, and ``lag`` (periods since the player last played, 0 if they played in
        the last one).
    history : pandas.DataFrame
        Long table with one row per period and player: ``period``, ``player``, ``rating``, ``rd``,
        ``volatility`` at the end of that period, and ``games`` played in it. Before their first game a
        player shows the initial values and is not aged (Glickman's unrated player).
    periods : tuple
        Period labels in the order they were rated.
    tau, tol : float
        System constant and volatility tolerance used.
    init : tuple of float
        Initial (rating, RD, volatility).
    n_games : int
        Number of games rated.
    """

    ratings: pd.DataFrame
    history: pd.DataFrame = field(repr=False)
    periods: tuple
    tau: float
    tol: float
    init: tuple[float, float, float]
    n_games: int

    def summary(self, top: int | None = None) -> Summary:
        """The final ratings, best first (numbers are rounded only when rendered).

        Parameters
        ----------
        top : int, optional
            Show only the best ``top`` players.

        Returns
        -------
        Summary
            The ratings' summary.
        """
        table = (self.ratings if top is None else self.ratings.head(top)).copy()
        table.insert(0, "rank", range(1, len(table) + 1))
        cols = [c for c in ("rank", "rating", "rd", "volatility", "lower", "upper", "games") if c in table]
        title = (f"Glicko-2 ratings: {len(self.ratings)} players, {self.n_games} games, {len(self.periods)} periods "
                 f"(tau={self.tau:g}, init={self.init[0]:g}/{self.init[1]:g}/{self.init[2]:g})")
        best = [Line.of("best", "Best: ", Strong(str(table.index[0])),
                        f", rating {table['rating'].iloc[0]:.2f} (95% interval {table['lower'].iloc[0]:.2f} to "
                        f"{table['upper'].iloc[0]:.2f})")] if len(table) else []
        return Summary(title, tuple(best), (("ratings", table[cols]),), digits={"volatility": 5, "*": 2},
                       data={"players": len(self.ratings), "games": self.n_games, "periods": len(self.periods),
                             "tau": self.tau, "ratings": self.ratings.reset_index()})


def _check_init(init: Sequence[float]) -> tuple[float, float, float]:
    init = tuple(init)
    if len(init) != 3:
        raise ValidationError(f"init must be (rating, rd, volatility), got {init!r}")
    return (
        check_number(init[0], "init rating"),
        check_number(init[1], "init rd", low=0.0, low_open=True),
        check_number(init[2], "init volatility", low=0.0, low_open=True),
    )


@constraints(tau=POSITIVE, tol=POSITIVE)
def glicko2(
    matches: pd.DataFrame,
    *,
    tau: float = 0.5,
    init: Sequence[float] = (1500.0, 350.0, 0.06),
    tol: float = 1e-6,
    source: str = "matches",
) -> Glicko2Result:
    """Glicko-2 ratings from a tidy table of matches, one rating period after another.

    Parameters
    ----------
    matches : pandas.DataFrame
        Columns ``period``, ``player``, ``opponent``, ``score`` (other columns are ignored). Each game
        appears once; ``score`` is the player's result (1 win, 0.5 draw, 0 loss) and the opponent
        scores 1 - score. Periods are rated in sorted order of their values (numbers numerically, text
        lexicographically, an ordered categorical in category order); row order does not matter.
    tau : float, default 0.5
        System constant; Glickman suggests 0.3 to 1.2.
    init : (rating, rd, volatility), default (1500, 350, 0.06)
        State of a player before their first game.
    tol : float, default 1e-6
        Convergence tolerance of the volatility iteration (Glickman's epsilon).
    source : str, default "matches"
        How error messages name the table (the CLI passes the file name).

    Returns
    -------
    Glicko2Result
        Final ratings (best first) with RD, volatility and the 95% interval, and the history per period.

    Notes
    -----
    Each period applies :func:`glicko2_period` to every player who has played at least once so far:
    the players of the period are updated from everybody's start-of-period state, the others only
    age: phi' = sqrt(phi^2 + sigma^2). A player enters with ``init`` at their first period (Glickman's
    unrated player), so periods before it do not age them. The final table lists the best first;
    ratings within ``1e-9 * max(1, largest |rating|)`` of each other (1.5e-6 points at 1500) count as
    equal and keep the players' sorted order (``irtbridge._ties``), so players with the same record are
    not ordered by the rounding of their sums.

    R equivalent (PlayerRatings)::

        glicko2(matches[, c("period", "player", "opponent", "score")],
                init = c(1500, 350, 0.06), tau = 0.5, rdmax = Inf, history = TRUE)

    Its documented differences: it finds the volatility with ``optimize()`` on the same likelihood
    (default tolerance ~1.2e-4 on ln sigma^2, within +/- 4 tau) instead of the Illinois iteration to
    1e-6; it postpones the RD growth of a player who sits out until they play again, so where it
    reports RD_R for a player who sat out the last L periods (its ``Lag``) this function reports
    173.7178 * sqrt((RD_R / 173.7178)^2 + L sigma^2); its scale is 400 / ln 10
    (173.71779) instead of the paper's 173.7178. Ratings agree to ~1e-4 points on small
    tournaments and to 0.009 points after 100 periods of 10^6 games (``speed/rating.py``); with
    its ``optimize()`` tightened to 1e-12 to 5e-5 points, and with the same scale as well to ~1e-8.

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"period": [1, 1, 2], "player": ["a", "b", "a"],
    ...                   "opponent": ["b", "c", "c"], "score": [1, 0.5, 0]})
    >>> result = glicko2(m)
    >>> list(result.ratings.columns[:5])
    ['rating', 'rd', 'volatility', 'lower', 'upper']
    """
    tau, tol = float(tau), float(tol)  # declared above
    r0, rd0, s0 = _check_init(init)

    frame = as_matches(matches, source)
    score = score_array(frame["score"], source)
    player, opponent, players = player_codes(frame["player"], frame["opponent"])
    selfplay = player == opponent
    if selfplay.any():
        row = np.flatnonzero(selfplay)[0]
        raise ValidationError(
            f"{source}: player {players[player[row]]!r} meets itself (row {frame.index[row]!r}); "
            "every game needs two different players"
        )
    period, periods = period_codes(frame["period"], source)

    n_players = len(players)
    n_periods = len(periods)
    n_games = len(frame)
    # both sides of every game, grouped by period, so each period is one contiguous slice
    both_period = np.concatenate([period, period])
    order = np.argsort(both_period, kind="stable")
    both_player = np.concatenate([player, opponent])[order]
    both_opponent = np.concatenate([opponent, player])[order]
    both_score = np.concatenate([score, 1.0 - score])[order]
    bounds = np.searchsorted(both_period[order], np.arange(n_periods + 1))

    mu = np.full(n_players, (r0 - _BASE_RATING) / GLICKO2_SCALE)
    phi = np.full(n_players, rd0 / GLICKO2_SCALE)
    sigma = np.full(n_players, s0)
    entered = np.zeros(n_players, dtype=bool)
    last_played = np.full(n_players, -1)
    # one float block (period, player, [mu, phi, sigma]) so the history frame needs no copy
    hist = np.empty((n_periods, n_players, 3))
    hist_games = np.empty((n_periods, n_players), dtype=np.int64)
    for t in range(n_periods):
        sl = slice(bounds[t], bounds[t + 1])
        new_mu, new_phi, new_sigma, games = _period_update(
            mu, phi, sigma, both_player[sl], both_opponent[sl], both_score[sl], tau, tol
        )
        entered |= games > 0
        # players not yet rated stay at init instead of ageing
        mu = np.where(entered, new_mu, mu)
        phi = np.where(entered, new_phi, phi)
        sigma = np.where(entered, new_sigma, sigma)
        last_played[games > 0] = t
        hist[t, :, 0], hist[t, :, 1], hist[t, :, 2] = mu, phi, sigma
        hist_games[t] = games

    rating = mu * GLICKO2_SCALE + _BASE_RATING
    rd = phi * GLICKO2_SCALE
    wins = np.bincount(both_player[both_score == 1.0], minlength=n_players)
    draws = np.bincount(both_player[both_score == 0.5], minlength=n_players)
    losses = np.bincount(both_player[both_score == 0.0], minlength=n_players)
    ratings = pd.DataFrame(
        {
            "rating": rating,
            "rd": rd,
            "volatility": sigma,
            "lower": rating - 2.0 * rd,
            "upper": rating + 2.0 * rd,
            "games": wins + draws + losses,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "lag": (n_periods - 1) - last_played,
        },
        index=players,
    )
    # equal ratings, up to rounding noise, keep the player order
    ratings = ratings.iloc[stable_argsort(rating, descending=True)]

    hist[:, :, 0] = hist[:, :, 0] * GLICKO2_SCALE + _BASE_RATING
    hist[:, :, 1] *= GLICKO2_SCALE
    history = pd.DataFrame(hist.reshape(-1, 3), columns=["rating", "rd", "volatility"], copy=False)
    history.insert(0, "period", periods.repeat(n_players))
    history.insert(1, "player", np.tile(players.to_numpy(), n_periods))
    history["games"] = hist_games.ravel()
    return Glicko2Result(
        ratings=ratings,
        history=history,
        periods=tuple(periods),
        tau=tau,
        tol=tol,
        init=(r0, rd0, s0),
        n_games=n_games,
    )

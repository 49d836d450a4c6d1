"""Glicko-2: irtbridge.rating.glicko2 vs R's PlayerRatings::glicko2, side by side.

Default: 10,000 players x 100 periods with 10,000 games per period (10^6 games, ~13.5% of the
players sitting out each period). Both engines get the same matches; R is timed inside R with
system.time() around glicko2() only, Python with time.perf_counter() around irtbridge.rating.glicko2()
only (reading the CSV is excluded on both sides).

PlayerRatings is configured as Glickman (init 1500/350/0.06, tau, rdmax = Inf, gamma = 0). Its RD of a
player who sat out the last `Lag` periods has not been grown yet (it postpones that to the next game),
so RDs are compared as sqrt((RD q)^2 + Lag sigma^2) / q with q = ln 10 / 400; ratings and
volatilities are compared as they are.

    python speed/rating.py            # full size
    python speed/rating.py --quick    # 1,000 players x 20 periods x 1,000 games

A second R run uses PlayerRatings' glicko2 with optimize(tol = 1e-12) in its volatility search
(skip with --no-tight): the stock differences are that tolerance, accumulated over the periods.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irtbridge.rating import glicko2

# args: games.csv ratings_out.csv time_out.txt tau mode; mode "stock" runs PlayerRatings::glicko2 as
# shipped, "tight" the same function with its volatility search optimize(tol = 1e-12) (the deparsed
# function with that one argument added, evaluated in the package namespace) to show that the stock
# differences come from optimize()'s default tolerance.
R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(PlayerRatings))
g2 <- PlayerRatings::glicko2
if (args[5] == "tight") {
  src <- deparse(g2)
  hit <- grep("optimize(nllh,", src, fixed = TRUE)
  stopifnot(length(hit) == 1)
  src[hit] <- sub("optimize(nllh,", "optimize(nllh, tol = 1e-12,", src[hit], fixed = TRUE)
  g2 <- eval(parse(text = src))
  environment(g2) <- asNamespace("PlayerRatings")
}
games <- read.csv(args[1])
games <- games[, c("period", "player", "opponent", "score")]
elapsed <- system.time(fit <- g2(games, init = c(1500, 350, 0.06), tau = as.numeric(args[4]),
                                 rdmax = Inf, sort = FALSE))[["elapsed"]]
r <- fit$ratings
write.csv(data.frame(player = r$Player, rating = sprintf("%.17g", r$Rating),
                     rd = sprintf("%.17g", r$Deviation), volatility = sprintf("%.17g", r$Volatility),
                     lag = r$Lag), args[2], row.names = FALSE)
writeLines(sprintf("%.6f", elapsed), args[3])
writeLines(as.character(packageVersion("PlayerRatings")), paste0(args[3], ".version"))
"""


def run_r(tmp: Path, tau: float, mode: str) -> tuple[float, str, pd.DataFrame]:
    out, timing = tmp / f"r_{mode}.csv", tmp / f"time_{mode}.txt"
    subprocess.run(["Rscript", str(tmp / "glicko2.R"), str(tmp / "games.csv"), str(out), str(timing),
                    repr(tau), mode], check=True)
    return float(timing.read_text()), (tmp / f"time_{mode}.txt.version").read_text().strip(), \
        pd.read_csv(out).set_index("player")


def differences(ours: pd.DataFrame, ref: pd.DataFrame) -> dict[str, float]:
    ref = ref.loc[ours.index]
    q = math.log(10) / 400
    rd_glickman = np.sqrt((ref["rd"] * q) ** 2 + ref["lag"] * ref["volatility"] ** 2) / q
    return {
        "rating": float(np.abs(ours["rating"] - ref["rating"]).max()),
        "rd": float(np.abs(ours["rd"] - rd_glickman).max()),
        "rd_raw": float(np.abs(ours["rd"] - ref["rd"]).max()),
        "volatility": float(np.abs(ours["volatility"] - ref["volatility"]).max()),
        "sat_out": int((ref["lag"] > 0).sum()),
    }


def make_matches(n_players: int, n_periods: int, games_per_period: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, n_players)
    n = n_periods * games_per_period
    player = rng.integers(0, n_players, n)
    opponent = (player + rng.integers(1, n_players, n)) % n_players  # never the player itself
    p_win = 1.0 / (1.0 + np.exp(-(strength[player] - strength[opponent])))
    u = rng.random(n)
    # 10% draws, otherwise the stronger side tends to win
    score = np.where(u < 0.9 * p_win, 1.0, np.where(u < 0.9 * p_win + 0.1, 0.5, 0.0))
    return pd.DataFrame({
        "period": np.repeat(np.arange(1, n_periods + 1), games_per_period),
        "player": player,
        "opponent": opponent,
        "score": score,
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--periods", type=int, default=100)
    parser.add_argument("--games-per-period", type=int, default=10_000)
    parser.add_argument("--tau", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="1,000 players x 20 periods x 1,000 games")
    parser.add_argument("--no-tight", action="store_true",
                        help="skip the second R run with optimize(tol = 1e-12) (saves half the time)")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.periods, args.games_per_period = 1_000, 20, 1_000

    matches = make_matches(args.players, args.periods, args.games_per_period, args.seed)
    print(f"Glicko-2 benchmark: {args.players:,} players x {args.periods} periods, {len(matches):,} games, "
          f"tau={args.tau}")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        matches.to_csv(tmp / "games.csv", index=False)
        (tmp / "glicko2.R").write_text(R_SCRIPT)
        r_time, r_version, ref = run_r(tmp, args.tau, "stock")
        tight = None if args.no_tight else run_r(tmp, args.tau, "tight")

    glicko2(matches.iloc[:100], tau=args.tau)  # warm-up: first-call overheads are not the algorithm
    start = time.perf_counter()
    result = glicko2(matches, tau=args.tau)
    py_time = time.perf_counter() - start

    print(f"  PlayerRatings {r_version} glicko2 (R, system.time): {r_time:10.3f} s")
    print(f"  irtbridge glicko2 (Python, perf_counter):     {py_time:10.3f} s")
    print(f"  ratio R / irtbridge:                          {r_time / py_time:10.1f} x")
    rows = [("PlayerRatings as shipped", differences(result.ratings, ref))]
    if tight is not None:
        rows.append(("PlayerRatings, optimize(tol = 1e-12)", differences(result.ratings, tight[2])))
    print("  max |difference| vs irtbridge (RD: PlayerRatings' RD aged by its Lag, as Glickman does each period)")
    for label, d in rows:
        print(f"    {label:<38} rating {d['rating']:.3g}  RD {d['rd']:.3g}  volatility {d['volatility']:.3g}"
              f"  (RD as reported: {d['rd_raw']:.3g}; {d['sat_out']} players sat out the last period)")
    final = rows[-1][1]
    ok = final["rating"] < 1e-3 and final["rd"] < 1e-3
    print(f"  agreement within 1e-3 points ({rows[-1][0]}): " + ("yes" if ok else "NO"))
    if tight is not None:
        print("  (the stock differences are optimize()'s default tolerance, ~1.2e-4 on ln sigma^2, accumulated "
              "over the periods; irtbridge iterates to Glickman's 1e-6)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: instance hardness of a pool of models, irtbridge vs a per-instance reference.

irtbridge computes the positive rates of every model with one sort per model (O(n log n)). The peer is
the straightforward implementation of Prudêncio's formulas: a loop over models and instances that counts,
for each instance, how many scores are <= and == its own (O(n^2) per model), then evaluates the
printed closed forms (Eqs. 13-14, 16/18, 22/26, 28/30, 32/34 with the tie term). Both run on the same
data; the script checks they agree and prints times, irtbridge's scaling from 10^5 to 10^6 instances
and the speed ratio.

    python speed/hardness.py            # 10^6 x 5 models, reference on 10^4
    python speed/hardness.py --quick    # 10^5 x 5 models, reference on 2 x 10^3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from irtbridge.hardness import METHODS, hardness_table, instance_hardness


def make_pool(n: int, n_models: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (30 % class 0) and a pool mixing continuous scores with heavily tied ones (like a
    decision tree's leaf frequencies or a 5-NN's votes), so that the tie terms matter."""
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.7).astype(int)
    signal = rng.normal(size=n) + 1.2 * y
    rows = []
    for k in range(n_models):
        p = 1.0 / (1.0 + np.exp(-(signal + rng.normal(scale=0.5 + 0.2 * k, size=n))))
        kind = k % 5
        if kind == 1:
            p = np.round(p * 5) / 5  # 5-NN votes: six distinct values
        elif kind == 2:
            p = np.round(p, 2)
        elif kind == 3:
            p = np.round(p, 4)
        rows.append(p)
    return y, np.vstack(rows)


def reference(y: np.ndarray, scores: np.ndarray, method: str, threshold: float = 0.5) -> np.ndarray:
    """Prudêncio's formulas evaluated instance by instance; obviously correct and O(n^2) per model."""
    m, n = scores.shape
    total = np.zeros(n)
    for k in range(m):
        row = scores[k]
        for i in range(n):
            s = row[i]
            positive = y[i] == 0  # the paper's "positive" class is 0
            if method == "sf":
                h = float(s > threshold) if positive else float(s <= threshold)
            elif method == "sd":
                h = s * s if positive else (1.0 - s) ** 2
            elif method == "su":
                h = s if positive else 1.0 - s
            else:
                rate = np.count_nonzero(row <= s) / n  # R(s)
                d = np.count_nonzero(row == s) / n  # l/n
                if method == "rd":
                    h = rate**2 + d * (d / 3 - rate) if positive else (1 - rate) ** 2 + d * (d / 3 + (1 - rate))
                else:  # ru
                    h = rate - d / 2 if positive else 1 - rate + d / 2
            total[i] += h
    return total / m


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    ap.add_argument("--models", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n_big = 10**5 if args.quick else 10**6
    n_mid = n_big // 10
    n_ref = 2 * 10**3 if args.quick else 10**4
    repeat = 3

    print(f"instance hardness, {args.models} models; irtbridge at n = {n_mid:,} and {n_big:,}; reference at n = {n_ref:,}")
    y_ref, s_ref = make_pool(n_ref, args.models, args.seed)
    y_mid, s_mid = make_pool(n_mid, args.models, args.seed + 1)
    y_big, s_big = make_pool(n_big, args.models, args.seed + 2)

    header = f"{'method':<6} {'ref n_ref':>10} {'irtb n_ref':>11} {'ratio':>8} {'irtb n_mid':>11} {'irtb n_big':>11} {'scaling':>8} {'ref n_big*':>11} {'ratio*':>9} {'max |diff|':>11}"
    print(header)
    print("-" * len(header))
    totals = {"irtb_big": 0.0, "ref_big": 0.0}
    for method in METHODS:
        t_ref, h_ref = best_time(lambda: reference(y_ref, s_ref, method), 1)
        t_small, h_small = best_time(lambda: instance_hardness(y_ref, s_ref, method).to_numpy(), repeat)
        diff = float(np.max(np.abs(h_ref - h_small)))
        if diff > 1e-12:
            raise SystemExit(f"{method}: irtbridge and the reference disagree by {diff:g}")
        t_mid, _ = best_time(lambda: instance_hardness(y_mid, s_mid, method), repeat)
        t_big, _ = best_time(lambda: instance_hardness(y_big, s_big, method), repeat)
        # the reference is quadratic for rd/ru (count per instance) and linear otherwise
        power = 2 if method in ("rd", "ru") else 1
        ref_big = t_ref * (n_big / n_ref) ** power
        totals["irtb_big"] += t_big
        totals["ref_big"] += ref_big
        print(
            f"{method:<6} {t_ref:>9.3f}s {t_small:>10.4f}s {t_ref / t_small:>7.0f}x {t_mid:>10.4f}s {t_big:>10.4f}s "
            f"{t_big / t_mid:>7.1f}x {ref_big:>10.0f}s {ref_big / t_big:>8.0f}x {diff:>11.1e}"
        )
    print("-" * len(header))
    t_table, _ = best_time(lambda: hardness_table(y_big, s_big), repeat)
    t_table_mid, _ = best_time(lambda: hardness_table(y_mid, s_mid), repeat)
    print(
        f"all five methods at n = {n_big:,}: irtbridge {totals['irtb_big']:.2f}s one by one, "
        f"{t_table:.2f}s in one hardness_table call (scaling {t_table / t_table_mid:.1f}x from n = {n_mid:,}); "
        f"reference (extrapolated*) {totals['ref_big']:.0f}s; ratio {totals['ref_big'] / t_table:.0f}x"
    )
    print(
        "scaling = time(n_big)/time(n_mid) for a 10x larger n (10x is linear, ~12x is n log n); "
        "* the reference at n_big is extrapolated from n_ref (n^2 for rd/ru, n otherwise), not run."
    )


if __name__ == "__main__":
    main()

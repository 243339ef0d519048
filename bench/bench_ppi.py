"""Judge-corrected estimates on planted judges: how often each 95% CI covers the true mean, how
wide it is, and what the judge is worth in human labels (tasks/ppi.py, as tbl_corrected uses it).

Ratings on 1–7: human means ~ N(4, 1.2) clipped, a judge at +0.8 with noise SD 0.6 (tracks the
humans), and one unrelated to them. Verdicts: 30% of answers truly correct, a lenient judge
(sensitivity 0.9, specificity 0.6). N items, a seeded share labelled, R replications each.
Prints one row per judge × share: coverage of judge-only, PPI, Rogan–Gladen and labels-only
CIs, mean PPI width, width ratio and labels saved; then the label planner against the
estimator's simulated spread.

.venv/bin/python bench/bench_ppi.py [--items 2000] [--reps 1000] [--shares 0.02,0.05,0.1,0.2]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tasks import ppi

TRUE_RATING = float(np.clip(np.random.default_rng(99).normal(4, 1.2, 4_000_000), 1, 7).mean())


def rating(rng, n, kind):
    human = np.clip(rng.normal(4, 1.2, n), 1, 7)
    if kind == "biased":
        return human, np.clip(human + 0.8 + rng.normal(0, 0.6, n), 1, 7), TRUE_RATING
    return human, np.clip(rng.normal(5, 1, n), 1, 7), TRUE_RATING


def verdict(rng, n, _kind):
    truth = (rng.random(n) < 0.3).astype(float)
    said = np.where(truth == 1, rng.random(n) < 0.9, rng.random(n) < 0.4).astype(float)
    return truth, said, 0.3


def covers(ci, truth):
    return ci.lo is not None and ci.lo <= truth <= ci.hi


def run(draw, kind, n, share, reps, rng, binary):
    k = max(2, round(share * n))
    hits = {"judge": 0, "ppi": 0, "rg": 0, "labels": 0}
    widths, ratios = [], []
    for _ in range(reps):
        y, yhat, truth = draw(rng, n, kind)
        lab = rng.permutation(n)[:k]
        rest = np.setdiff1d(np.arange(n), lab)
        fused, _ = ppi.ppi_mean_ci(y[lab], yhat[lab], yhat[rest])
        alone, labels = ppi.mean_ci(yhat), ppi.mean_ci(y[lab])
        hits["judge"] += covers(alone, truth)
        hits["ppi"] += covers(fused, truth)
        hits["labels"] += covers(labels, truth)
        if binary:
            hits["rg"] += covers(ppi.rogan_gladen_ci(yhat, y[lab], yhat[lab], 200, rng), truth)
        widths.append(fused.width)
        ratios.append(labels.width / fused.width)
    ratio = float(np.mean(ratios))
    cov = {key: v / reps for key, v in hits.items()}
    rg = f"{cov['rg']:.3f}" if binary else "  –  "
    print(
        f"{kind:9} {share:5.2f} {k:5d}  {cov['judge']:.3f}  {cov['ppi']:.3f}  {rg}  "
        f"{cov['labels']:.3f}  {np.mean(widths):.3f}  {ratio:5.2f}  {k * ratio**2 - k:8.0f}"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=2000)
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--shares", default="0.02,0.05,0.1,0.2")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    shares = [float(s) for s in args.shares.split(",")]
    sd = math.sqrt(0.95 * 0.05 / args.reps)
    print(f"{args.items} items, {args.reps} replications (binomial SD of 95% coverage {sd:.3f})")
    print("judge     share  labels judge  ppi    rg     labels ppi_w  ratio  saved")
    for kind, draw, binary in [
        ("biased", rating, False),
        ("unrelated", rating, False),
        ("lenient", verdict, True),
    ]:
        for share in shares:
            run(draw, kind, args.items, share, args.reps, rng, binary)
    print("\nlabel planner (plain PPI) against the estimator's simulated spread (4,000 draws)")
    for hw in (0.15, 0.1, 0.08):
        n = ppi.n_labels_for_halfwidth(hw, args.items, 1.3, 0.8)
        if n is None:
            print(f"±{hw}: out of reach with {args.items} judged items (judge more)")
            continue
        y = rng.normal(0, 1.3, (4000, args.items))
        est = y[:, n:].mean(1) + rng.normal(0, 0.8, (4000, n)).mean(1)
        print(f"±{hw}: {n} labels planned; simulated half-width at n {ppi.Z * est.std():.4f}")


if __name__ == "__main__":
    main()

"""Calibration's `miscalibrated` flag (tasks/calibration.py), measured on planted designs: how
often it flags a judge that is calibrated by construction (it should be about 5%, the bound
being a 95th percentile) and how often it flags planted overconfident ones, with 1 and 3
repeats per item; beside it, the flag rate of a bound that draws each call's truth apart (the
naive consistency resampling), which treats repeats as independent evidence. Then the time of
one design's numbers at paper scale (10,000 calls, 1,000 resamples).

A design: `--items` items, truth q ~ U(0.05, 0.95), y ~ Bernoulli(q) per item, the judge says
P = q (calibrated) or q pushed away from 0.5 (logit × 1.5 or × 3: overconfident); repeats repeat the
item's P and truth, as a deterministic judge's would.

.venv/bin/python bench/bench_calibration.py [--designs 200] [--items 300] [--boot 500]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks import calibration as cal
from tasks.stats import design_rng


def design(rng: np.random.Generator, items: int, sharpen: float) -> tuple[np.ndarray, np.ndarray]:
    q = rng.uniform(0.05, 0.95, items)
    y = rng.random(items) < q
    p = 1 / (1 + np.exp(-np.log(q / (1 - q)) * sharpen))
    return p, y


def calls(p: np.ndarray, y: np.ndarray, repeats: int, name: str) -> pl.DataFrame:
    n = p.size
    return pl.DataFrame(
        {
            "study": "bench",
            "judge": name,
            "model": "m",
            "prompt_level": "base",
            "reasoning_effort": "n/a",
            "unit": np.repeat([f"i{i}" for i in range(n)], repeats),
            "flipped": False,
            "status": "ok",
            "p": np.repeat(p, repeats),
            "y": np.repeat(y, repeats),
        }
    )


def flag_rates(designs: int, items: int, boot: int, repeats: int, sharpen: float) -> tuple:
    """(share flagged by the item-coupled bound, share flagged by the per-call bound)."""
    rng = np.random.default_rng(repeats * 1000 + int(sharpen * 10))
    frames = [calls(*design(rng, items, sharpen), repeats, f"d{k:04d}") for k in range(designs)]
    table, _ = cal.calibration_tables(pl.concat(frames), "accuracy", "TRUE", n_boot=boot)
    naive = 0
    for frame, ece in zip(frames, table.sort("judge")["ece"], strict=True):
        p = frame["p"].to_numpy()
        null = cal.calibrated_ece(
            p, np.arange(p.size), np.zeros(p.size, bool), boot, design_rng(1, ["naive"])
        )
        naive += ece > np.quantile(null, 0.95)
    return float(table["miscalibrated"].mean()), naive / designs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=200)
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--boot", type=int, default=500)
    args = ap.parse_args()
    print(f"{args.designs} planted designs × {args.items} items, {args.boot} resamples each")
    print(f"{'judge':<14}{'repeats':>8}{'flagged (item bound)':>22}{'flagged (per-call)':>20}")
    for name, sharpen in (("calibrated", 1.0), ("overconf. ×1.5", 1.5), ("overconf. ×3", 3.0)):
        for repeats in (1, 3):
            ours, naive = flag_rates(args.designs, args.items, args.boot, repeats, sharpen)
            print(f"{name:<14}{repeats:>8}{ours:>22.1%}{naive:>20.1%}")
    rng = np.random.default_rng(0)
    big = calls(*design(rng, 5000, 1.0), 2, "big")
    start = time.perf_counter()
    cal.calibration_tables(big, "accuracy", "TRUE", n_boot=1000)
    took = time.perf_counter() - start
    print(f"one design of {big.height:,} calls (5,000 items × 2), 1,000 resamples: {took:.2f} s")


if __name__ == "__main__":
    main()

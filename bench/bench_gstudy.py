"""Which G-study estimator fits judgelab's data sizes? Times the expected-mean-squares solution
(tasks/gtheory.py) on a rating study's full size, statsmodels MixedLM (REML, crossed
`vc_formula` components, one group) on growing designs until it takes longer than --budget
seconds, and `generalizit` 0.1.2 (Henderson method 1) when it is importable (it is not in the
lock: `pip install --target DIR --no-deps generalizit==0.1.2` and put DIR on PYTHONPATH).
Every estimator runs on the same planted crossing; the figures printed are wall seconds and
the largest gap to the EMS components.

    PYTHONPATH=. python bench/bench_gstudy.py [--items 23000] [--budget 300]
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing as mp
import time

import numpy as np
import polars as pl

from tasks import gtheory

FACETS = ("judge", "prompt_level", "scale")
PLANTED = {
    "item": 0.5,
    "judge": 0.3,
    "prompt_level": 0.1,
    "scale": 0.2,
    "judge:item": 0.2,
    "prompt_level:item": 0.05,
    "scale:item": 0.1,
    "residual": 0.25,
}


def planted(items: int, judges: int = 3, levels: int = 3, scales: int = 4, seed: int = 1):
    shape = (judges, levels, scales, items)
    rng = np.random.default_rng(seed)
    y = np.zeros(shape)
    names = (*FACETS, "item")
    for eff in gtheory.effects(FACETS):
        s2 = PLANTED.get(gtheory.name(eff, 4), 0.0)
        if s2:
            size = [shape[a] if names[a] in eff else 1 for a in range(4)]
            y = y + rng.normal(scale=math.sqrt(s2), size=size)
    idx = np.indices(shape).reshape(4, -1)
    return pl.DataFrame(
        {
            "judge": [f"j{k}" for k in idx[0]],
            "prompt_level": [f"p{k}" for k in idx[1]],
            "scale": [f"s{k}" for k in idx[2]],
            "item_id": [f"i{k:05d}" for k in idx[3]],
            "y": y.ravel(),
        }
    )


def ems(cells: pl.DataFrame) -> dict[str, float]:
    return {r["component"]: r["raw"] for r in gtheory.g_study(cells, FACETS, "y")[0]}


def mixedlm(cells: pl.DataFrame) -> dict[str, float]:
    """The same seven random components plus residual by REML (the facet × facet and
    three-way terms are not fitted: each adds another crossed block)."""
    import statsmodels.formula.api as smf

    data = cells.to_pandas().assign(g=1)
    vc = {
        "item": "0 + C(item_id)",
        "judge": "0 + C(judge)",
        "prompt_level": "0 + C(prompt_level)",
        "scale": "0 + C(scale)",
        "judge:item": "0 + C(judge):C(item_id)",
        "prompt_level:item": "0 + C(prompt_level):C(item_id)",
        "scale:item": "0 + C(scale):C(item_id)",
    }
    fit = smf.mixedlm("y ~ 1", data, groups="g", vc_formula=vc, re_formula="0").fit(reml=True)
    out = dict(zip(fit.model.exog_vc.names, fit.vcomp, strict=True))
    out["residual"] = fit.scale
    return out


def generalizit(cells: pl.DataFrame) -> dict[str, float]:
    from generalizit import GeneralizIT

    names = (*FACETS, "item_id")
    tuples = {
        gtheory.name(e, 4): tuple("item_id" if f == "item" else f for f in e)
        for e in gtheory.effects(FACETS)
    }
    tuples["mean"] = ()
    assert all(set(t) <= set(names) for t in tuples.values())
    g = GeneralizIT(cells.to_pandas(), "", "y", variance_tuple_dictionary=tuples)
    g.calculate_anova()
    table = g.design.anova_table
    return {k: float(table.loc[k, "Variance"]) for k in tuples if k != "mean"}


def _run(name: str, items: int, queue: mp.Queue) -> None:
    cells = planted(items)
    start = time.perf_counter()
    try:
        got = {"ems": ems, "mixedlm": mixedlm, "generalizit": generalizit}[name](cells)
    except Exception as exc:  # reported by the parent, not mistaken for a timeout
        queue.put((None, repr(exc)))
        return
    queue.put((time.perf_counter() - start, got))


def timed(name: str, items: int, budget: float) -> tuple[float | None, dict | None]:
    """Seconds and components of one estimator in a child process; None past the budget."""
    queue: mp.Queue = mp.Queue()
    proc = mp.Process(target=_run, args=(name, items, queue))
    proc.start()
    try:
        secs, got = queue.get(timeout=budget)  # before join: a full pipe would block the child
    except Exception:  # queue.Empty: past the budget
        secs, got = None, None
    proc.terminate()
    proc.join()
    if isinstance(got, str):
        raise RuntimeError(f"{name} failed: {got}")
    return secs, got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=23000)  # the paper's largest rating benchmark
    ap.add_argument("--budget", type=float, default=300.0)
    ap.add_argument("--only", choices=("mixedlm", "generalizit"), default=None)
    args = ap.parse_args()
    designs = 3 * 3 * 4
    secs, _ = timed("ems", args.items, args.budget)
    cells = args.items * designs
    print(f"EMS, {args.items} items × {designs} designs ({cells:,} cells): {secs:.2f} s")
    for name in (args.only,) if args.only else ("mixedlm", "generalizit"):
        try:
            __import__({"mixedlm": "statsmodels", "generalizit": "generalizit"}[name])
        except ImportError:
            print(f"{name}: not importable here (not in the lock); skipped")
            continue
        for items in itertools.takewhile(lambda n: n <= args.items, (25, 50, 100, 200, 400, 23000)):
            secs, got = timed(name, items, args.budget)
            cells = items * designs
            if secs is None:
                print(
                    f"{name}, {items} items ({cells:,} cells): over the {args.budget:.0f} s budget"
                )
                break
            ref = ems(planted(items))
            gap = max(abs(got[k] - ref[k]) for k in got if k in ref)
            print(
                f"{name}, {items} items ({cells:,} cells): {secs:.1f} s; max |σ² − EMS| {gap:.2g}"
            )


if __name__ == "__main__":
    main()

"""Ensembles of designs: does averaging several judges' ratings cut bias? (Figures 5–6).

Members are LLM judge designs (P1 D.3: "P1's ensembles are of LLM judges"); a classifier
baseline joins only in the separately labelled pool "judges+baselines", when asked for.

The model strategies take no model twice, as the paper's rule (D.3: "The unrestricted
three-configuration rule, which allowed repeated models, was excluded"): with
`ensemble_distinct = "model"` (default) a member's model is its litellm model string, so two
judges of one model (another temperature or reasoning effort) never share an ensemble; with
"judge" they may. Figure 5 also shows Toxicity without the −3..3 scale: with an outlier scale,
the triples are drawn again from the designs on the other scales (subset "without <scale>")."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import polars as pl

from schemas.ensemble_holdout import EnsembleHoldout
from schemas.ensembles import POOLS, STRATEGIES, Ensembles
from schemas.scores import with_readout
from schemas.validate import validate
from tasks.matrix import items_by_designs

# strategy → (columns every member shares, column in which all members differ); in the
# judges+baselines pool a baseline is a design like any other, joining wherever it fits.
# "model" is the column `ensemble_distinct` names (DISTINCT): the model string, or the judge
# The readout (Analysis.readouts) is a design choice like the prompt level and the scale: the
# strategies that hold the design fixed hold it too; model_free mixes readouts as it mixes the
# rest. With one readout (the default) it changes nothing.
RULES: dict[str, tuple[tuple[str, ...], str]] = {
    "model_free": ((), "model"),
    "model_fixed": (("prompt_level", "scale", "readout"), "model"),
    "scale": (("judge", "prompt_level", "readout"), "scale"),
    "prompt": (("judge", "scale", "readout"), "prompt_level"),
}
# [study.analysis] ensemble_distinct → the column the members of a model strategy differ in
DISTINCT: Mapping[str, str] = MappingProxyType({"model": "model", "judge": "judge"})
if tuple(RULES) != STRATEGIES:
    raise ImportError("tasks.rating.ensembles.RULES and schemas.ensembles.STRATEGIES disagree")
# pool → the item_scores `kind`s whose designs may be members
POOL_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"judges": ("judge",), "judges+baselines": ("judge", "baseline")}
)
if tuple(POOL_KINDS) != POOLS:
    raise ImportError("tasks.rating.ensembles.POOL_KINDS and schemas.ensembles.POOLS disagree")
# size 1 (the single designs) starts the size curve: P1 stresses the gain from one judge to two
SIZES: Mapping[str, Sequence[int]] = MappingProxyType(
    {
        "model_free": (1, 2, 3, 4, 5),
        "model_fixed": (1, 2, 3, 4, 5),
        "scale": (3,),
        "prompt": (3,),
    }
)
HOLDOUT_SIZE = 3
# without the outlier scale only Figure 5's triples are drawn (the paper's size curve has all)
OUTLIER_SIZES = (3,)
# |ensemble bias| must undercut the best member's by more than float noise to "beat" it
BEAT_TOLERANCE = 1e-9
# at most this many items × ensembles × members floats held at once
CHUNK_ELEMENTS = 4_000_000


@dataclass(frozen=True)
class Matrix:
    """One study as arrays: deviations (score − human) of items × designs, NaN = not scored."""

    designs: pl.DataFrame  # one row per design; row i is column i of `dev`
    dev: np.ndarray


@dataclass(frozen=True)
class Cell:
    """The qualifying ensembles of one strategy × size: how many exist, which were drawn."""

    n_possible: int
    members: np.ndarray  # ensembles × size, design indices


@dataclass(frozen=True)
class Fit:
    """Per ensemble: items in common, bias and MAE of the ensemble and of each member."""

    n_items: np.ndarray  # ensembles
    ens_bias: np.ndarray  # ensembles
    ens_mae: np.ndarray
    mem_bias: np.ndarray  # ensembles × size
    mem_mae: np.ndarray


def matrix(item_scores: pl.DataFrame) -> Matrix:
    """One study's item_scores → items × designs deviations from the human mean."""
    designs, dev = items_by_designs(
        with_readout(item_scores),
        ["kind", "judge", "model", "prompt_level", "scale", "readout"],
        pl.col("score_1to7") - pl.col("human_1to7"),
        sort=["judge", "prompt_level", "scale", "readout"],
    )
    return Matrix(designs, dev)


def pools(baselines: bool) -> tuple[str, ...]:
    """The member pools to report: judges only, plus judges+baselines when asked for."""
    return POOLS if baselines else POOLS[:1]


def _keep(m: Matrix, keep: pl.Series) -> Matrix:
    """The designs where `keep` holds (same items, so holdout halves agree)."""
    return Matrix(m.designs.filter(keep), m.dev[:, keep.to_numpy()])


def in_pool(m: Matrix, pool: str) -> Matrix:
    """The designs a pool may draw members from."""
    return _keep(m, m.designs["kind"].is_in(list(POOL_KINDS[pool])))


def variants(m: Matrix, outlier_scale: str | None) -> list[tuple[str, Matrix]]:
    """("all", every design), then ("without <scale>", the designs on the other scales) when
    the study has designs on `outlier_scale`."""
    out = [("all", m)]
    if outlier_scale is not None and (m.designs["scale"] == outlier_scale).any():
        out.append((f"without {outlier_scale}", _keep(m, m.designs["scale"] != outlier_scale)))
    return out


def rule(strategy: str, distinct: str = "model") -> tuple[tuple[str, ...], str]:
    """(columns every member shares, column all members differ in) of a strategy, with the
    model strategies' "model" read as `distinct` says (DISTINCT)."""
    shared, differ = RULES[strategy]
    return shared, DISTINCT[distinct] if differ == "model" else differ


def _buckets(designs: pl.DataFrame, strategy: str, distinct: str) -> list[list[np.ndarray]]:
    """Groups of designs that may form an ensemble, each split into buckets by the column
    members must differ in; an ensemble takes at most one design from each bucket."""
    shared, differ = rule(strategy, distinct)
    frame = designs.with_row_index("d").with_columns(pl.lit(0).alias("_all"))
    groups = []
    for _, grp in frame.group_by([*shared, "_all"], maintain_order=True):
        buckets = grp.group_by(differ, maintain_order=True).agg("d")["d"].to_list()
        groups.append([np.asarray(b, dtype=np.int64) for b in buckets])
    return groups


def _ways(sizes: list[int], k: int) -> list[list[int]]:
    """ways[i][j]: ways to take j designs from buckets i.. at most one per bucket (exact ints;
    ways[0][k] is the elementary symmetric polynomial e_k of the bucket sizes)."""
    ways = [[1] + [0] * k for _ in range(len(sizes) + 1)]
    for i in range(len(sizes) - 1, -1, -1):
        for j in range(1, k + 1):
            ways[i][j] = ways[i + 1][j] + sizes[i] * ways[i + 1][j - 1]
    return ways


def _unrank(ranks: np.ndarray, buckets: list[np.ndarray], k: int, ways: np.ndarray) -> np.ndarray:
    """Combination number r (0 ≤ r < ways[0][k]) → its k designs, for all ranks at once:
    walk the buckets, skipping one while r falls among the combinations that do without it."""
    out = np.empty((len(ranks), k), dtype=np.int64)
    r = ranks.copy()
    need = np.full(len(ranks), k)
    for i, bucket in enumerate(buckets):
        without = ways[i + 1, need]
        take = (need > 0) & (r >= without)
        r = np.where(take, r - without, r)
        per = np.where(take, ways[i + 1, np.maximum(need - 1, 0)], 1)
        pick = r // per
        r = np.where(take, r % per, r)
        rows = np.flatnonzero(take)
        out[rows, k - need[rows]] = bucket[pick[rows].astype(np.int64)]
        need = need - take
    return out


def draw(
    designs: pl.DataFrame,
    strategy: str,
    k: int,
    max_ensembles: int,
    seed: str,
    distinct: str = "model",
) -> Cell:
    """Every qualifying ensemble, or a seeded uniform sample of `max_ensembles` of them,
    counted combinatorially and drawn by rank so huge cells are never materialised."""
    groups = [g for g in _buckets(designs, strategy, distinct) if len(g) >= k]
    tables = [_ways([len(b) for b in g], k) for g in groups]
    counts = [t[0][k] for t in tables]
    n_possible = sum(counts)
    if max([n_possible, *(max(row) for t in tables for row in t)]) >= 2**63:
        raise ValueError(f"{strategy} ensembles of {k}: too many to count in 64 bits")
    if n_possible <= max_ensembles:
        ranks = np.arange(n_possible, dtype=np.int64)
    else:  # random.sample draws from a range without building it
        ranks = np.sort(np.array(random.Random(seed).sample(range(n_possible), max_ensembles)))
    bounds = np.cumsum([0, *counts], dtype=np.int64)  # group g holds ranks bounds[g] ..
    cuts = np.searchsorted(ranks, bounds)
    parts = []
    for i, (g, t) in enumerate(zip(groups, tables, strict=True)):
        local = ranks[cuts[i] : cuts[i + 1]] - bounds[i]
        if local.size:
            parts.append(_unrank(local.astype(np.int64), g, k, np.array(t)))
    members = np.concatenate(parts) if parts else np.empty((0, k), dtype=np.int64)
    return Cell(n_possible, members)


def fit(dev: np.ndarray, members: np.ndarray) -> Fit:
    """Bias and MAE of each ensemble (mean of its members per item) and of each member, on
    the items every member scored; NaN where an ensemble has no item in common."""
    n_ens, k = members.shape
    n_items = np.zeros(n_ens, dtype=np.int64)
    sums = {name: np.zeros(n_ens) for name in ("ens_bias", "ens_mae")}
    sums |= {name: np.zeros((n_ens, k)) for name in ("mem_bias", "mem_mae")}
    step = max(1, CHUNK_ELEMENTS // max(1, dev.shape[0] * k))
    for lo in range(0, n_ens, step):
        x = dev[:, members[lo : lo + step]]  # items × ensembles × members
        common = ~np.isnan(x).any(axis=2)
        x = np.where(common[..., None], x, 0.0)
        ens = x.mean(axis=2)  # ensemble − human, per item
        n_items[lo : lo + step] = common.sum(axis=0)
        sums["ens_bias"][lo : lo + step] = ens.sum(axis=0)
        sums["ens_mae"][lo : lo + step] = np.abs(ens).sum(axis=0)
        sums["mem_bias"][lo : lo + step] = x.sum(axis=0)
        sums["mem_mae"][lo : lo + step] = np.abs(x).sum(axis=0)
    n = np.where(n_items > 0, n_items, np.nan)
    return Fit(
        n_items,
        sums["ens_bias"] / n,
        sums["ens_mae"] / n,
        sums["mem_bias"] / n[:, None],
        sums["mem_mae"] / n[:, None],
    )


def _reduction(member: float | None, ensemble: float | None) -> float | None:
    if member is None or ensemble is None or member == 0:
        return None
    return 100 * (1 - ensemble / member)


def summarise(f: Fit) -> dict[str, float | int | None]:
    """A cell's row: mean |bias| and MAE of members and ensembles over its ensembles. The
    members' yardstick is each member design's own |bias| (not |mean of their biases|, which
    is the ensemble's), averaged over its members, then over ensembles."""
    ok = f.n_items > 0
    if not ok.any():
        return {
            "n_evaluated": 0,
            **dict.fromkeys(
                [
                    "member_abs_bias",
                    "ensemble_abs_bias",
                    "bias_reduction_pct",
                    "member_mae",
                    "ensemble_mae",
                    "mae_reduction_pct",
                    "share_beats_best_member",
                ]
            ),
        }
    ens_abs, mem_abs = np.abs(f.ens_bias[ok]), np.abs(f.mem_bias[ok])
    member_abs_bias = float(mem_abs.mean(axis=1).mean())
    ensemble_abs_bias = float(ens_abs.mean())
    member_mae = float(f.mem_mae[ok].mean(axis=1).mean())
    ensemble_mae = float(f.ens_mae[ok].mean())
    return {
        "n_evaluated": int(ok.sum()),
        "member_abs_bias": member_abs_bias,
        "ensemble_abs_bias": ensemble_abs_bias,
        "bias_reduction_pct": _reduction(member_abs_bias, ensemble_abs_bias),
        "member_mae": member_mae,
        "ensemble_mae": ensemble_mae,
        "mae_reduction_pct": _reduction(member_mae, ensemble_mae),
        "share_beats_best_member": float(np.mean(ens_abs < mem_abs.min(axis=1) - BEAT_TOLERANCE)),
    }


def _cell_seed(seed: int, study: str, pool: str, strategy: str, k: int, subset: str = "all") -> str:
    """One seed per cell, so a cell's sample does not depend on which other cells ran
    (the holdout re-draws exactly the triples `ensembles` evaluated)."""
    cell = f"{seed}/{study}/{pool}/{strategy}/{k}"
    return cell if subset == "all" else f"{cell}/{subset}"


def _studies(item_scores: pl.DataFrame) -> list[tuple[str, pl.DataFrame]]:
    return [
        (study, grp)
        for (study,), grp in item_scores.sort("study").group_by("study", maintain_order=True)
    ]


def ensembles(
    item_scores: pl.DataFrame,
    sizes: Mapping[str, Sequence[int]] = SIZES,
    max_ensembles: int = 2000,
    seed: int = 0,
    baselines: bool = False,
    distinct: str = "model",
    outlier_scale: str | None = None,
) -> pl.DataFrame:
    """item_scores → one row per study × subset × pool × strategy × size; impossible cells
    have n_possible 0. Members are judge designs; `baselines` adds the judges+baselines pool;
    `distinct` ("model" or "judge") is what a model strategy's members may not repeat; with
    `outlier_scale` the triples (OUTLIER_SIZES) again without that scale's designs."""
    unknown = sorted(set(sizes) - set(RULES))
    if unknown:
        raise ValueError(f"unknown strategy(ies) {unknown}; known: {list(RULES)}")
    rows = []
    for study, grp in _studies(item_scores):
        for subset, everyone in variants(matrix(grp), outlier_scale):
            for pool in pools(baselines):
                m = in_pool(everyone, pool)
                for strategy in RULES:
                    for k in sorted(sizes.get(strategy, ())):
                        if subset != "all" and k not in OUTLIER_SIZES:
                            continue
                        seed_k = _cell_seed(seed, study, pool, strategy, k, subset)
                        cell = draw(m.designs, strategy, k, max_ensembles, seed_k, distinct)
                        rows.append(
                            {
                                "study": study,
                                "subset": subset,
                                "pool": pool,
                                "strategy": strategy,
                                "size": k,
                                "n_possible": cell.n_possible,
                                **summarise(fit(m.dev, cell.members)),
                            }
                        )
    out = pl.DataFrame(rows, schema=_schema(Ensembles))
    return validate(out, Ensembles)


def _schema(model: type) -> dict[str, pl.DataType]:
    """Polars dtypes of a schema's columns, so an empty input still gives a typed table."""
    return {name: col.dtype.type for name, col in model.to_schema().columns.items()}


def _label(designs: pl.DataFrame, idx: np.ndarray) -> str:
    """ "judge/prompt_level/scale + …", "/expected" after a design read as the expected score."""
    return " + ".join(
        f"{r['judge']}/{r['prompt_level']}/{r['scale']}"
        + ("" if r["readout"] == "answer" else f"/{r['readout']}")
        for r in designs[idx.tolist()].iter_rows(named=True)
    )


def halves(n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded split of item rows (items sorted by id) into half A and half B."""
    perm = np.random.default_rng(seed).permutation(n_items)
    return perm[: n_items // 2], perm[n_items // 2 :]


def ensemble_holdout(
    item_scores: pl.DataFrame,
    max_ensembles: int = 2000,
    seed: int = 0,
    baselines: bool = False,
    distinct: str = "model",
) -> pl.DataFrame:
    """Per study × pool × strategy: pick the triple with the lowest |bias| on a seeded half A
    of the items and score it on half B, beside all triples and the best single design on B,
    so the optimism of picking a winner on the same items shows."""
    rows = []
    for study, grp in _studies(item_scores):
        everyone = matrix(grp)
        half_a, half_b = halves(everyone.dev.shape[0], seed)
        for pool, strategy in itertools.product(pools(baselines), RULES):
            m = in_pool(everyone, pool)
            dev_a, dev_b = m.dev[half_a], m.dev[half_b]
            k = HOLDOUT_SIZE
            seed_k = _cell_seed(seed, study, pool, strategy, k)
            cell = draw(m.designs, strategy, k, max_ensembles, seed_k, distinct)
            a, b = fit(dev_a, cell.members), fit(dev_b, cell.members)
            row = {
                "study": study,
                "pool": pool,
                "strategy": strategy,
                "n_items_a": len(half_a),
                "n_items_b": len(half_b),
                "n_evaluated": int((a.n_items > 0).sum()),
            }
            rows.append(row)
            if row["n_evaluated"] == 0:
                continue
            best = int(np.nanargmin(np.abs(a.ens_bias)))
            used = np.unique(cell.members)
            single_a, single_b = _bias(dev_a[:, used]), _bias(dev_b[:, used])
            single = int(np.nanargmin(np.abs(single_a)))
            row |= {
                "members": _label(m.designs, cell.members[best]),
                "abs_bias_a": abs(float(a.ens_bias[best])),
                "mae_a": float(a.ens_mae[best]),
                "abs_bias_b": _finite(abs(b.ens_bias[best])),
                "mae_b": _finite(b.ens_mae[best]),
                "triples_abs_bias_b": _finite(_nanmean(np.abs(b.ens_bias))),
                "best_single": _label(m.designs, used[[single]]),
                "single_abs_bias_a": abs(float(single_a[single])),
                "single_abs_bias_b": _finite(abs(single_b[single])),
            }
    out = pl.DataFrame(rows, schema=_schema(EnsembleHoldout))
    return validate(out, EnsembleHoldout)


def _bias(dev: np.ndarray) -> np.ndarray:
    """Each design's mean deviation over the items it scored; NaN if none."""
    n = (~np.isnan(dev)).sum(axis=0)
    return np.nansum(dev, axis=0) / np.where(n > 0, n, np.nan)


def _nanmean(x: np.ndarray) -> float:
    return float(np.nanmean(x)) if np.isfinite(x).any() else float("nan")


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None

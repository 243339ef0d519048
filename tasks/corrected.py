"""corrected: per design, the human-scale mean from the judge alone, corrected with human labels
on a subset (PPI; Rogan–Gladen for 0/1 verdicts), and from the labels alone (tasks/ppi.py does
the arithmetic). Shared by the rating and accuracy stages, which bring per-item judge values."""

from __future__ import annotations

import numpy as np
import polars as pl

from schemas.corrected import Corrected
from schemas.scores import with_readout
from schemas.validate import validate
from tasks import ppi
from tasks.stats import design_rng, readout_key

# readout last: a rating study reading its calls two ways corrects each readout's mean
DESIGN = ["study", "kind", "judge", "model", "prompt_level", "scale", "reasoning_effort", "readout"]
MIN_LABELS = 2


def share_of_items(item_ids: pl.Series, share: float, seed: int) -> pl.Series:
    """A seeded random share of the items (at least MIN_LABELS, rounded): the items whose
    human labels count as known under `label_share`. Drawn on the sorted distinct ids, so the
    same items are chosen whatever order or designs the tables hold."""
    ids = item_ids.unique().sort()
    k = min(ids.len(), max(MIN_LABELS, round(share * ids.len())))
    rng = design_rng(seed, ["label_share", str(share)])
    return ids.gather(np.sort(rng.choice(ids.len(), size=k, replace=False)))


def corrected(
    values: pl.DataFrame,
    labels: pl.DataFrame,
    source: str,
    binary: bool,
    n_boot: int = 1000,
    seed: int = 0,
    answer_key: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """values: DESIGN + item_id + `value` (the judge's 1–7 score, or its 0/1 verdict; one row
    per design × scored item; without a readout column, the parsed answer); labels: item_id,
    label (the human-labelled subset, same scale); answer_key: item_id, human (every item's
    human label, under label_share: gives human_all).

    All of a row's numbers are over the items its design scored: the judge-only mean over all
    of them; PPI with the labelled ones (n_labelled) as the labelled set and the others as the
    unlabelled; the human-only mean over the labelled ones. Verdicts (`binary`) add the
    Rogan–Gladen rate, with sensitivity and specificity measured on the labelled items and a
    bootstrap of n_boot resamples (a generator per design, from seed and its names)."""
    rows = []
    joined = with_readout(values).join(labels, on="item_id", how="left")
    if answer_key is not None:
        joined = joined.join(answer_key, on="item_id", how="left")
    for design, part in joined.sort([*DESIGN, "item_id"], nulls_last=True).group_by(
        DESIGN, maintain_order=True
    ):
        judge = part["value"].to_numpy().astype(float)
        has = part["label"].is_not_null().to_numpy()
        y, yhat, rest = part["label"].to_numpy()[has].astype(float), judge[has], judge[~has]
        alone = ppi.mean_ci(judge)
        human = ppi.mean_ci(y)
        fused, lam = ppi.ppi_mean_ci(y, yhat, rest)
        ratio, effective = ppi.labels_saved(int(has.sum()), human.width, fused.width)
        row = {
            **dict(zip(DESIGN, design, strict=True)),
            "label_source": source,
            "n_items": len(judge),
            "n_labelled": int(has.sum()),
            "judge_mean": alone.estimate,
            "judge_lo": alone.lo,
            "judge_hi": alone.hi,
            "ppi_mean": fused.estimate,
            "ppi_lo": fused.lo,
            "ppi_hi": fused.hi,
            "ppi_lambda": None if fused.estimate is None else lam,
            "human_mean": human.estimate,
            "human_lo": human.lo,
            "human_hi": human.hi,
            "width_ratio": ratio,
            "effective_labels": effective,
            "judge_sd": float(judge.std(ddof=1)) if len(judge) > 1 else None,
            "resid_sd": float(np.std(y - yhat, ddof=1)) if len(y) > 1 else None,
            "human_sd": float(np.std(y, ddof=1)) if len(y) > 1 else None,
            "human_all": part["human"].mean() if answer_key is not None else None,
        }
        rng = design_rng(seed, readout_key(design))
        row |= _rogan_gladen(judge, y, yhat, n_boot, rng) if binary else {}
        rows.append(row)
    schema = {c: col.dtype.type for c, col in Corrected.to_schema().columns.items()}
    out = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    return validate(out.select(list(schema)), Corrected)


def _rogan_gladen(judge, y, yhat, n_boot, rng) -> dict:
    ci = ppi.rogan_gladen_ci(judge, y, yhat, n_boot, rng)
    pos, neg = y == 1, y == 0
    return {
        "rg_rate": ci.estimate,
        "rg_lo": ci.lo,
        "rg_hi": ci.hi,
        "sensitivity": float(yhat[pos].mean()) if pos.any() else None,
        "specificity": float(1 - yhat[neg].mean()) if neg.any() else None,
    }

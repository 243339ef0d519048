"""A pairwise study's headline, pure Polars: which design factor moves accuracy most, and how
much the order of the two answers moves the verdicts — two sentences computed from
`pairwise_verdicts`, so the report's opening says what its tables show and never drifts from
them.

* **accuracy** of a call: the winner it names is the human-preferred answer; only calls made
  on pairs whose human label names an answer (a or b, not tie) count (a tie or a failed call
  is wrong, as LLMBar counts it; a call not made yet is left out). A cell is judge × prompt
  level × reasoning effort × order, each weighing the same; a factor's level is its accuracy
  averaged over the other factors' levels (`level_accuracy`: least-squares means, since few
  studies cross every judge with every prompt), and the factor's spread is its best level
  minus its worst. A factor with one level moves nothing and is left out.
* **position changes the winner**: among those pairs' units (pair × repeat of one design) judged
  in both orders, the share whose winner differs between the orders (1 − LLMBar's `equal`; two
  calls without a winner agree). **First-position wins**: the share of decisive calls (A or B)
  won by the answer shown first. Both pooled over the study's designs.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from tasks.pairwise.analysis import prefers_one
from tasks.report.panel import Headline

# (column, name in the sentence, how a level reads); in this order when spreads are equal
FACTORS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("judge", "judge", {}),
    ("prompt_level", "prompt level", {}),
    ("reasoning_effort", "reasoning effort", {}),
    ("shown_first", "the order of the two answers", {"a": "a shown first", "b": "b shown first"}),
)
DESIGN = ["judge", "prompt_level", "reasoning_effort"]
CELL = [*DESIGN, "shown_first"]
UNIT = [*DESIGN, "pair_id", "repeat"]


def _made(verdicts: pl.DataFrame) -> pl.DataFrame:
    """The calls that were made (failed ones included: they count as wrong)."""
    return verdicts.filter(pl.col("status") != "missing")


def level_accuracy(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Per factor with more than one level: each level's accuracy over the other factors'
    levels (columns factor, level, accuracy). Studies rarely cross every judge with every
    prompt level (LLMBar's Rating strategies ran on two judges only), so a level's plain mean
    would credit it with its judges' strength: the levels are least-squares means of an
    additive fit to the cells (cell ≈ mean + one effect per factor), each level's effect plus
    every other factor's effects averaged over its levels — the plain means when crossed."""
    labelled = _made(verdicts).filter(prefers_one())
    right = (pl.col("winner") == pl.col("preferred")).fill_null(False)
    cells = labelled.group_by(CELL).agg(right.mean().alias("accuracy")).sort(CELL)
    factors = [c for c, _, _ in FACTORS if cells[c].n_unique() > 1]
    schema = {"factor": pl.String, "level": pl.String, "accuracy": pl.Float64}
    if not factors:
        return pl.DataFrame(schema=schema)
    levels = {f: sorted(cells[f].unique().to_list()) for f in factors}
    columns = [np.ones(cells.height)]  # treatment coding: each factor's first level is 0
    for f in factors:
        columns += [(cells[f] == level).to_numpy().astype(float) for level in levels[f][1:]]
    fit = np.linalg.lstsq(np.column_stack(columns), cells["accuracy"].to_numpy(), rcond=None)[0]
    effects, at = {}, 1
    for f in factors:
        effects[f] = np.concatenate([[0.0], fit[at : at + len(levels[f]) - 1]])
        at += len(levels[f]) - 1
    others = {f: sum(effects[g].mean() for g in factors if g != f) for f in factors}
    rows = [  # rounded: levels equal but for the fit's rounding error tie (then go by name)
        (f, level, round(float(fit[0] + effect + others[f]), 9))
        for f in factors
        for level, effect in zip(levels[f], effects[f], strict=True)
    ]
    return pl.DataFrame(rows, schema=schema, orient="row")


def _pct(share: float) -> str:
    return f"{round(100 * share)}%"  # an int: a fit's −1e-15 reads 0%, not −0%


def _spreads(levels: pl.DataFrame) -> list[tuple[float, str, str]]:
    """Per factor with two levels or more, largest spread first (equal spreads, to the fit's
    rounding error, in FACTORS order): (spread, name, "57% (Falcon) to 90% (GPT-4)")."""
    parts = []
    for column, name, reads in FACTORS:
        rows = levels.filter(pl.col("factor") == column).sort("accuracy", "level")
        if rows.height < 2:
            continue
        (lo_level, lo), (hi_level, hi) = (rows.select("level", "accuracy").row(i) for i in (0, -1))
        joint = "vs" if rows.height == 2 else "to"
        said = (
            f"{_pct(lo)} ({reads.get(lo_level, lo_level)}) {joint} "
            f"{_pct(hi)} ({reads.get(hi_level, hi_level)})"
        )
        parts.append((hi - lo, name, said))
    order = sorted(range(len(parts)), key=lambda i: -round(parts[i][0], 9))
    return [parts[i] for i in order]


def factor_sentence(levels: pl.DataFrame) -> str | None:
    """ "Judge moves accuracy most: 57% (Falcon) to 90% (GPT-4), …; prompt level …" — the
    factors by spread, largest first; None without a factor that has two levels."""
    return _factor_sentence(_spreads(levels))


def _factor_sentence(parts: list[tuple[float, str, str]]) -> str | None:
    if not parts:
        return None
    if round(parts[0][0], 9) <= 0:  # as the top line says it: not "50% to 50%"
        return "No design choice moves accuracy: every level scores alike."
    (_, first, said), rest = parts[0], parts[1:]
    if not rest:
        return f"{first[0].upper()}{first[1:]} moves accuracy: {said}."
    others = "".join(f"; {name} {text}" for _, name, text in rest)
    return (
        f"{first[0].upper()}{first[1:]} moves accuracy most: {said}, each level averaged over "
        f"the other factors' levels{others}."
    )


def _position(verdicts: pl.DataFrame) -> tuple[dict | None, float | None]:
    """({changed, units, designs} over the labelled units judged in both orders, or None;
    the share of decisive calls won by the first position, or None)."""
    made = _made(verdicts)
    units = (
        made.filter(prefers_one())
        .group_by(UNIT)
        .agg(
            pl.col("winner").filter(pl.col("shown_first") == "a").first().alias("ab"),
            pl.col("winner").filter(pl.col("shown_first") == "b").first().alias("ba"),
            pl.col("shown_first").n_unique().alias("orders"),
        )
        .filter(pl.col("orders") == 2)
    )
    decisive = made.filter(pl.col("position").is_in(["A", "B"]))
    changed = None
    if units.height:
        changed = {
            "changed": units.select(pl.col("ab").eq_missing(pl.col("ba")).not_().mean()).item(),
            "units": units.height,
            "designs": units.select(DESIGN).n_unique(),
        }
    first = decisive.select((pl.col("position") == "A").mean()).item() if decisive.height else None
    return changed, first


def position_sentence(verdicts: pl.DataFrame) -> str | None:
    """ "Position changes the winner in 21% of pair judgments (…); the answer shown first wins
    54% of decisive verdicts." None without a labelled unit or a decisive call."""
    return _position_sentence(*_position(verdicts))


def _position_sentence(changed: dict | None, first: float | None) -> str | None:
    parts = []
    if changed:
        pooled = f", pooled over {changed['designs']} designs" if changed["designs"] > 1 else ""
        parts.append(
            f"position changes the winner in {_pct(changed['changed'])} of pair judgments "
            f"({changed['units']:,} labelled pairs judged in both orders{pooled})"
        )
    if first is not None:
        parts.append(f"the answer shown first wins {_pct(first)} of decisive verdicts")
    if not parts:
        return None
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}."


def _top(parts: list[tuple[float, str, str]], changed: dict | None, first: float | None) -> str:
    """At most three numbers: the factor that moves accuracy most (its lowest and highest
    level), and how often position changes the winner (else how often the first one wins)."""
    said = []
    if parts and round(parts[0][0], 9) > 0:
        _, name, text = parts[0]
        said.append(f"{name} moves accuracy{' most' if len(parts) > 1 else ''}: {text}")
    elif parts:
        said.append("no design choice moves accuracy")
    if changed:
        said.append(f"position changes the winner in {_pct(changed['changed'])} of pair judgments")
    elif first is not None:
        said.append(f"the answer shown first wins {_pct(first)} of decisive verdicts")
    text = "; ".join(said)
    return f"{text[0].upper()}{text[1:]}." if text else ""


def headlines(verdicts: pl.DataFrame) -> Headline:
    """One study's verdicts → its headline: the short one for the top of the report and the
    two sentences of its section, from one computation ("" when there is nothing to say)."""
    parts = _spreads(level_accuracy(verdicts))
    changed, first = _position(verdicts)
    sentences = [_factor_sentence(parts), _position_sentence(changed, first)]
    return Headline(_top(parts, changed, first), " ".join(s for s in sentences if s))


def headline(verdicts: pl.DataFrame) -> str:
    """One study's verdicts → its two headline sentences ("" when there is nothing to say)."""
    return headlines(verdicts).full

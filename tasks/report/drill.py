"""Per-design drill-down (pure: frames in, one JSON-ready payload out): the calls behind each
row of a main table — item, human and judge score or verdict (tone: the version's pole and
overall score), parse status, raw answer — with the item texts once, which the page's script
renders when a row is clicked.

Capped at `CAP` calls per design so a paper-scale study stays a file a browser opens quickly:
failed calls (unparseable, out of range, error, missing) first, then the largest
disagreements with the humans (or the wrong verdicts), then by item.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

CAP = 40  # calls shown per design
TEXT_CHARS = 400  # an item's text, cut here (the warehouse has it whole)
RAW_CHARS = 300  # a raw answer, cut here (reasoning models write long ones)


@dataclass(frozen=True)
class DrillSpec:
    """How one study type's calls drill down (tasks/<type>/report.py DRILL): the main view's
    row key and the columns shown."""

    view: str
    key: tuple[str, ...]
    columns: tuple[str, ...]  # after `item`, the payload's row columns (names the page shows)
    disagreement: pl.Expr  # larger first, after the failures
    order: str = "item_id"  # then by this (tone: the text, so its two versions sit together)


HEADERS = {
    "overall": "overall (1–10)",
    "human_1to7": "human (1–7)",
    "score": "judge (its scale)",
    "judge_1to7": "judge (1–7)",
    "raw": "raw answer",
}


def _cut(text: object, limit: int) -> object:
    if not isinstance(text, str) or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def shown_calls(calls: pl.DataFrame, kind: DrillSpec, cap: int = CAP) -> pl.DataFrame:
    """Each design's calls in the order the drill-down shows them, at most `cap` per design,
    with `n_calls` and `n_failed` (over all its calls) on every row."""
    keys = list(kind.key)
    return (
        calls.with_columns(
            _failed=pl.col("status") != "ok",
            _apart=kind.disagreement,
            n_calls=pl.len().over(keys),
            n_failed=(pl.col("status") != "ok").sum().over(keys),
        )
        .sort(
            [*keys, "_failed", "_apart", kind.order, "item_id", "repeat"],
            descending=[*[False] * len(keys), True, True, False, False, False],
            nulls_last=True,
        )
        .filter(pl.int_range(pl.len()).over(keys) < cap)
        .drop("_failed", "_apart")
    )


def payload(
    calls: dict[str, pl.DataFrame],
    specs: dict[str, DrillSpec],
    texts: dict[str, str],
    hidden_studies: set[str],
    cap: int = CAP,
) -> tuple[dict[str, dict[tuple, str]], dict]:
    """The drill-down of every design: per study type, main-table row key → design id, and the
    payload the page embeds once (designs, column headers, item texts, which studies' texts
    stay hidden until asked)."""
    ids: dict[str, dict[tuple, str]] = {}
    designs: dict[str, dict] = {}
    used: set[str] = set()
    for name, frame in calls.items():
        kind = specs[name]
        ids[kind.view] = {}
        shown = shown_calls(frame, kind, cap)
        for key, part in shown.group_by(list(kind.key), maintain_order=True):
            design = f"d{len(designs)}"
            ids[kind.view][tuple(key)] = design
            rows = [
                [item, *(_cut(v, RAW_CHARS) for v in rest)]
                for item, *rest in part.select("item_id", *kind.columns).iter_rows()
            ]
            used.update(part["item_id"])
            designs[design] = {
                "kind": name,
                "study": key[0],
                "label": " · ".join(str(k) for k in key),
                "n": part["n_calls"][0],
                "failed": part["n_failed"][0],
                "hide": key[0] in hidden_studies,
                "rows": rows,
            }
    columns = {
        name: ["item", "text", *(HEADERS.get(c, c) for c in specs[name].columns)] for name in calls
    }
    kept = {i: _cut(t, TEXT_CHARS) for i, t in sorted(texts.items()) if i in used}
    return ids, {"cap": cap, "columns": columns, "designs": designs, "texts": kept}


def to_script_json(data: dict) -> str:
    """JSON safe inside a <script type="application/json"> element: no `<` can close it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c")

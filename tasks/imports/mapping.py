"""An `[[imports]]` mapping applied to the records read from its files, pure Polars: one row
per design cell, item, order and repeat with its answer (`answer`: a value in answer space,
or the judge's raw text when `parsed`), checked row by row. A problem is a TableError of one
line naming the file, the row and the field."""

from __future__ import annotations

from typing import NoReturn

import polars as pl

from judgelab.import_specs import Dimension, Import, Pick
from schemas.validate import TableError
from tasks.imports import paths
from tasks.imports.read import INDEX, ROW, ImportFile

FILE = "_file"  # the file as messages name it
SPECIALS = {"index": INDEX, "row": ROW}  # template names every record has
DESIGN = ["judge", "model", "prompt_level", "item", "order", "repeat"]
COLUMNS = [
    *DESIGN,
    "scale",
    "answer",
    "parsed",
    "raw",
    "source_sha256",
    "source_row",
    FILE,
    "_answer_field",
    "_order_field",
]


def fail(bad: pl.DataFrame, field: str, what: str) -> NoReturn:
    """The first bad row, in one line; how many more rows share the problem."""
    first = bad.row(0, named=True)
    more = f" (and {bad.height - 1} more rows)" if bad.height > 1 else ""
    row = first.get(ROW, first.get("source_row"))
    raise TableError(f"{first[FILE]} row {row}, field {field!r}: {what}{more}")


def fields(spec: Import) -> list[str]:
    """Every field the mapping reads from a record, in first-use order."""
    picks = [spec.judge, spec.model, spec.prompt_level, spec.item, spec.repeat]
    for row in spec.row_specs():
        picks += [row.order, row.answer, row.raw]
    out: list[str] = []
    for pick in picks:
        if isinstance(pick, Pick):
            out += [pick.field] if pick.field is not None else list(pick.compare or [])
    return list(dict.fromkeys(out))


def _column(frame: pl.DataFrame, expr: pl.Expr) -> pl.Series:
    """`expr` over the frame, one value per record (a constant is broadcast)."""
    return frame.with_columns(expr.alias("_value"))["_value"]


def _template(template: str, f: ImportFile, name: str) -> pl.Expr:
    """A template string: literal text, the pattern's `{name}`s, `{index}`, `{row}`."""
    parts = dict(f.parts)
    pieces, rest = [], template
    for ref in paths.names(template):
        before, _, rest = rest.partition(f"{{{ref}}}")
        pieces.append(pl.lit(before))
        if ref in SPECIALS:
            pieces.append(pl.col(SPECIALS[ref]).cast(pl.String))
        elif ref in parts:
            pieces.append(pl.lit(parts[ref]))
        else:
            known = ", ".join([*parts, *SPECIALS])
            raise TableError(
                f"{f.shown}: imports.{name} = {template!r} names {{{ref}}}, which the file has "
                f"not (known: {known}; a path part needs imports.pattern)"
            )
    pieces.append(pl.lit(rest))
    return pl.concat_str(pieces)


def _pick(frame: pl.DataFrame, pick: Pick, name: str) -> pl.Series:
    """A field's value per record through its labels and format; a record without it, or
    with a value its labels do not list, stops the load."""
    value = pl.col(pick.field)
    missing = frame.filter(value.is_null())
    if missing.height and pick.missing == "error":
        fail(missing, pick.field, f"no value (imports.{name}); every record needs one")
    if pick.labels is not None:
        unknown = frame.filter(value.is_not_null() & ~value.is_in(list(pick.labels)))
        if unknown.height:
            found = unknown[pick.field][0]
            fail(
                unknown,
                pick.field,
                f"{found!r} is not a label of imports.{name} ({', '.join(pick.labels)})",
            )
        value = value.replace_strict(pick.labels, default=None, return_dtype=pl.String)
    before, _, after = pick.format.partition("{}")
    return _column(frame, pl.concat_str(pl.lit(before), value, pl.lit(after)))


def _compare(frame: pl.DataFrame, pick: Pick) -> pl.Series:
    """Two numeric fields: the first larger is `a`, smaller `b`, equal `tie`."""
    first, second = pick.compare
    numbers = []
    for field in (first, second):
        number = pl.col(field).str.strip_chars().cast(pl.Float64, strict=False)
        bad = frame.filter(number.is_null())
        if bad.height and pick.missing == "error":
            shown = bad[field][0]
            fail(bad, field, f"{shown!r} is not a number (imports answer.compare)")
        numbers.append(number)
    a, b = numbers
    winner = pl.when(a > b).then(pl.lit("a")).when(a < b).then(pl.lit("b")).otherwise(pl.lit("tie"))
    return _column(frame, winner)


def dimension(frame: pl.DataFrame, dim: Dimension, f: ImportFile, name: str) -> pl.Series:
    if isinstance(dim, str):
        return _column(frame, _template(dim, f, name))
    if dim.compare is not None:
        raise TableError(f"{f.shown}: imports.{name} reads a field; compare is for the answer")
    return _pick(frame, dim, name)


def _expr(value: pl.Series | pl.Expr) -> pl.Expr:
    return value if isinstance(value, pl.Expr) else pl.lit(value)


def map_file(
    spec: Import, scale: str, f: ImportFile, sha: str, frame: pl.DataFrame
) -> pl.DataFrame:
    """One file's records → its rows (COLUMNS), one per record and row spec."""
    frame = frame.with_columns(pl.lit(f.shown).alias(FILE))
    common = {
        name: dimension(frame, getattr(spec, name), f, name)
        for name in ("judge", "model", "prompt_level", "item", "repeat")
    }
    for name in ("judge", "model", "prompt_level", "item"):
        empty = frame.filter(common[name].str.strip_chars() == "")
        if empty.height:
            fail(empty, getattr(getattr(spec, name), "field", None) or name, f"an empty {name}")
    repeat = common["repeat"].cast(pl.Int64, strict=False)
    if repeat.is_null().any() or (repeat < 0).any():
        bad = frame.filter(repeat.is_null() | (repeat < 0))
        fail(bad, getattr(spec.repeat, "field", None) or "repeat", "a repeat is a number ≥ 0")
    out = []
    for row in spec.row_specs():
        answer = row.answer
        if answer.compare is not None:
            value, where = _compare(frame, answer), " vs ".join(answer.compare)
        else:
            value, where = _pick(frame, answer, "answer"), answer.field
        none = pl.lit(None, pl.String)
        raw = value if answer.parse else none if row.raw is None else _pick(frame, row.raw, "raw")
        order = none if row.order is None else dimension(frame, row.order, f, "order")
        out.append(
            frame.select(
                *(pl.lit(common[k]).alias(k) for k in ("judge", "model", "prompt_level", "item")),
                _expr(order).alias("order"),
                pl.lit(repeat).alias("repeat"),
                pl.lit(scale).alias("scale"),
                pl.lit(value).alias("answer"),
                pl.lit(answer.parse).alias("parsed"),
                _expr(raw).alias("raw"),
                pl.lit(sha).alias("source_sha256"),
                pl.col(ROW).cast(pl.Int64).alias("source_row"),
                FILE,
                pl.lit(where).alias("_answer_field"),
                pl.lit(row.order.field if isinstance(row.order, Pick) else "order").alias(
                    "_order_field"
                ),
            )
        )
    return pl.concat(out).select(COLUMNS)


def check_rows(rows: pl.DataFrame, items: set[str] | None, live: set[str]) -> None:
    """Across files: an imported judge named like a live judge; an item the study has not."""
    clash = rows.filter(pl.col("judge").is_in(list(live)))
    if clash.height:
        name = clash["judge"][0]
        fail(clash, "judge", f"imported judge {name!r} has the name of a live [[judges]] judge")
    if items is not None:
        unknown = rows.filter(~pl.col("item").is_in(list(items)))
        if unknown.height:
            fail(
                unknown,
                "item",
                f"item {unknown['item'][0]!r} is not one of the study's items "
                f"(e.g. {min(items) if items else 'none'!r})",
            )


def check_duplicates(rows: pl.DataFrame) -> pl.DataFrame:
    """One answer per key: identical duplicates kept once, different answers stop the load."""
    if rows["key"].n_unique() == rows.height:
        return rows
    answers = ["key", "status", "score", "raw"]  # the answer as stored
    distinct = rows.unique(answers, keep="first", maintain_order=True)
    conflict = distinct.filter(pl.col("key").is_duplicated()).sort("key", "source_row")
    if conflict.height:
        first = conflict.row(0, named=True)
        other = conflict.filter(pl.col("key") == first["key"]).row(1, named=True)
        fail(
            conflict.head(1),
            first["_answer_field"],
            f"a second answer to judge {first['judge']!r}, {first['prompt_level']!r}, item "
            f"{first['item_id']!r}, repeat {first['repeat']} (the other: {other[FILE]} row "
            f"{other['source_row']})",
        )
    return rows.unique("key", keep="first", maintain_order=True)

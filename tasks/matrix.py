"""The items × designs matrix that pair statistics, ensembles and Cochran's Q work on."""

from __future__ import annotations

import numpy as np
import polars as pl


def items_by_designs(
    rows: pl.DataFrame,
    keys: list[str],
    value: str | pl.Expr,
    designs: pl.DataFrame | None = None,
    sort: list[str] | None = None,
) -> tuple[pl.DataFrame, np.ndarray]:
    """The designs (the distinct `keys` of `designs`, default `rows`, sorted by `sort`, default
    `keys`) and an items × designs float matrix of `value`, NaN where a design has no row for
    an item; items in item_id order."""
    designs = (rows if designs is None else designs).select(keys).unique().sort(sort or keys)
    designs = designs.with_row_index("_d")
    items = rows.select("item_id").unique().sort("item_id").with_row_index("_i")
    cells = rows.join(designs, on=keys).join(items, on="item_id")
    x = np.full((items.height, designs.height), np.nan)
    x[cells["_i"].to_numpy(), cells["_d"].to_numpy()] = cells.select(value).to_series().to_numpy()
    return designs.drop("_d"), x

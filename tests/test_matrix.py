"""The shared items × designs matrix: designs sorted, items by id, NaN where unscored."""

import numpy as np
import polars as pl

from tasks.matrix import items_by_designs


def test_cells_land_in_their_item_row_and_design_column() -> None:
    rows = pl.DataFrame(
        {
            "judge": ["b", "a", "a", "b"],
            "item_id": ["i2", "i1", "i2", "i3"],
            "score": [5.0, 1.0, 2.0, 7.0],
        }
    )
    designs, x = items_by_designs(rows, ["judge"], "score")
    assert designs["judge"].to_list() == ["a", "b"]
    np.testing.assert_array_equal(x, [[1.0, np.nan], [2.0, 5.0], [np.nan, 7.0]])
    # designs from another frame (one without rows here gets a NaN column); an expression
    more = pl.DataFrame({"judge": ["c", "a", "b"]})
    designs, x = items_by_designs(rows, ["judge"], pl.col("score") * 2, more)
    assert designs["judge"].to_list() == ["a", "b", "c"]
    np.testing.assert_array_equal(x[:, 2], [np.nan] * 3)
    assert x[1, 1] == 10.0

"""One pandera DataFrameModel per table, named like the table."""

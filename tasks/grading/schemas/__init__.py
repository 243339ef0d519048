"""The grading study type's tables: one pandera model per table, named like the table."""

"""The notes a per-design row carries: too few units for its test or interval, or no scored unit.

A Wilcoxon p over 3 items cannot fall below 0.25 and a bootstrap interval over 3 items is one
of a handful of resamples, yet both print like any other. The rule lives here once (MIN_N), as
DuckDB macros created before any view (warehouse.macro_sql), so every report view words and
cuts it alike:

- `call_failed(status)`: the call ended in a provider error or an unparseable or out-of-range
  answer (FAILED). A planned call not made yet (`missing`) has not failed.
- `small_n_note(n, unit, test)`: a note when n units are too few for `test` (MIN_N), else null.
- `unscored_note(n_failed, n_planned, unit)`: why a design has no scored unit.
- `design_note(n, n_failed, n_planned, unit, tests)`: one design's note: no scored unit (n = 0),
  else the small-n notes of its `tests` (a list, at most three), joined by "; "; null if none.
- `join_notes(a, b)`: both notes joined by "; ", either alone, or null.
"""

from __future__ import annotations

from tasks.judging.parse import ERROR, OUT_OF_RANGE, UNPARSEABLE

FAILED = (ERROR, UNPARSEABLE, OUT_OF_RANGE)

# The fewest units at which each test can give p < 0.05, or an interval is worth reading.
# Exact two-sided signed-rank and sign tests over n units have no p below 2 / 2ⁿ: 0.0625 at
# n = 5, 0.031 at n = 6. A percentile bootstrap over n units has only C(2n − 1, n) distinct
# resamples (10 at n = 3): below 10 units its interval is too narrow to cover what it claims.
MIN_N = {"wilcoxon": 6, "sign": 6, "bootstrap": 10}
NAMES = {"wilcoxon": "Wilcoxon", "sign": "sign test", "bootstrap": "bootstrap CI"}
EXACT_P = ("wilcoxon", "sign")  # tests whose note gives the smallest p they can reach


def _small_n_case() -> str:
    """small_n_note's body: one branch per test of MIN_N."""
    units = "n || ' ' || unit || case when n = 1 then '' else 's' end"
    branches = []
    for test, min_n in MIN_N.items():
        if test in EXACT_P:
            says = f"'smallest possible p ' || pow(2, 1 - n) || ', p < 0.05 needs ≥ {min_n}'"
        else:
            says = f"'too few to trust, needs ≥ {min_n}'"
        branches.append(
            f"when test = '{test}' and n < {min_n} "
            f"then '{NAMES[test]} over ' || {units} || ': ' || {says}"
        )
    return f"case when n is null or n < 1 then null {' '.join(branches)} end"


def macro_sql() -> str:
    """The macros of the module docstring, for DuckDB."""
    failed = ", ".join(f"'{s}'" for s in FAILED)
    return "\n".join(
        [
            f"create or replace macro call_failed(status) as status in ({failed});",
            f"create or replace macro small_n_note(n, unit, test) as {_small_n_case()};",
            "create or replace macro unscored_note(n_failed, n_planned, unit) as "
            "'no scored ' || unit || case "
            "when n_planned > 0 and n_failed = n_planned then ': every call failed' "
            "when n_failed > 0 then ': ' || n_failed || ' of ' || n_planned || ' calls failed' "
            "else '' end;",
            "create or replace macro join_notes(a, b) as nullif(concat_ws('; ', a, b), '');",
            "create or replace macro design_note(n, n_failed, n_planned, unit, tests) as "
            "case when n = 0 then unscored_note(n_failed, n_planned, unit) "
            "else join_notes(small_n_note(n, unit, tests[1]), join_notes("
            "small_n_note(n, unit, tests[2]), small_n_note(n, unit, tests[3]))) end;",
        ]
    )

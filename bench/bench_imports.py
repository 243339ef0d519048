"""What the check at load of `[[imports]]` costs on a large file: a 100,000-row CSV of
pairwise verdicts (50 judges × 2 prompt levels × 500 pairs × 2 orders) read, mapped, keyed and
checked (judgelab.check.check_imports, what `judgelab run` and `judgelab check` do before
anything is written), then the same file with one bad label in its last row (the one-line
error), then the plan rows and the store rows an import stage would write. The target: the
check under 2 s (modules loaded beforehand: `--cold` to include them).

.venv/bin/python bench/bench_imports.py --rows 100000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

STUDY = """[study]
name = "bench-imports"
type = "pairwise"
task = "pairwise"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["winner"]

[study.pairs]
path = "pairs.csv"
id_column = "id"

[[imports]]
files = "verdicts.csv"
judge = { field = "judge" }
model = { field = "judge", format = "vendor/{}" }
prompt_level = { field = "prompt" }
item = { field = "pair", format = "pairs:{}" }
order = { field = "order", labels = { a = "ab", b = "ba" } }
answer = { field = "verdict", labels = { "1" = "a", "2" = "b", "0" = "tie" } }
"""
LEVELS, PAIRS = 2, 500


def write(folder: Path, rows: int) -> Path:
    judges = max(1, rows // (LEVELS * PAIRS * 2))
    (folder / "pairs.csv").write_text(
        "id,question,answer_a,answer_b\n"
        + "".join(f"{i},Q{i}?,A{i}.,B{i}.\n" for i in range(PAIRS))
    )
    lines = ["judge,prompt,pair,order,verdict"]
    for j in range(judges):
        for level in range(LEVELS):
            for pair in range(PAIRS):
                for order in "ab":
                    lines.append(f"j{j},p{level},{pair},{order},{(j + pair) % 3}")
    (folder / "verdicts.csv").write_text("\n".join(lines[: rows + 1]) + "\n")
    (folder / "study.toml").write_text(STUDY)
    return folder / "study.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cold", action="store_true", help="time module imports too")
    args = parser.parse_args()
    started = time.perf_counter()
    from judgelab.check import check_imports
    from judgelab.settings import Settings
    from judgelab.study import load_study
    from schemas.validate import TableError
    from tasks.imports import load, rows
    from tasks.imports.read import _read
    from tasks.pairwise.imports import item_ids

    loaded = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        study_file = write(Path(tmp), args.rows)
        study = load_study(study_file)
        started = time.perf_counter()
        check_imports(study)
        took = time.perf_counter() - started
        print(
            f"check of {args.rows:,} rows: {took:.2f} s"
            + (f" (+{loaded:.2f} s imports)" if args.cold else "")
        )

        verdicts = Path(tmp) / "verdicts.csv"
        text = verdicts.read_text()
        verdicts.write_text(text[: text.rstrip().rfind(",")] + ",7\n")
        _read.clear()
        started = time.perf_counter()
        try:
            check_imports(study)
        except TableError as exc:
            print(f"bad last row: {time.perf_counter() - started:.2f} s → {exc}")
        verdicts.write_text(text)

        settings = Settings(data_dir=Path(tmp) / "data")
        started = time.perf_counter()
        found = load.imported(study, settings, item_ids(study))
        plan = rows.plan_rows(study, found)
        stored = rows.store_rows(found, "bench", datetime.now(UTC))
        took = time.perf_counter() - started
        print(
            f"plan rows {plan.height:,} and store rows {stored.height:,} (validated): {took:.2f} s"
        )


if __name__ == "__main__":
    main()

"""LLMBar Natural (princeton-nlp/LLMBar @ 900616b) → pairs, and the authors' published table.

`Dataset/LLMBar/Natural/dataset.json` holds 100 instructions, each with two outputs and the
gold label (1 or 2: which output follows the instruction). Output 1 is answer a, output 2 is
answer b, so the label is the human's choice as it stands (no coin: the upstream order is the
one the authors' verdicts and statistics refer to). Ids are `llmbar:natural:<0-based index>`.

Beside it, `evaluators/<evaluator>/<strategy>/` holds the authors' LLM-judge verdicts
(`result.json`, imported by studies/llmbar.toml) and their summary
(`statistics.json`, read here by `published`). Nothing here prints or logs a text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from schemas.validate import TableError
from tasks.benchmarks.hhrlhf import COLUMNS

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

BENCHMARK = "llmbar"  # the study's `benchmark` and its entry in data/sources.toml
DOMAIN = "natural"
DATASET = "dataset.json"
# "95 / 100 = 95.0%": the count and the number of items
_COUNT = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*=")
COUNTS = {"correct_False": "correct_ab", "correct_True": "correct_ba"}
COUNTS |= {"correct_both": "correct_both", "equal": "equal"}
KAPPAS = {"kappa_False": "kappa_ab", "kappa_True": "kappa_ba"}
KAPPAS |= {"kappa_average": "kappa_average", "kappa_agreement": "kappa_agreement"}
PUBLISHED = {"evaluator": pl.String, "strategy": pl.String, "n": pl.Int64}
PUBLISHED |= dict.fromkeys(COUNTS.values(), pl.Int64) | {"correct_average": pl.Float64}
PUBLISHED |= dict.fromkeys(KAPPAS.values(), pl.Float64)


def pair_id(index: int) -> str:
    """The pair id of the dataset's item at `index` (0-based), shared with the verdicts."""
    return f"{BENCHMARK}:{DOMAIN}:{index}"


def read_json(path: Path) -> object:
    """A file's JSON; a malformed file stops the load naming the file (no text)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TableError(f"{Path(path).name}: not valid JSON ({exc.msg})") from None


def pairs(records: list[dict]) -> pl.DataFrame:
    """dataset.json's items → the pairs table: output_1 as answer a, the label as `preferred`."""
    rows = []
    for index, record in enumerate(records):
        if record.get("label") not in (1, 2):
            raise TableError(f"{DATASET} item {index}: label must be 1 or 2")
        preferred = "a" if record["label"] == 1 else "b"
        answers = (record["input"], record["output_1"], record["output_2"])
        rows.append((pair_id(index), DOMAIN, *answers, preferred, BENCHMARK))
    return pl.DataFrame(rows, schema=dict.fromkeys(COLUMNS, pl.String), orient="row")


def dataset_file(files: list[Path]) -> Path:
    (path,) = [Path(f) for f in files if Path(f).name == DATASET]
    return path


def from_files(files: list[Path], settings: Settings, study: Study) -> pl.DataFrame:
    """The manifest's entry point (data/sources.toml `loader`): the 100 Natural pairs."""
    return pairs(read_json(dataset_file(files)))


def evaluator_files(files: list[Path], name: str = "result.json") -> pl.DataFrame:
    """Which evaluator and strategy each `name` file belongs to (its two parent folders under
    `evaluators/`), one row per file, sorted."""
    rows = []
    for f in map(Path, files):
        if f.name == name and len(f.parts) >= 4 and f.parts[-4] == "evaluators":
            rows.append((f.parts[-3], f.parts[-2], str(f)))
    schema = {"evaluator": pl.String, "strategy": pl.String, "path": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row").sort("evaluator", "strategy")


def parse_statistics(stats: dict, where: str) -> dict:
    """One statistics.json → counts and κ values; every count must share one denominator."""
    row, totals = {}, set()
    for key, column in COUNTS.items():
        match = _COUNT.match(str(stats.get(key, "")))
        if match is None:
            raise TableError(f"{where}: {key} is not 'k / n = …%'")
        row[column] = int(match.group(1))
        totals.add(int(match.group(2)))
    if len(totals) != 1:
        raise TableError(f"{where}: the counts have different denominators {sorted(totals)}")
    row["n"] = totals.pop()
    row["correct_average"] = float(str(stats["correct_average"]).rstrip("%")) / 100
    for key, column in KAPPAS.items():
        value = stats.get(key)
        row[column] = None if value is None or value != value else float(value)  # NaN → null
    return row


def published(files: list[Path]) -> pl.DataFrame:
    """Every statistics.json → one row per evaluator × strategy: the authors' counts (their
    correct_False is order ab, correct_True order ba) and κ values, as published."""
    rows = [
        {"evaluator": e, "strategy": s, **parse_statistics(read_json(p), f"{e}/{s}")}
        for e, s, p in evaluator_files(files, "statistics.json").iter_rows()
    ]
    return pl.DataFrame(rows, schema=PUBLISHED).select(list(PUBLISHED))

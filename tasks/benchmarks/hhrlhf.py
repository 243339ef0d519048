"""Anthropic HH-RLHF, harmless-base test split → pairs: one conversation, two final replies.

Each line of the gzip JSON-lines file is `{"chosen": …, "rejected": …}`: the same
conversation (`\\n\\nHuman: … \\n\\nAssistant: …`) ending in two different final assistant
replies, of which crowdworkers chose the less harmful one. The shared context is the longest
common prefix of the two transcripts cut back to its last `\\n\\nAssistant:`; each answer is
what follows it (five replies hold an `\\n\\nAssistant:` of their own, so splitting each
transcript at its own last one would cut them short). The context keeps its turns without
the leading blank lines.

Which reply is shown as answer A is a seeded coin per line (`numpy.random.default_rng(seed)`,
one draw per line in file order, before any sampling), so the human label is not always A and
a pair's assignment does not depend on the sample size. Pairs with an empty reply are skipped
(logged with their count). Ids are `hhrlhf:<0-based line>`. The texts contain harmful
requests: nothing here prints or logs them.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from schemas.validate import TableError

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

log = logging.getLogger(__name__)

BENCHMARK = "hhrlhf"  # the study's `benchmark`
SOURCE = "hh-rlhf"  # its entry in data/sources.toml (the mirror's folder name)
DOMAIN = "harmless-base"
TURN = "\n\nAssistant:"
COLUMNS = ("pair_id", "domain", "context", "answer_a", "answer_b", "preferred", "source")


def split(chosen: str, rejected: str) -> tuple[str, str, str] | None:
    """(context, chosen reply, rejected reply), or None when no assistant turn is shared."""
    n = min(len(chosen), len(rejected))
    same = next((i for i in range(n) if chosen[i] != rejected[i]), n)
    cut = chosen.rfind(TURN, 0, same)
    if cut < 0:
        return None
    context = chosen[:cut].lstrip("\n")
    start = cut + len(TURN)
    return context, chosen[start:].strip(), rejected[start:].strip()


def read_lines(path: Path) -> list[dict]:
    """The file's JSON objects; a malformed line stops the load naming the line (no text)."""
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise TableError(f"{path.name} line {line}: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict) or not {"chosen", "rejected"} <= set(record):
                raise TableError(f"{path.name} line {line}: expected keys 'chosen' and 'rejected'")
            rows.append(record)
    return rows


def load(path: Path, seed: int) -> pl.DataFrame:
    """Every usable pair, chosen reply as A or B by the seeded coin (module docstring)."""
    records = read_lines(path)
    chosen_first = np.random.default_rng(seed).random(len(records)) < 0.5
    rows, skipped = [], []
    for index, (record, first) in enumerate(zip(records, chosen_first, strict=True)):
        parts = split(record["chosen"], record["rejected"])
        if parts is None or not all(parts):
            skipped.append(index + 1)
            continue
        context, chosen, rejected = parts
        a, b = (chosen, rejected) if first else (rejected, chosen)
        rows.append(
            (f"{BENCHMARK}:{index}", DOMAIN, context, a, b, "a" if first else "b", BENCHMARK)
        )
    if skipped:
        log.info(
            "%s: %d pair(s) without a shared context or with an empty reply, skipped (lines %s)",
            path.name,
            len(skipped),
            ", ".join(map(str, skipped[:20])),
        )
    return pl.DataFrame(rows, schema=dict.fromkeys(COLUMNS, pl.String), orient="row")


def from_files(paths: list[Path], settings: Settings, study: Study) -> pl.DataFrame:
    """The manifest's entry point (data/sources.toml `loader`): every usable pair."""
    return load(Path(paths[0]), study.seed)

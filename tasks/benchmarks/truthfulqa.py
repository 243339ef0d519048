"""TruthfulQA (Lin et al. 2022) → `qa_items`: questions paired with a correct or incorrect answer.

Each of the 790 questions has a best answer, a best incorrect answer and "; "-separated lists of
correct and incorrect answers. A question's candidate pools are

* correct: the best answer, then the `Correct Answers` list;
* incorrect: the best incorrect answer, then the `Incorrect Answers` list;

each stripped, without empty entries and de-duplicated in that order. Two entries count as the
same answer when they match ignoring case, runs of whitespace and a final period (the file has
"Yes, I am conscious" as best incorrect answer and "Yes, I am conscious." in its list); the first
spelling is kept, so the best answer is never counted twice. An answer found in both pools of
its question ("Unknown" on two questions) has no label and is dropped from both.

Sampling rule of `load` (one `numpy.random.default_rng(seed)`, drawn in this order):

1. Questions: all of them when `n_questions` is 0; otherwise a sample stratified by `Category`,
   each category getting its proportional share of `n_questions` rounded by largest remainder
   (ties broken by a seeded shuffle of the categories), the questions of a category drawn
   without replacement, category by category in sorted order.
2. Labels: for each chosen question, in file order, correct with probability `share_correct`.
3. Candidates: then for each chosen question, in file order, one answer drawn uniformly from the
   pool its label names. One candidate per question.

`all_pairs` returns every (question, candidate) pair instead. Item ids are
`truthfulqa:<q>:<c>`: q is the question's 0-based row in the file, c the candidate's place in
the correct pool followed by the incorrect pool, so a sampled item has the id (and row) of the
same pair in `all_pairs`. `question_id` is `truthfulqa:<q>`, `domain` the category ("all" when
blank).

Problems: missing columns, malformed lines and blank questions raise a TableError naming file,
line and column, all at once. A question left with no correct or no incorrect answer cannot
take a label drawn with `share_correct`: `load` skips it and logs a warning with the count and
the place of each (`parse` returns the same list). Its pairs stay in `all_pairs`. Answers
dropped as ambiguous are logged (info) the same way.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from schemas.qa_items import QaItems
from schemas.validate import TableError, validate
from tasks.benchmarks.problems import MAX_LISTED
from tasks.benchmarks.qa import qa_text
from tasks.benchmarks.reading import read_table

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

log = logging.getLogger(__name__)

BENCHMARK = "truthfulqa"
COLUMNS = (
    "Category",
    "Question",
    "Best Answer",
    "Correct Answers",
    "Best Incorrect Answer",
    "Incorrect Answers",
)
CORRECT = "'Best Answer'/'Correct Answers'"
INCORRECT = "'Best Incorrect Answer'/'Incorrect Answers'"
AMBIGUOUS = "question(s) list an answer as correct and incorrect; it is dropped from both"
INCOMPLETE = "question(s) without a correct or an incorrect answer, skipped"


@dataclass(frozen=True)
class Question:
    index: int  # 0-based data row
    where: str  # "TruthfulQA.csv line 3"
    domain: str
    question: str
    correct: list[tuple[str, str]]  # (answer, source) in pool order
    incorrect: list[tuple[str, str]]


@dataclass
class Parsed:
    """The questions of a file, and what was set aside (places only, no texts)."""

    questions: list[Question]
    incomplete: list[str] = field(default_factory=list)  # no correct or no incorrect answer
    ambiguous: list[str] = field(default_factory=list)  # an answer listed as both

    @property
    def complete(self) -> list[Question]:
        return [q for q in self.questions if q.correct and q.incorrect]


def _key(answer: str) -> str:
    return re.sub(r"\s+", " ", answer).casefold().removesuffix(".")


def _pool(best: str | None, listed: str | None, sources: tuple[str, str]) -> list[tuple[str, str]]:
    """Best answer first, then the list; stripped, no empties, first spelling of each answer."""
    entries = [((best or "").strip(), sources[0])]
    entries += [(a.strip(), sources[1]) for a in (listed or "").split(";")]
    seen: dict[str, tuple[str, str]] = {}
    for answer, source in entries:
        if answer and _key(answer) not in seen:
            seen[_key(answer)] = (answer, source)
    return list(seen.values())


def parse(path: Path) -> Parsed:
    """Read and check the CSV; raises TableError listing every problem found."""
    raw, problems = read_table(path, list(COLUMNS))
    if raw.height == 0:
        problems.add(f"{path.name}: no data rows")
    blank = raw.filter(pl.col("Question").is_null() | (pl.col("Question").str.strip_chars() == ""))
    problems.rows(blank, "Question", lambda r: "empty question")
    if problems.total:
        listed = "\n  ".join(problems.lines)
        raise TableError(f"{path}: {problems.total} problem(s)\n  {listed}")
    parsed = Parsed(questions=[])
    for index, row in enumerate(raw.iter_rows(named=True)):
        where = problems.where(row["_line"])
        correct = _pool(row["Best Answer"], row["Correct Answers"], ("best", "correct"))
        incorrect = _pool(
            row["Best Incorrect Answer"], row["Incorrect Answers"], ("best_incorrect", "incorrect")
        )
        both = {_key(a) for a, _ in correct} & {_key(a) for a, _ in incorrect}
        if both:
            parsed.ambiguous.append(
                f"{where}, columns {CORRECT} and {INCORRECT}: {len(both)} answer(s) in both"
            )
            correct = [c for c in correct if _key(c[0]) not in both]
            incorrect = [c for c in incorrect if _key(c[0]) not in both]
        empty = [c for pool, c in [(correct, CORRECT), (incorrect, INCORRECT)] if not pool]
        if empty:
            parsed.incomplete.append(f"{where}, columns {' and '.join(empty)}: no answer")
        domain = (row["Category"] or "").strip() or "all"
        question = row["Question"].strip()
        parsed.questions.append(Question(index, where, domain, question, correct, incorrect))
    return parsed


def _report(level: int, path: Path, what: str, places: list[str]) -> None:
    if places:
        shown = "\n  ".join(places[:MAX_LISTED])
        more = f"\n  … and {len(places) - MAX_LISTED} more" if len(places) > MAX_LISTED else ""
        log.log(level, "%s: %d %s\n  %s%s", path.name, len(places), what, shown, more)


def _item(q: Question, c: int, answer: str, source: str) -> dict:
    return {
        "item_id": f"{BENCHMARK}:{q.index}:{c}",
        "benchmark": BENCHMARK,
        "domain": q.domain,
        "question_id": f"{BENCHMARK}:{q.index}",
        "question": q.question,
        "answer": answer,
        "reference": source in ("best", "correct"),
        "source": source,
        "text": qa_text(q.question, answer),
        "_file": q.where.rsplit(" line ", 1)[0],
        "_line": int(q.where.rsplit(" line ", 1)[1]),
    }


def _frame(rows: list[dict]) -> pl.DataFrame:
    schema = {k: pl.String for k in QaItems.to_schema().columns} | {
        "reference": pl.Boolean,
        "_file": pl.String,
        "_line": pl.Int64,
    }
    frame = pl.DataFrame(rows, schema=schema)
    return validate(frame.drop("_file", "_line"), QaItems, origin=frame.select("_file", "_line"))


def all_pairs(path: Path) -> pl.DataFrame:
    """Every (question, candidate) pair with its label, questions in file order."""
    parsed = parse(path)
    _report(logging.INFO, path, AMBIGUOUS, parsed.ambiguous)
    rows = [
        _item(q, c, answer, source)
        for q in parsed.questions
        for c, (answer, source) in enumerate(q.correct + q.incorrect)
    ]
    return _frame(rows)


def _stratified(questions: list[Question], n: int, rng: np.random.Generator) -> list[Question]:
    """n questions, each category's share proportional to its size (largest remainder)."""
    by_domain: dict[str, list[Question]] = {}
    for q in questions:
        by_domain.setdefault(q.domain, []).append(q)
    domains = sorted(by_domain)
    exact = np.array([n * len(by_domain[d]) / len(questions) for d in domains])
    counts = np.floor(exact).astype(int)
    tie = rng.permutation(len(domains))
    order = sorted(range(len(domains)), key=lambda i: (-(exact[i] - counts[i]), tie[i]))
    for i in order[: n - counts.sum()]:
        counts[i] += 1
    chosen = []
    for d, k in zip(domains, counts, strict=True):
        picks = rng.choice(len(by_domain[d]), size=k, replace=False)
        chosen += [by_domain[d][i] for i in picks]
    return sorted(chosen, key=lambda q: q.index)


def load(path: Path, n_questions: int, share_correct: float, seed: int) -> pl.DataFrame:
    """One candidate per question, correct with probability `share_correct` (module docstring)."""
    if not 0 <= share_correct <= 1:
        raise ValueError(f"share_correct {share_correct} is not within [0, 1]")
    parsed = parse(path)
    _report(logging.INFO, path, AMBIGUOUS, parsed.ambiguous)
    _report(logging.WARNING, path, INCOMPLETE, parsed.incomplete)
    questions = parsed.complete
    if not 0 <= n_questions <= len(questions):
        raise ValueError(
            f"n_questions {n_questions} is not within [0, {len(questions)}] (0 takes all)"
        )
    rng = np.random.default_rng(seed)
    if n_questions:
        questions = _stratified(questions, n_questions, rng)
    labels = rng.random(len(questions)) < share_correct
    rows = []
    for q, label in zip(questions, labels, strict=True):
        pool = q.correct if label else q.incorrect
        pick = int(rng.integers(len(pool)))
        c = pick if label else len(q.correct) + pick
        rows.append(_item(q, c, *pool[pick]))
    return _frame(rows)


def from_files(paths: list[Path], settings: Settings, study: Study) -> pl.DataFrame:
    """The manifest's entry point (data/sources.toml `loader`): the study's sampled pairs."""
    return load(Path(paths[0]), study.sample_size, study.share_correct, study.seed)

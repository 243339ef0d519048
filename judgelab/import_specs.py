"""`[[imports]]` of a study file: judgments made elsewhere, read from files with a mapping of
their fields to the study's design (tasks/imports/)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator


class Pick(BaseModel):
    """A value read from each record of an imported file: a column, or a path into a JSON
    record (`results[0]["swap = True"].winner`), placed into `format`, its file values
    translated by `labels`; the answer may instead be two numeric fields compared, or raw
    judge text parsed by the scale's parser."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    field: str | None = None
    """A column (CSV, TSV, Parquet) or a path into a JSON record."""
    labels: dict[str, str] | None = None
    """File value → meaning (answer: `a`, `b` or `tie`; order: `ab` or `ba`); any other
    value stops the load."""
    format: str = "{}"
    """Where the value goes in the stored text: `mypairs:{}`."""
    compare: list[str] | None = None
    """Answer only: two numeric fields; the first larger means `a`, smaller `b`, equal `tie`."""
    parse: bool = False
    """Answer only: the field holds the judge's raw text, read by the scale's parser."""
    missing: Literal["error", "unparseable"] = "error"
    """A record without a value (or, compared, without a number): stop the load, or (answer
    only) an answer nobody could read, stored as `unparseable` with its raw text and counted as
    a failed call, never a winner (LLMBar's `winner: null`)."""

    @model_validator(mode="after")
    def one_source(self) -> Pick:
        """A value has one origin, so nothing is read twice with two meanings."""
        if (self.field is None) == (self.compare is None):
            raise ValueError("give field or compare (two fields), exactly one")
        if self.compare is not None and len(self.compare) != 2:
            raise ValueError(f"compare takes two fields, got {len(self.compare)}")
        if self.parse and (self.labels is not None or self.compare is not None):
            raise ValueError("parse = true reads raw text; it takes no labels and no compare")
        if self.missing == "unparseable" and self.parse:
            raise ValueError(
                'missing = "unparseable" is for labels and compare; parse = true '
                "already stores text the parser cannot read as unparseable"
            )
        if "{}" not in self.format:
            raise ValueError(f"format {self.format!r} has no {{}} for the value")
        return self


Dimension = str | Pick  # a string is a template over the path pattern's {names}, {index}, {row}


class ImportRow(BaseModel):
    """One row an imported record yields: its order and its answer."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    order: Dimension | None = None
    """Pairwise: `ab` (answer a shown first) or `ba`, for this row of the record."""
    answer: Pick
    """This row's verdict (a field table)."""
    raw: Pick | None = None
    """The judge's own text, kept with a labelled answer (stored as `raw`)."""


class Import(BaseModel):
    """`[[imports]]`: judgments a user already has, read from files instead of calling a judge
    (tasks/imports/). Each design dimension is a constant or template string, or a Pick."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    files: str
    """A file or glob, relative to the study file, or `<source>:<path>` of data/sources.toml."""
    format: Literal["csv", "tsv", "parquet", "jsonl", "json"] | None = None
    """Default: from the file's suffix (`.ndjson` is jsonl)."""
    pattern: str | None = None
    """Names parts of each file's path: `evaluators/{judge}/{prompt_level}/result.json`."""
    records: str | None = None
    """JSON only: the path to the list of records in the document (default: the document)."""
    judge: Dimension
    """The imported judge's name: a constant, a template (`"{judge}"` from the pattern), or a
    table `{ field = … }`; never a live judge's name."""
    model: Dimension
    """The model behind the judge (only a label here: nothing is called)."""
    prompt_level: Dimension
    """The judge's prompt or strategy (e.g. LLMBar's `Vanilla`, `Rating`)."""
    item: Dimension
    """The study's item (pairwise: the pair id) each record judges; `{index}` is the
    record's 0-based index in its file (`"llmbar:natural:{index}"`)."""
    repeat: Dimension = "0"
    """Which repeat of the call the record is (0, 1, …)."""
    scale: str | None = None
    """Default: the study's only scale."""
    order: Dimension | None = None
    """Pairwise: `ab` (answer a shown first) or `ba`; a field's values mapped by labels."""
    answer: Pick | None = None
    """The verdict: a field through labels (`a`, `b`, `tie`), compared fields, or raw text
    (`parse = true`)."""
    raw: Pick | None = None
    """The judge's own text, kept with a labelled answer (stored as `raw`)."""
    rows: list[ImportRow] | None = None
    """Several rows per record (e.g. both orders); instead of order and answer."""

    @model_validator(mode="after")
    def rows_or_answer(self) -> Import:
        if (self.answer is None) == (self.rows is None):
            raise ValueError("give answer (and order), or [[imports.rows]], exactly one")
        if self.rows is not None and self.order is not None:
            raise ValueError("with [[imports.rows]] each row gives its order")
        return self

    def row_specs(self) -> list[ImportRow]:
        """What each record yields: the `rows`, or the one row of `order` and `answer`."""
        return self.rows or [ImportRow(order=self.order, answer=self.answer, raw=self.raw)]

"""Study files (studies/*.toml): benchmark, sample, judges, prompt levels, scales, repeats."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from judgelab.data_specs import PairFile, QaFile, RatingFile, TextFile
from judgelab.import_specs import Import, ImportRow
from judgelab.names import check_name
from judgelab.study_toml import StudyError as StudyError  # judgelab.study's error, as before
from judgelab.study_toml import check_tables, locate, read_toml, study_text, suggest
from judgelab.study_toml import study_files as study_files  # a suite's files, as before
from tasks.study_types import TYPES, StudyType


class Judge(BaseModel):
    """A litellm model string plus parameters. Only answer-affecting fields enter the call key."""

    model_config = ConfigDict(extra="forbid")

    name: str
    model: str  # litellm model string, e.g. "openai/gpt-4o-mini" or "local/smollm2-135m-instruct"
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 32
    reasoning_effort: str | None = None
    response_format: Literal["json_schema", "json_object", "none"] = "json_schema"
    extra: dict = Field(default_factory=dict)  # other litellm params that change answers (top_p, …)
    # Transport: how to reach the model and how hard to try. Never part of the key, except
    # api_base (the endpoint; see Study.reuse_across_endpoints).
    api_base: str | None = None
    api_key_env: str | None = None  # name of the environment variable holding the key
    timeout: float = Field(default=60.0, gt=0)  # seconds per attempt
    max_attempts: int = Field(default=6, ge=1)  # per answer: 429 / 5xx / timeout retries
    max_reasks: int = Field(default=2, ge=0)  # extra asks after an unparseable/out-of-range answer
    backoff_base: float = Field(default=0.5, ge=0)  # seconds; doubles per attempt, with jitter
    backoff_max: float = Field(default=30.0, ge=0)
    concurrency: int = Field(default=4, ge=1)  # most calls in flight (AIMD lowers it on 429s)
    processes: int = Field(default=1, ge=1)  # engine processes sharing `concurrency` (local: 1)
    # whether the provider has a reasoning-effort control; None = ask litellm's model map
    supports_reasoning: bool | None = None
    rpm: int | None = Field(default=None, ge=1)  # requests-per-minute cap
    tpm: int | None = Field(default=None, ge=1)  # tokens-per-minute cap (estimated before a call)
    # Send missing calls through the provider's batch API (tasks/judging/batches.py): about
    # half price, answers within the completion window. Not part of the key: a batch
    # request's body is the online request's. None = the study's `batch` default.
    batch: bool | None = None
    batch_size: int = Field(default=50_000, ge=1)  # requests per batch (OpenAI's limit)
    batch_bytes: int = Field(default=190_000_000, ge=1)  # input-file bytes per batch (200 MB)
    batch_poll_s: float = Field(default=30.0, gt=0)  # seconds between status polls
    # mark a long system prompt cacheable where the provider needs a mark (Anthropic;
    # tasks/judging/prompt_cache.py). Not part of the key: it changes the price, not the answer
    prompt_cache: bool = True
    # ask the provider for the `top_logprobs` most likely tokens at each answer position
    # (OpenAI-style `logprobs`), so the store keeps the judge's distribution over a one-token
    # grid (tasks/judging/distribution.py, from_top_logprobs). Not part of the key: the
    # provider reports the probabilities of the tokens it samples anyway; asking for them
    # changes what comes back beside the answer, not the answer.
    top_logprobs: int | None = Field(default=None, ge=1, le=20)

    @field_validator("name")
    @classmethod
    def safe_name(cls, name: str) -> str:
        """A judge's name becomes part of file and table names (so does the rewriter's)."""
        return check_name(name, "judge name")


class Tone(BaseModel):
    """The tone stress test's knobs (`[study.tone]`)."""

    model_config = ConfigDict(extra="forbid")

    axes: list[str] = Field(default_factory=lambda: ["confidence"])  # prompts/tone/axes/*.toml
    lexical: bool = True  # the rule-based rewriter (control arm: content frozen by construction)
    length_tolerance: float = Field(default=0.05, gt=0, lt=1)
    similarity_min: float = Field(default=0.9, ge=-1, le=1)  # cosine to the original
    similarity_model: str = "local/all-minilm-l6-v2"  # or any litellm embedding model
    threshold: float | None = None  # accept at overall ≥ this; default: the genre's task.toml

    @field_validator("axes")
    @classmethod
    def safe_axes(cls, axes: list[str]) -> list[str]:
        """Each axis names a file under prompts/tone/axes/."""
        return [check_name(axis, "axis") for axis in axes]


class Analysis(BaseModel):
    """Knobs of the analysis stages (all seeded, so tables are reproducible)."""

    model_config = ConfigDict(extra="forbid")

    bootstrap: int = Field(default=1000, ge=0)  # resamples for 95% CIs; 0 = no CIs
    seed: int = 0
    outlier_scale: str | None = "bipolar3"  # threshold tables are shown with and without it
    meaningful_diff: float = Field(default=0.2, ge=0)  # |difference| on 1–7 that matters
    max_ensembles: int = Field(default=2000, ge=1)  # per strategy × size; seeded sample beyond
    # accuracy studies: consensus subsets and the truth designs are graded against
    near_agreement: float = Field(default=0.9, gt=0.5, le=1)  # "near" subset: ≥ this agree
    min_designs: int = Field(default=2, ge=1)  # fewer voters → "ambiguous", "no consensus"
    truth: Literal["reference", "consensus"] = "reference"  # reference label, else consensus
    # "model": each judge's designs first vote to that judge's majority, then judges vote (a
    # judge with two efforts does not outvote one without); "design": every design votes
    consensus_votes: Literal["model", "design"] = "model"
    # ensembles are of LLM judges (P1 D.3); true adds a separately labelled judges+baselines pool
    ensemble_baselines: bool = False
    # what a Model (Free) / Model (Fixed) ensemble may not repeat: "model" (the paper's rule, D.3)
    # the litellm model string, so two judges of one model (other temperature or effort) never
    # share an ensemble; "judge": each judge counts as its own model
    ensemble_distinct: Literal["model", "judge"] = "model"
    # TOST margin: a difference inside ±margin "does not matter". Ratings: points on 1–7
    # (default 0.2); accuracy: percentage points (default 5)
    equivalence_margin: float | None = Field(default=None, gt=0)
    # rating and grading studies: how a stored call becomes a score, each readout a design of
    # its own at no extra call: "answer" the parsed answer, "expected" Σ p·v over the judge's
    # stored distribution on the scale's grid (calls without one: status "missing" under it).
    # A design choice like the others: a factor of the variance decomposition, held fixed by
    # the ensemble strategies that fix the design. The power planner's pilot is the first.
    readouts: list[Literal["answer", "expected"]] = Field(default=["answer"], min_length=1)

    @field_validator("readouts")
    @classmethod
    def distinct_readouts(cls, readouts: list[str]) -> list[str]:
        if len(set(readouts)) != len(readouts):
            raise ValueError(f"readouts are listed twice: {readouts}")
        return readouts

    # judge-corrected estimates (tbl_corrected; rating and accuracy studies): human labels on
    # a subset of the items, either a file of item_id, label (relative to the study file;
    # tasks/benchmarks/labelfile.py) or a seeded random share of the benchmark's own labels,
    # treated as if only those were known. At most one; neither: no tbl_corrected rows
    human_labels: str | None = None
    label_share: float | None = Field(default=None, gt=0, lt=1)

    @model_validator(mode="after")
    def one_label_source(self) -> Analysis:
        if self.human_labels is not None and self.label_share is not None:
            raise ValueError("give human_labels or label_share, not both")
        return self

    def margin(self, percent: bool = False) -> float:
        """The equivalence margin in the unit of the study type's differences: points on 1–7,
        or (`percent`: accuracy, tasks/study_types.py) a fraction, as its tables compute it."""
        if percent:
            return (self.equivalence_margin or 5.0) / 100
        return self.equivalence_margin or 0.2


BUCKET = re.compile(r"^([1-9][0-9]*)([dh])$")  # a canary's bucket length: "1d", "7d", "12h"


class Canary(BaseModel):
    """`[study.canary]`: a fixed, seeded subset of the study's items judged again on purpose
    once per date bucket (its call keys carry the bucket), so a hosted model that changes
    behind the same name is noticed (tasks/drift.py compares the batches)."""

    model_config = ConfigDict(extra="forbid")

    size: int = Field(default=50, ge=2)  # items, drawn with `seed` from the study's sample
    every: str = "1d"  # bucket length: "<n>d" (days) or "<n>h" (hours), counted from 1970-01-01
    repeats: int = 2  # calls per item, design and bucket: the judge's own noise comes from them
    judges: list[str] | None = None  # the judges to watch; None: every judge of the study
    seed: int = 0
    level: float = Field(default=0.95, gt=0.5, lt=1)  # of the shift's CI and of the noise band
    compare: Literal["first", "previous"] = "first"  # the batch each batch is compared with
    on_alert: Literal["warn", "fail"] = "warn"  # the flow run's state when a shift is flagged

    @field_validator("every")
    @classmethod
    def known_bucket(cls, every: str) -> str:
        if not BUCKET.match(every):
            raise ValueError(f'every must look like "1d", "7d" or "12h", got {every!r}')
        return every

    @field_validator("repeats")
    @classmethod
    def noise_needs_repeats(cls, repeats: int) -> int:
        if repeats < 2:
            raise ValueError(
                "a canary needs at least 2 repeats per item: its noise band is measured from "
                f"repeats of the same batch (got {repeats})"
            )
        return repeats


class Rule(BaseModel):
    """One gate rule (`[[rules]]` in a study or rules file): every row of `view` that matches
    `where` must satisfy `column op value`; with ci = "within", the row's whole CI must."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None  # printed; default: the rule written out
    view: str
    where: str | None = None  # a SQL condition on the view's columns
    column: str
    op: Literal[">=", ">", "<=", "<", "==", "!="]
    value: float
    ci: Literal["point", "within"] = "point"

    @field_validator("ci")
    @classmethod
    def within_needs_a_bound(cls, ci: str, info: ValidationInfo) -> str:
        op = info.data.get("op")
        if ci == "within" and op in ("==", "!="):
            raise ValueError(f'ci = "within" needs >=, >, <= or <, not {op} (use ci = "point")')
        return ci


class Study(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    # ratings, verdicts, the tone test, A/B preferences (tasks/study_types.py)
    type: str = "rating"  # a study type of tasks/study_types.py
    task: str  # prompt folder under prompts/
    benchmark: Literal[
        "vader", "convabuse", "truthfulqa", "ukpconvarg1", "hhrlhf", "llmbar", "file"
    ]
    data: RatingFile | None = None  # rating study, benchmark = "file"
    qa_data: QaFile | None = None  # accuracy study, benchmark = "file"
    texts: TextFile | None = None  # tone study, benchmark = "file"
    pairs: PairFile | None = None  # pairwise study, benchmark = "file"
    tone: Tone = Field(default_factory=Tone)
    rewriter: Judge | None = None  # tone study: the one LLM rewriter (top-level [rewriter])
    share_correct: float = Field(default=0.5, ge=0, le=1)  # truthfulqa: share of right answers
    # accuracy studies: each judge is run at each effort ("default" sends none); a provider
    # without the control gets one design labelled "n/a" instead of a faked factor
    reasoning_efforts: list[str] | None = None
    baselines: list[str] = Field(default_factory=list)  # offline classifiers, scored as judges
    analysis: Analysis = Field(default_factory=Analysis)
    sample_size: int = Field(ge=0)  # items; 0 = the whole benchmark
    seed: int = 0
    repeats: int = Field(default=1, ge=1)
    prompt_levels: list[str] = Field(min_length=1)  # [] would judge nothing and exit 0
    prompt_version: str = "v1"
    scales: list[str] = Field(min_length=1)
    judges: list[Judge] = Field(default_factory=list)  # at least one, or an [[imports]] table
    imports: list[Import] = Field(default_factory=list)  # top-level [[imports]]: judged already
    shard_size: int = Field(default=500, ge=1)  # calls per Prefect task in the judge stage
    # a run fails when more than this share of a judge's calls made now got no answer
    max_failure_share: float = Field(default=0.2, ge=0, le=1)
    # a judge's api_base is part of its call keys, so answers from another server are not
    # reused; true keys calls without it (one answer per request, whichever server gave it)
    reuse_across_endpoints: bool = False
    batch: bool = False  # the default of each judge's `batch` (provider batch API, half price)
    canary: Canary | None = None  # [study.canary]: drift watch (rating and accuracy studies)
    rules: list[Rule] = Field(default_factory=list)  # top-level [[rules]]: `judgelab check`

    def notes(self) -> list[str]:
        """One-line warnings about a valid study that may not measure what it seems to."""
        out = []
        if self.repeats > 1:
            for judge in self.judges:
                if judge.temperature == 0:
                    out.append(
                        f"study {self.name!r}, judge {judge.name!r}: repeats at temperature 0 "
                        "measure provider nondeterminism only"
                    )
        return out

    @property
    def items_part(self) -> str:
        """The part name of this study's item tables: a user file's and a QA or tone sample's
        (drawn while loading) are per study, a built-in rating benchmark's is shared."""
        return self.benchmark if self.benchmark in ("vader", "convabuse") else self.name

    @model_validator(mode="after")
    def batch_default(self) -> Study:
        """A judge that does not say whether it batches follows the study's `batch`."""
        for judge in [*self.judges, *([self.rewriter] if self.rewriter else [])]:
            if judge.batch is None:
                judge.batch = self.batch
        return self

    @model_validator(mode="after")
    def data_matches_benchmark(self) -> Study:
        table = StudyType.named(self.type).data_table
        given = getattr(self, table)
        tables = {k.data_table for k in StudyType.every()}
        other = [t for t in tables if t != table and getattr(self, t)]
        if (self.benchmark == "file") != (given is not None) or other:
            raise ValueError(
                f'a [study.{table}] table is required exactly when benchmark = "file" '
                f"(in a {self.type} study)"
            )
        return self

    @model_validator(mode="after")
    def fits_type(self) -> Study:
        """Each study type takes its own benchmarks, scales and factors (its record's checks);
        only a tone study has a [rewriter]."""
        if self.rewriter is not None and not StudyType.named(self.type).rewrites:
            raise ValueError(f"a {self.type} study has no [rewriter]")
        StudyType.named(self.type).load("checks")(self)
        return self

    @model_validator(mode="after")
    def readouts_fit(self) -> Study:
        """A second readout only where the type's scores have one (StudyType.readouts)."""
        record = StudyType.named(self.type)
        if self.analysis.readouts == ["answer"] or record.readouts:
            return self
        said = f'a {self.type} study reads each answer one way (readouts = ["answer"])'
        if "tbl_calibration" in record.report_views:
            said += ": its verdicts' probabilities are judged in tbl_calibration instead"
        raise ValueError(said)

    @model_validator(mode="after")
    def labels_fit(self) -> Study:
        """Judge-corrected estimates exist where the study type reports tbl_corrected."""
        a = self.analysis
        if (a.human_labels or a.label_share) and (
            "tbl_corrected" not in StudyType.named(self.type).report_views
        ):
            raise ValueError(
                f"a {self.type} study has no judge-corrected estimates (human_labels, label_share)"
            )
        return self

    @model_validator(mode="after")
    def canary_fits(self) -> Study:
        """A canary watches judges of this study, in a study type drift is defined for."""
        if self.canary is None:
            return self
        if StudyType.named(self.type).canary is None:
            raise ValueError(f"[study.canary] cannot watch a {self.type} study (no drift measure)")
        names = [j.name for j in self.judges]
        for name in self.canary.judges or []:
            if name not in names:
                raise ValueError(
                    f"canary.judges: no judge {name!r} in this study; "
                    f"{suggest(name, names)}judges: {', '.join(names)}"
                )
        return self

    @field_validator("type")
    @classmethod
    def known_type(cls, name: str) -> str:
        if name not in TYPES:
            raise ValueError(
                f"unknown study type {name!r}: {suggest(name, list(TYPES))}"
                f"known: {', '.join(TYPES)}"
            )
        return name

    @field_validator("name", "task", "prompt_version")
    @classmethod
    def safe_name(cls, value: str, info: ValidationInfo) -> str:
        """These become folder and file names (data tables, locks, prompts/<task>/…): a name
        like "../x" would write outside the data directory, so it fails here, with its line."""
        what = {"name": "study name", "task": "task", "prompt_version": "prompt version"}
        return check_name(value, what[info.field_name])

    @field_validator("prompt_levels")
    @classmethod
    def safe_levels(cls, levels: list[str]) -> list[str]:
        """Each level names a template file, prompts/<task>/<level>.<version>.txt."""
        return [check_name(level, "prompt level") for level in levels]

    @field_validator("scales")
    @classmethod
    def known_scales(cls, scales: list[str]) -> list[str]:
        from tasks.judging.scales import load_scales  # a typo fails at load, not mid-run

        known = sorted(load_scales())
        for name in scales:
            if name not in known:
                raise ValueError(
                    f"unknown scale {name!r}: {suggest(name, known)}known scales are "
                    f"{', '.join(known)} (prompts/scales.toml)"
                )
        return scales

    @model_validator(mode="after")
    def imports_fit(self) -> Study:
        """Someone judges: a live judge or an import; imports only where the study type reads
        them (its record's `imports`), on the study's scales; a constant imported judge name
        never shadows a live judge (names read from a file are checked when it is read)."""
        if not self.judges and not self.imports:
            raise ValueError("no judge: add a [[judges]] or an [[imports]] table")
        if not self.imports:
            return self
        if StudyType.named(self.type).imports is None:
            raise ValueError(f"a {self.type} study cannot import judgments yet ([[imports]])")
        live = {j.name for j in self.judges}
        for spec in self.imports:
            if spec.scale is not None and spec.scale not in self.scales:
                raise ValueError(f"imports.scale {spec.scale!r} is not one of scales {self.scales}")
            if spec.scale is None and len(self.scales) != 1:
                raise ValueError("imports: give scale, the study has several")
            if isinstance(spec.judge, str) and "{" not in spec.judge and spec.judge in live:
                raise ValueError(f"imported judge {spec.judge!r} has the name of a live judge")
        return self

    @field_validator("judges")
    @classmethod
    def unique_judge_names(cls, judges: list[Judge]) -> list[Judge]:
        names = [j.name for j in judges]
        if len(set(names)) != len(names):
            raise ValueError(f"judge names must be unique, got {names}")
        return judges


# each table's model, for "did you mean" on a misspelt key
MODELS = {
    "study": Study,
    "study.analysis": Analysis,
    "study.data": RatingFile,
    "study.qa_data": QaFile,
    "study.texts": TextFile,
    "study.pairs": PairFile,
    "study.tone": Tone,
    "study.canary": Canary,
    "rules": Rule,
    "judges": Judge,
    "rewriter": Judge,
    "imports": Import,
    "imports.rows": ImportRow,
}


def load_study(path: str | Path, **overrides) -> Study:
    """Parse and validate a study file; `overrides` replace top-level fields (e.g. sample_size)."""
    path = Path(path)
    text = study_text(path)
    raw = read_toml(path, text)
    check_tables(path, text, raw)
    doc = raw.get("study", {}) | {"judges": raw.get("judges", [])}
    if "rewriter" in raw:
        doc["rewriter"] = raw["rewriter"]
    if "rules" in raw:
        doc["rules"] = raw["rules"]
    if "imports" in raw:
        doc["imports"] = [_import_paths(path, spec) for spec in raw["imports"]]
    doc |= {k: v for k, v in overrides.items() if v is not None}
    for table in ("data", "qa_data", "texts", "pairs"):
        if isinstance(doc.get(table), dict) and isinstance(doc[table].get("path"), str):
            # not resolve(): a symlink keeps the name the user gave (its suffix, its errors)
            doc[table]["path"] = os.path.abspath(path.parent / doc[table]["path"])
    labels = doc.get("analysis", {})
    if isinstance(labels, dict) and isinstance(labels.get("human_labels"), str):
        labels["human_labels"] = os.path.abspath(path.parent / labels["human_labels"])
    try:
        return Study.model_validate(doc)
    except ValidationError as exc:
        problems = []
        # an unknown key first: a missing field next to it is usually the same typo
        for e in sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden"):
            line = locate(text, e["loc"])
            where = f"line {line}, " if line else ""
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = f"unknown key; {_key_hint(e['loc'])}".rstrip("; ")
            problems.append(f"{where}{'.'.join(str(p) for p in e['loc'])}: {msg}")
        raise StudyError(f"{path}: {'; '.join(problems)}") from None


SOURCE = re.compile(r"^[A-Za-z0-9_-]+:(?!//)")  # `llmbar:Dataset/…`, a data/sources.toml source


def _import_paths(path: Path, spec: object) -> object:
    """An import's files relative to the study file's folder (a source's stay as written)."""
    files = spec.get("files") if isinstance(spec, dict) else None
    if isinstance(files, str) and not SOURCE.match(files):
        spec = spec | {"files": os.path.abspath(path.parent / files)}
    return spec


def _key_hint(loc: tuple) -> str:
    """ "did you mean 'x'? known keys: …" for an unknown key at `loc`."""
    parts = [str(k) for k in loc if not isinstance(k, int)]
    top = parts[0] in ("judges", "rewriter", "rules", "imports")
    table = parts[0] if top else ".".join(["study", *parts[:-1]])
    model = MODELS.get(table)
    if model is None:
        return ""
    known = list(model.model_fields)
    return f"{suggest(parts[-1], known)}known keys in [{table}]: {', '.join(known)}".strip()

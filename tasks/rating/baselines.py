"""Score items with offline classifier baselines into `scores` rows, beside the LLM judges."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version as installed_version

import polars as pl

from schemas.baselines import Baselines
from schemas.scores import Scores
from schemas.validate import validate
from tasks.judging.keys import canonical_json
from tasks.rating.rescale import linear


def _vader_compound(texts: list[str]) -> list[float]:
    """VADER compound score per text; one analyzer per batch (it reads its lexicon on init)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    return [float(analyzer.polarity_scores(t)["compound"]) for t in texts]


def _profanity_prob(texts: list[str]) -> list[float]:
    """Probability each text is offensive; the package loads its pickled model on import."""
    if not texts:  # sklearn refuses a batch of zero rows
        return []
    from profanity_check import predict_prob

    return [float(p) for p in predict_prob(texts)]


@dataclass(frozen=True)
class Baseline:
    """An offline classifier scored like a judge: its native range maps linearly onto 1–7.

    `native_min` must be the task scale's low end (very negative; harmless), so the classifier
    and the humans point the same way after rescaling. `note` holds on any texts; `home_note`
    only on `home`, the benchmark the classifier was built or validated on (VADER's lexicon on
    the VADER texts), never on a user's own file.
    """

    name: str
    task: str
    dist: str  # the PyPI distribution that ships the model
    version: str  # must equal the installed version, so the model string (and key) never lies
    scale: str
    native_min: float
    native_max: float
    note: str  # one-line caveat for reports, true on any texts
    scorer: Callable[[list[str]], list[float]] = field(repr=False, compare=False)
    home: str | None = None  # the benchmark it was built or validated on
    home_note: str = ""  # the caveat that holds on that benchmark only

    def note_on(self, benchmark: str) -> str:
        """The caveat a report shows beside this baseline on `benchmark`."""
        return f"{self.home_note}; {self.note}" if benchmark == self.home else self.note

    @property
    def model(self) -> str:
        return f"baseline/{self.dist}-{self.version}"


BASELINES: dict[str, Baseline] = {
    b.name: b
    for b in (
        Baseline(
            name="vader",
            task="sentiment",
            dist="vaderSentiment",
            version="3.3.2",
            scale="compound",
            native_min=-1.0,
            native_max=1.0,
            note=(
                "VADER is a lexicon-and-rules scorer attuned to social-media text: sentiment it "
                "has no word or rule for (context, sarcasm) escapes it"
            ),
            scorer=_vader_compound,
            home="vader",
            home_note=(
                "VADER's lexicon was validated on these very texts (Hutto & Gilbert 2014), "
                "so its agreement with the VADER ratings is optimistic"
            ),
        ),
        Baseline(
            name="profanity-check",
            task="toxicity",
            dist="alt-profanity-check",
            version="1.9.1",
            scale="probability",
            native_min=0.0,
            native_max=1.0,
            note=(
                "profanity-check is a bag-of-words linear SVM for profane wording: abuse "
                "without swear words scores as harmless, harsh but clean words as offensive"
            ),
            scorer=_profanity_prob,
        ),
    )
}
NOTES: dict[str, str] = {name: b.note for name, b in BASELINES.items()}
BASELINE_COLUMNS = list(Baselines.to_schema().columns)


def get_baseline(name: str, task: str) -> Baseline:
    """The named baseline, checked against the study's task (a wrong pairing is a config error)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; known baselines: {', '.join(BASELINES)}")
    b = BASELINES[name]
    if b.task != task:
        fits = [n for n, x in BASELINES.items() if x.task == task]
        raise ValueError(
            f"baseline {name!r} scores task {b.task!r}, not {task!r}; "
            f"baselines for {task!r}: {', '.join(fits) or 'none'} "
            f"(known baselines: {', '.join(BASELINES)})"
        )
    return b


def baseline_key(b: Baseline, text: str) -> str:
    """sha256 of (baseline, model, text): identical texts share a key, like identical requests."""
    return hashlib.sha256(canonical_json([b.name, b.model, text]).encode()).hexdigest()


def baseline_scores(study: str, task: str, name: str, items: pl.DataFrame) -> pl.DataFrame:
    """Score every item text in one batch → `scores` rows (kind "baseline", both on 1–7)."""
    b = get_baseline(name, task)
    found = installed_version(b.dist)
    if found != b.version:
        raise RuntimeError(
            f"baseline {name!r} expects {b.dist}=={b.version} but {found} is installed; "
            "update the registry so its model string and keys name the model really used"
        )
    texts = items["text"].to_list()
    out = items.select(
        pl.Series("key", [baseline_key(b, t) for t in texts], dtype=pl.String),
        pl.lit(study).alias("study"),
        pl.lit("baseline").alias("kind"),
        pl.lit(b.name).alias("judge"),
        pl.lit(b.model).alias("model"),
        pl.lit(task).alias("task"),
        pl.lit("none").alias("prompt_level"),
        pl.lit("none").alias("prompt_version"),
        pl.lit(b.scale).alias("scale"),
        pl.col("item_id").cast(pl.String),
        pl.lit(0, dtype=pl.Int64).alias("repeat"),
        pl.lit("ok").alias("status"),
        pl.Series("score", b.scorer(texts), dtype=pl.Float64),
        linear(
            pl.col("human_mean").cast(pl.Float64), pl.col("human_min"), pl.col("human_max")
        ).alias("human_1to7"),
    ).with_columns(
        linear(pl.col("score"), b.native_min, b.native_max).alias("score_1to7"),
        pl.lit("answer").alias("readout"),  # a classifier's score is its only readout
    )
    return validate(out.select(list(Scores.to_schema().columns)), Scores)


def baseline_table(study: str, task: str, names: list[str], benchmark: str) -> pl.DataFrame:
    """The study's baselines with their native scales and caveats on the study's `benchmark`
    (reports show the notes)."""
    rows = [
        {
            "study": study,
            "judge": b.name,
            "model": b.model,
            "task": task,
            "scale": b.scale,
            "native_min": b.native_min,
            "native_max": b.native_max,
            "note": b.note_on(benchmark),
        }
        for b in (get_baseline(n, task) for n in names)
    ]
    schema = {c: pl.Float64 if c.startswith("native") else pl.String for c in BASELINE_COLUMNS}
    return validate(pl.DataFrame(rows, schema=schema), Baselines)

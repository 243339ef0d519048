"""Report fixtures: one small warehouse built once per session by the real flows on the
deterministic fake judges (no LLM), the report written from it, and a tiny HTML tree parser.

Studies (all through `judgelab run` on one suite file, whose report stage writes the report
the tests read; about 60 s on a quiet machine):
  report-rating    VADER, 30 items, 2 `fake/planted` judges × 2 prompt levels × 2 scales + the
                   VADER baseline: one judge shifted by −0.4 (+0.5 on −3..3), one noisy;
                   ensemble_baselines on, so Figure 5 has the labelled judges+baselines triples
                   (two LLM judges alone make no triple)
  report-toxicity  ConvAbuse, 12 turns, a `fake/hash` judge and a `fake/unparseable` one (prose:
                   every answer fails to parse): the sensitive task whose texts the report
                   hides until asked, and the failures its drill-down lists with their raw text
  report-accuracy  TruthfulQA, 40 items, a lenient and a strict judge × 2 prompt levels
  report-tone      UKPConvArg1, 12 texts, the `fake/echo` rewriter (its versions fail the
                   checks) and the lexical one, a tone-bonus and a noisy evaluator × 2 prompt
                   variants, 2 repeats; left out when the offline embedding model is missing
  report-pairwise  a pairs file of 8 pairs with the human's choice, each judged in both orders
                   × 2 prompt levels by a `fake/planted` judge whose first position always wins
                   (bias +50 pp, consistency 0, every pair leans first: sign test p = 2 · 0.5⁸,
                   flagged after Holm over the study's 4 designs) and a `fake/hash` one
A second suite, one judge per study (`one_judge_run`, its report data/reports/one.html): a
rating study, a pairwise study on three prompt levels and studies/tone_axes.toml on a planted
evaluator (about 2 minutes); the one-judge and wide-screenshot tests use it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from conftest import built_once, mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import benchmarks
from tasks.tone.similarity import local_backend_missing

RATING = """
[study]
name = "report-rating"
task = "sentiment"
benchmark = "vader"
sample_size = 30
seed = 7
prompt_levels = ["base", "long_icl"]
scales = ["likert7", "bipolar3"]
baselines = ["vader"]

[study.analysis]
bootstrap = 200
ensemble_baselines = true
ensemble_distinct = "judge"  # both judges are `fake/planted`: let them stand for two models
label_share = 0.5  # tbl_corrected: half the items' human means as if only they were known

[[judges]]
name = "fake-shift"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", shift = -0.4, scale_shift = 0.5, shift_on = [-3, 3] }}

[[judges]]
name = "fake-noisy"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", noise = 1.0 }}
"""
TOXICITY = """
[study]
name = "report-toxicity"
task = "toxicity"
benchmark = "convabuse"
sample_size = 12
seed = 11
prompt_levels = ["base"]
scales = ["likert7"]

[study.analysis]
bootstrap = 50

[[judges]]
name = "tox-hash"
model = "fake/hash"
concurrency = 32

[[judges]]
name = "tox-prose"
model = "fake/unparseable"
concurrency = 32
"""
ACCURACY = """
[study]
name = "report-accuracy"
type = "accuracy"
task = "accuracy"
benchmark = "truthfulqa"
sample_size = 40
share_correct = 0.5
seed = 5
prompt_levels = ["base", "long_icl"]
scales = ["verdict"]

[study.analysis]
label_share = 0.5  # tbl_corrected: half the reference labels as if only they were known

[[judges]]
name = "lenient"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", accept_wrong = 0.3 }}

[[judges]]
name = "strict"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", reject_right = 0.3 }}
"""
TONE = """
[study]
name = "report-tone"
type = "tone"
task = "tone_argument"
benchmark = "ukpconvarg1"
sample_size = 12
seed = 3
repeats = 2
prompt_levels = ["plain", "fact_first"]
scales = ["rubric_argument"]

[rewriter]
name = "echo"
model = "fake/echo"

[[judges]]
name = "bonus"
model = "fake/planted"
concurrency = 32
extra = { tone_bonus = 0.5, booster_min = 2.0, noise = 0.3 }

[[judges]]
name = "noisy"
model = "fake/planted"
concurrency = 32
extra = { noise = 1.5 }
"""
PAIRWISE = """
[study]
name = "report-pairwise"
type = "pairwise"
task = "pairwise"
benchmark = "file"
sample_size = 0
seed = 13
prompt_levels = ["base", "long_icl"]
scales = ["winner"]

[study.pairs]
path = "pairs.csv"
id_column = "id"
preference_column = "human"

[[judges]]
name = "first"
model = "fake/planted"
concurrency = 32
extra = { first_bias = 0.5 }  # with probability 2 × 0.5: answer A, whatever it shows

[[judges]]
name = "hash"
model = "fake/hash"
concurrency = 32
"""
N_PAIRS = 8
TONE_SKIPPED = local_backend_missing()


@dataclass(frozen=True)
class Warehouse:
    settings: Settings
    studies: list[str]  # in the order the report is asked for them
    types: dict[str, str]


# each suite's studies, in the order the report is asked for them: name → (file, type); a
# tone study only where its similarity backend runs
TONED = TONE_SKIPPED is None
REPORT_SUITE = {
    "report-rating": ("rating.toml", "rating"),
    "report-toxicity": ("toxicity.toml", "rating"),
    "report-accuracy": ("accuracy.toml", "accuracy"),
    **({"report-tone": ("tone.toml", "tone")} if TONED else {}),
    "report-pairwise": ("pairwise.toml", "pairwise"),
}
ONE_JUDGE_SUITE = {
    "one-rating": ("rating.toml", "rating"),
    "one-pairwise": ("pairwise.toml", "pairwise"),
    **({"tone-axes": ("tone.toml", "tone")} if TONED else {}),
}


def suite_warehouse(root: Path, suite: dict[str, tuple[str, str]]) -> Warehouse:
    types = {study: kind for study, (_, kind) in suite.items()}
    return Warehouse(Settings(data_dir=root / "data", data_mirror=mirror_dir()), list(types), types)


def run_suite(root: Path, stem: str, name: str, suite: dict[str, tuple[str, str]]) -> None:
    """`judgelab run` of a suite file `root/STEM.toml` called NAME, of the suite's files."""
    files = json.dumps([file for file, _ in suite.values()])
    (root / f"{stem}.toml").write_text(f'[suite]\nname = "{name}"\nstudies = {files}\n')
    judgelab(root / "data", "run", str(root / f"{stem}.toml"))


def rating_truth(study_file: Path, settings: Settings) -> dict[str, float]:
    """What a planted judge starts from: each text's human mean as a fraction of the human
    scale."""
    items, _ = benchmarks.load(load_study(study_file), settings)
    fraction = (pl.col("human_mean") - pl.col("human_min")) / (
        pl.col("human_max") - pl.col("human_min")
    )
    return dict(items.group_by("text").agg(fraction.mean()).iter_rows())


def write_pairs(root: Path) -> None:
    """pairs.csv: N_PAIRS question/answer pairs, the human preferring A and B in turn."""
    pairs = [
        {"id": i, "question": f"Question {i}?", "answer_a": f"One {i}.", "answer_b": f"Two {i}."}
        | {"human": "ab"[i % 2]}
        for i in range(N_PAIRS)
    ]
    pl.DataFrame(pairs).write_csv(root / "pairs.csv")


@pytest.fixture(scope="session")
def warehouse_run(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return suite_warehouse(
        built_once(tmp_path_factory, "report-warehouse", run_report_suite), REPORT_SUITE
    )


def run_report_suite(root: Path) -> None:
    """The report suite's study files in `root`, then `judgelab run` of them."""
    settings = Settings(data_dir=root / "data", data_mirror=mirror_dir())
    truth, qa_truth = root / "rating-truth.json", root / "qa-truth.json"
    (root / "rating.toml").write_text(RATING.format(truth=truth))
    (root / "accuracy.toml").write_text(ACCURACY.format(truth=qa_truth))
    truth.write_text(json.dumps(rating_truth(root / "rating.toml", settings)))
    qa = benchmarks.load_qa(load_study(root / "accuracy.toml"), settings)
    qa_truth.write_text(json.dumps({t: float(r) for t, r in qa.select("text", "reference").rows()}))
    (root / "toxicity.toml").write_text(TOXICITY)
    if TONED:
        (root / "tone.toml").write_text(TONE)
    write_pairs(root)
    (root / "pairwise.toml").write_text(PAIRWISE)
    run_suite(root, "suite", "report", REPORT_SUITE)  # its report: data/reports/suite.html


# One judge per study (issue 30: what the shipped embedded-judge studies look like): a rating
# study (its rank and ensemble-size figures need two judges), a pairwise study on three prompt
# levels whose judge always answers A (bias +50 pp, consistency 0%), and studies/tone_axes.toml
# on a planted evaluator that likes length (three axes × two prompt variants).
ONE_RATING = """
[study]
name = "one-rating"
task = "sentiment"
benchmark = "vader"
sample_size = 20
seed = 7
prompt_levels = ["base"]
scales = ["likert7", "bipolar3"]
baselines = ["vader"]

[study.analysis]
bootstrap = 50
ensemble_baselines = true

[[judges]]
name = "solo"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", noise = 0.5 }}
"""
ONE_PAIRWISE = (
    PAIRWISE[: PAIRWISE.index('[[judges]]\nname = "hash"')]  # the judge "first" alone
    .replace("report-pairwise", "one-pairwise")
    .replace('["base", "long_icl"]', '["base", "short_icl", "long_icl"]')
)
TONE_AXES_JUDGE = """
[[judges]]
name = "lengthy"
model = "fake/planted"
concurrency = 8
extra = { base = 1.0, length_bonus = 5.0, noise = 0.5 }
"""


@pytest.fixture(scope="session")
def one_judge_run(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """The one-judge suite run by `judgelab run` (its report: data/reports/one.html)."""
    return suite_warehouse(
        built_once(tmp_path_factory, "one-judge", run_one_judge_suite), ONE_JUDGE_SUITE
    )


def run_one_judge_suite(root: Path) -> None:
    """The one-judge suite's study files in `root`, then `judgelab run` of them."""
    settings = Settings(data_dir=root / "data", data_mirror=mirror_dir())
    truth = root / "rating-truth.json"
    (root / "rating.toml").write_text(ONE_RATING.format(truth=truth))
    truth.write_text(json.dumps(rating_truth(root / "rating.toml", settings)))
    write_pairs(root)
    (root / "pairwise.toml").write_text(ONE_PAIRWISE)
    if TONED:
        shipped = (Path(__file__).parents[2] / "studies" / "tone_axes.toml").read_text()
        (root / "tone.toml").write_text(shipped[: shipped.index("[[judges]]")] + TONE_AXES_JUDGE)
    run_suite(root, "one", "one", ONE_JUDGE_SUITE)


@pytest.fixture(scope="session")
def report_file(warehouse_run: Warehouse) -> Path:
    """The report the run's last stage wrote: data/reports/<suite file stem>.html."""
    path = warehouse_run.settings.data_dir / "reports" / "suite.html"
    assert path.is_file()
    return path


VOID = {"meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr", "source"}


@dataclass
class Node:
    """An element of a parsed page: enough of a DOM to count and read elements."""

    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    content: list[Node | str] = field(default_factory=list)  # children and text, in order

    @property
    def children(self) -> list[Node]:
        return [c for c in self.content if isinstance(c, Node)]

    def iter(self, tag: str | None = None):
        if tag is None or self.tag == tag:
            yield self
        for child in self.children:
            yield from child.iter(tag)

    def find_all(self, tag: str, **attrs: str) -> list[Node]:
        return [n for n in self.iter(tag) if all(n.attrs.get(k) == v for k, v in attrs.items())]

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.content)

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def table_rows(self) -> list[dict[str, str]]:
        """A <table> as one dict per body row, keyed by the header cells."""
        head = [th.text() for th in self.iter("th")]
        return [
            dict(zip(head, (td.text() for td in tr.iter("td")), strict=True))
            for tbody in self.iter("tbody")
            for tr in tbody.iter("tr")
        ]


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.content.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.content.append(node)

    def handle_endtag(self, tag: str) -> None:
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.content.append(data)


def parse_html(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def page_svg(page: str, view: str) -> str:
    """The inline SVG of the page's one figure drawn from `view`."""
    (svg,) = re.findall(rf'<figure data-view="{view}">(<svg.*?</svg>)', page, re.S)
    return svg


@pytest.fixture(scope="session")
def report_dom(report_file: Path) -> Node:
    return parse_html(report_file.read_text(encoding="utf-8"))

"""A pairwise study over a user's pairs file whose judgments come from the user's own CSV of
verdicts (`[[imports]]`), optionally next to a live fake judge: for the import tests."""

from __future__ import annotations

from pathlib import Path

PAIRS = "id,question,answer_a,answer_b,human\n" + "".join(
    f"{i},Question {i}?,One {i}.,Two {i}.,{'ab'[i % 2]}\n" for i in range(1, 4)
)
# two judges, two prompt levels, both orders; verdict 1 = answer a wins, 2 = b, 0 = tie
VERDICTS = """evaluator,prompt,pair,shown_first,verdict
gpt,plain,1,a,1
gpt,plain,1,b,1
gpt,plain,2,a,1
gpt,plain,2,b,2
gpt,strict,1,a,2
gpt,strict,1,b,2
claude,plain,1,a,0
claude,plain,1,b,1
claude,strict,2,a,2
claude,strict,2,b,2
"""
STUDY = """[study]
name = "imported"
type = "pairwise"
task = "pairwise"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["winner"]

[study.analysis]
bootstrap = 20

[study.pairs]
path = "pairs.csv"
id_column = "id"
preference_column = "human"

[[imports]]
files = "verdicts.csv"
judge = { field = "evaluator" }
model = { field = "evaluator", format = "vendor/{}" }
prompt_level = { field = "prompt" }
item = { field = "pair", format = "pairs:{}" }
order = { field = "shown_first", labels = { a = "ab", b = "ba" } }
answer = { field = "verdict", labels = { "1" = "a", "2" = "b", "0" = "tie" } }
"""
LIVE = """
[[judges]]
name = "live"
model = "fake/hash"
"""


def write_study(folder: Path, live: bool = False, verdicts: str = VERDICTS) -> Path:
    """pairs.csv, verdicts.csv and imported.toml in `folder`; returns the study file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pairs.csv").write_text(PAIRS)
    (folder / "verdicts.csv").write_text(verdicts)
    (folder / "imported.toml").write_text(STUDY + (LIVE if live else ""))
    return folder / "imported.toml"

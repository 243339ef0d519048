"""End to end through `judgelab run`: studies/inspect_pairwise.toml on a real Inspect AI eval log
of a planted pairwise judge (tests/imports/inspect_log.py) makes no call and fills the pairwise
tables with what the judge said. The committed log always; a fresh one from the installed
inspect_ai too when it is importable (it is not a judgelab dependency)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from inspect_log import FIXTURE, LOG, PAIRS, generate
from test_flow_e2e import calls_made, judgelab

from judgelab.settings import PROJECT_ROOT, Settings
from tasks import warehouse
from tasks.judging import store

pytestmark = pytest.mark.slow

RECIPE = PROJECT_ROOT / "studies" / "inspect_pairwise.toml"
HERE = "../tests/imports/inspect_log/"  # where the recipe, as committed, finds log and pairs
FRESH = importlib.util.find_spec("inspect_ai") is not None


def study_with(folder: Path, log: Path) -> Path:
    """The committed recipe, verbatim but for its folder, next to `log` and the pairs."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pairs.csv").write_text(PAIRS)
    if log.parent != folder:
        shutil.copy(log, folder / LOG)
    text = RECIPE.read_text()
    assert text.count(HERE) == 2  # [study.pairs] path and [[imports]] files
    (folder / RECIPE.name).write_text(text.replace(HERE, ""))
    return folder / RECIPE.name


def test_the_committed_pairs_are_the_script_s() -> None:
    assert (FIXTURE / "pairs.csv").read_text() == PAIRS
    assert (FIXTURE / LOG).is_file()


@pytest.mark.parametrize(
    "log",
    [
        "committed",
        pytest.param(
            "fresh",
            marks=pytest.mark.skipif(not FRESH, reason="inspect_ai is not installed"),
        ),
    ],
)
def test_an_inspect_log_runs_through_the_recipe_without_calls(tmp_path: Path, log: str) -> None:
    folder = tmp_path / "study"
    made = generate(folder) if log == "fresh" else FIXTURE / LOG
    data = tmp_path / "data"
    out = judgelab(data, "run", str(study_with(folder, made)))
    # 3 pairs × 2 orders × 2 epochs, every one imported, none called
    assert calls_made(out, "inspect-judge") == 0 and "12 already stored" in out
    settings = Settings(data_dir=data)
    assert store.read_store(settings.store_dir)["source"].to_list() == ["import"] * 12

    # the planted judge's verdicts, one per pair, answer shown first and repeat (epoch - 1)
    verdicts = warehouse.query(
        settings,
        "select pair_id, shown_first, repeat, status, position, winner "
        "from stg_pairwise_verdicts order by all",
    )
    for repeat in (0, 1):
        assert verdicts.filter(repeat=repeat).drop("repeat").rows() == [
            ("pairs:1", "a", "ok", "A", "a"),  # right in both orders
            ("pairs:1", "b", "ok", "B", "a"),
            ("pairs:2", "a", "ok", "A", "a"),  # always the answer shown first
            ("pairs:2", "b", "ok", "A", "b"),
            ("pairs:3", "a", "ok", "tie", "tie"),
            ("pairs:3", "b", "unparseable", None, None),  # no JSON in the reply
        ]
    calls = warehouse.query(
        settings, "select model, count(*), count(score) from fct_calls group by 1"
    )
    assert calls.rows() == [("mockllm/model", 12, 10)]

    position = warehouse.query(
        settings,
        "select judge, prompt_level, n_pairs, n_items, n_calls, n_failed, tie_pct, n_units, "
        "consistency_pct, n_flips, first_both, second_both, n_decisive, first_pct, bias_pp "
        "from tbl_pairwise_position",
    )
    assert position.rows() == [
        ("inspect-judge", "pairwise_judge", 3, 3, 12, 2, 20.0, 4, 50.0, 2, 2, 0, 8, 75.0, 25.0)
    ]
    agreement = warehouse.query(
        settings,
        "select n_decisive, a_win_pct, preferred_win_pct, n_labelled_units, n_agree, "
        "n_combined_ties, human_acc_pct from tbl_pairwise_agreement",
    )
    assert agreement.rows() == [(8, 75.0, 75.0, 4, 2, 2, 50.0)]  # pair 2: a tie combined
    order = warehouse.query(
        settings,
        "select n_units, correct_ab, correct_ba, correct_both, equal, n_ties, n_failed "
        "from tbl_pairwise_order_accuracy",
    )
    assert order.rows() == [(6, 2, 4, 2, 2, 2, 2)]


def test_the_docs_show_the_recipe_s_mapping() -> None:
    """The docs' Inspect block (docs/how-to/import.md) is studies/inspect_pairwise.toml's
    [[imports]] but its files."""
    page = (PROJECT_ROOT / "docs" / "how-to" / "import.md").read_text()
    (block,) = [b for b in re.findall(r"```toml\n(.*?)```", page, re.S) if "records = " in b]
    shown = tomllib.loads(block)["imports"][0]
    recipe = tomllib.loads(RECIPE.read_text())["imports"][0]
    assert {k: v for k, v in shown.items() if k != "files"} == {
        k: v for k, v in recipe.items() if k != "files"
    }

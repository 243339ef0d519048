"""Pairwise data: HH-RLHF arrives checksum-verified, split into context and two answers, the
human's choice put as A or B by a seeded coin; a user's pairs file loads and names its problems.
HH-RLHF holds harmful requests: these tests compare texts only inside asserts that print
booleans and counts, never the texts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl
import pytest

from judgelab.data_specs import PairFile
from judgelab.settings import Settings
from schemas.validate import TableError
from tasks.benchmarks import hhrlhf, pairfile
from tasks.sources import fetch, load_manifest

N_PAIRS = 2312
N_USABLE = 2308  # four pairs have an empty reply


@pytest.fixture(scope="module")
def hh_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import mirror_dir

    settings = Settings(data_dir=tmp_path_factory.mktemp("hh"), data_mirror=mirror_dir())
    (path,) = fetch([hhrlhf.SOURCE], settings)
    return Path(path)


def test_fetch_verifies_the_manifest_checksum(hh_file: Path) -> None:
    (entry,) = load_manifest()[hhrlhf.SOURCE]
    assert hashlib.sha256(hh_file.read_bytes()).hexdigest() == entry.sha256
    assert entry.sha256 == "ebfaaed21162a4de120ae85366075b34425e2a6303fac59b99555002f7016f03"


def test_split_keeps_replies_that_hold_a_turn_of_their_own() -> None:
    chosen = "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: help?\n\nAssistant: Sure."
    rejected = (
        "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: help?\n\nAssistant: No.\n\nAssistant: Bye"
    )
    context, a, b = hhrlhf.split(chosen, rejected)
    assert context == "Human: hi\n\nAssistant: hello\n\nHuman: help?"
    assert (a, b) == ("Sure.", "No.\n\nAssistant: Bye")
    # replies that start alike: the shared words stay in the replies, not the context
    assert hhrlhf.split("\n\nHuman: q\n\nAssistant: I can", "\n\nHuman: q\n\nAssistant: I won't")[
        1:
    ] == ("I can", "I won't")
    assert hhrlhf.split("\n\nHuman: a", "\n\nHuman: b") is None


def test_hh_pairs_map_back_to_chosen_and_rejected(
    hh_file: Path, capsys: pytest.CaptureFixture
) -> None:
    pairs = hhrlhf.load(hh_file, seed=3)
    records = hhrlhf.read_lines(hh_file)
    assert len(records) == N_PAIRS and pairs.height == N_USABLE
    assert pairs["pair_id"].n_unique() == N_USABLE and set(pairs["domain"]) == {"harmless-base"}
    mismatches = 0
    for pair_id, context, a, b, preferred in pairs.select(
        "pair_id", "context", "answer_a", "answer_b", "preferred"
    ).iter_rows():
        r = records[int(pair_id.split(":")[1])]
        chosen, rejected = (a, b) if preferred == "a" else (b, a)
        ok = r["chosen"].endswith(chosen) and r["rejected"].endswith(rejected)
        ok &= r["chosen"].lstrip("\n").startswith(context) and chosen != rejected
        mismatches += not ok
    assert mismatches == 0
    # the human's choice is A about half the time (binomial sd ≈ 24 pairs), per a seeded coin
    n_a = int((pairs["preferred"] == "a").sum())
    assert abs(n_a - N_USABLE / 2) < 4 * 24
    assert pairs.equals(hhrlhf.load(hh_file, seed=3))
    other = hhrlhf.load(hh_file, seed=4)
    assert (other["preferred"] != pairs["preferred"]).sum() > N_USABLE / 4
    assert capsys.readouterr() == ("", "")  # nothing printed


ROWS = [
    {"id": "p1", "q": "SECRET-Q1", "x": "SECRET-A1", "y": "SECRET-B1", "pref": " A "},
    {"id": "p2", "q": "SECRET-Q2", "x": "SECRET-A2", "y": "SECRET-B2", "pref": "b"},
    {"id": "p3", "q": "SECRET-Q3", "x": "SECRET-A3", "y": "SECRET-B3", "pref": ""},
]
SPEC = {
    "id_column": "id",
    "context_column": "q",
    "answer_a_column": "x",
    "answer_b_column": "y",
    "preference_column": "pref",
}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_pair_file_loads_in_every_format(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"mine{suffix}"
    rows = [r | {"pref": None} if r["pref"] == "" and suffix == ".jsonl" else r for r in ROWS]
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif suffix == ".csv":
        pl.DataFrame(rows).write_csv(path)
    else:
        pl.DataFrame(rows).write_parquet(path)
    pairs = pairfile.load(PairFile(path=str(path), **SPEC))
    assert pairs.columns == list(hhrlhf.COLUMNS)
    assert pairs["pair_id"].to_list() == ["mine:p1", "mine:p2", "mine:p3"]
    assert pairs["preferred"].to_list() == ["a", "b", None]
    assert pairs["answer_a"].to_list() == ["SECRET-A1", "SECRET-A2", "SECRET-A3"]
    assert set(pairs["domain"]) == {"all"} and set(pairs["source"]) == {"mine"}


def test_pair_file_takes_tie_as_a_human_label_in_any_case(tmp_path: Path) -> None:
    """FairEval's and MT-Bench's humans may call a pair a tie (14 of FairEval's 80)."""
    rows = [ROWS[0] | {"pref": "TIE"}, ROWS[1] | {"pref": " Tie "}, ROWS[2] | {"pref": "a"}]
    path = tmp_path / "ties.csv"
    pl.DataFrame(rows).write_csv(path)
    pairs = pairfile.load(PairFile(path=str(path), **SPEC))
    assert pairs["preferred"].to_list() == ["tie", "tie", "a"]


def test_pair_file_problems_name_file_line_and_column_never_the_text(tmp_path: Path) -> None:
    rows = [
        ROWS[0],
        ROWS[1] | {"pref": "SECRET-maybe"},
        ROWS[2] | {"y": "  "},
        ROWS[0] | {"q": "SECRET-Q4"},
    ]
    path = tmp_path / "bad.csv"
    pl.DataFrame(rows).write_csv(path)
    with pytest.raises(TableError) as err:
        pairfile.load(PairFile(path=str(path), **SPEC))
    message = str(err.value)
    assert "3 problem(s)" in message
    assert "bad.csv line 3, column 'pref'" in message  # 'SECRET-maybe' shown cut, as a value
    assert "bad.csv line 4, column 'y': empty answer" in message
    assert "bad.csv line 2, line 5, column 'id': pair id 'p1' is repeated" in message
    assert "SECRET-Q" not in message and "SECRET-A" not in message and "SECRET-B" not in message

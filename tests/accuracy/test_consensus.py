"""Consensus by hand: design majorities over repeats, subsets from a five-design example, the
consensus label against the reference, one vote per judge or per design, and the two consensus
report views."""

import duckdb
import polars as pl
import pytest

from judgelab.settings import Settings
from schemas.validate import validate
from schemas.verdicts import Verdicts
from tasks import warehouse
from tasks.accuracy.consensus import consensus, design_verdicts

SCHEMA = {n: c.dtype.type for n, c in Verdicts.to_schema().columns.items()}


def _calls(votes: dict[str, list], reference: dict[str, bool | None]) -> pl.DataFrame:
    """{item: one entry per design j0, j1, …}; an entry is 1/0, a status, or a list of
    repeats of those → a validated verdicts frame (base prompt, default effort)."""
    rows = []
    for item, per_design in votes.items():
        for j, entry in enumerate(per_design):
            for r, v in enumerate(entry if isinstance(entry, list) else [entry]):
                status, verdict = ("ok", v) if isinstance(v, int) else (v, None)
                design = ("s", f"j{j}", f"m/j{j}", "base", "default")
                rows.append((*design, item, r, status, verdict, reference[item]))
    return validate(pl.DataFrame(rows, schema=SCHEMA, orient="row"), Verdicts)


U = "unparseable"
VOTES = {
    "i1": [1, 1, 1, 1, 1],
    "i2": [0, 0, 0, 0, 0],
    "i3": [[1, 1, 0], 1, 1, 1, 0],  # j0: two of three repeats TRUE → TRUE
    "i4": [1, 1, 1, 0, [1, 0]],  # j4 ties → unresolved
    "i5": [1, 1, 0, 0, "error"],
    "i6": [1, U, U, U, "out_of_range"],  # one voice only
}
REFERENCE = {"i1": True, "i2": True, "i3": False, "i4": None, "i5": False, "i6": True}
VERDICTS = _calls(VOTES, REFERENCE)


def test_design_majority_over_repeats() -> None:
    dv = design_verdicts(VERDICTS).filter(pl.col("judge").is_in(["j0", "j4"]))
    got = {
        (r["judge"], r["item_id"]): (r["n_ok"], r["n_true"], r["verdict"])
        for r in dv.rows(named=True)
    }
    assert got[("j0", "i3")] == (3, 2, 1)
    assert got[("j4", "i4")] == (2, 1, None)  # tie
    assert got[("j4", "i5")] == (0, 0, None)  # no ok repeat
    assert design_verdicts(VERDICTS).filter(pl.col("item_id") == "i6")["n_parse_fail"].sum() == 4


def test_subsets_from_five_designs() -> None:
    out = consensus(VERDICTS, near=0.9)
    got = {r["item_id"]: r for r in out.iter_rows(named=True)}
    cols = ("n_designs", "n_true", "share_true", "agreement", "subset", "consensus_label")
    assert [got[i][c] for i in got for c in cols] == [
        *(5, 5, 1.0, 1.0, "full", True),
        *(5, 0, 0.0, 1.0, "full", False),
        *(5, 4, 0.8, 0.8, "ambiguous", True),  # 0.8 < 0.9
        *(4, 3, 0.75, 0.75, "ambiguous", True),
        *(4, 2, 0.5, 0.5, "ambiguous", None),  # tie: no label
        *(1, 1, 1.0, 1.0, "ambiguous", None),  # fewer than two designs: no consensus
    ]
    matches = [got[i]["consensus_matches_reference"] for i in got]
    assert matches == [True, False, False, None, None, None]
    assert consensus(VERDICTS, near=0.8).filter(pl.col("item_id") == "i3")["subset"].item() == (
        "near"
    )
    lone = consensus(VERDICTS, min_designs=1).filter(pl.col("item_id") == "i6").row(0, named=True)
    assert (lone["subset"], lone["consensus_label"]) == ("full", True)


def test_near_is_exact_at_nine_of_ten() -> None:
    out = consensus(_calls({"i1": [1] * 9 + [0]}, {"i1": None}), near=0.9)
    assert (out["agreement"].item(), out["subset"].item()) == (0.9, "near")


def test_near_must_exceed_one_half() -> None:
    with pytest.raises(ValueError, match="near"):
        consensus(VERDICTS, near=0.5)


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_consensus_views(settings: Settings) -> None:
    warehouse.write_table(settings, consensus(VERDICTS, near=0.8), "consensus", "s")
    con = _views(
        settings,
        "staging/stg_consensus",
        "reports/tbl_consensus_subsets",
        "reports/tbl_consensus_disagreements",
    )
    # one design per judge: a judge's vote is its design's, so "model" votes as "design" would
    assert con.sql("select * from tbl_consensus_subsets").pl().rows() == [
        # votes, subset, items, % of items, with reference, compared, match %, mean agreement
        ("s", "model", "all", 6, 100.0, 5, 3, 33.3, 0.842),  # (1 + 1 + .8 + .75 + .5 + 1) / 6
        ("s", "model", "full", 2, 33.3, 2, 2, 50.0, 1.0),
        ("s", "model", "near", 1, 16.7, 1, 1, 0.0, 0.8),
        ("s", "model", "ambiguous", 3, 50.0, 2, 0, None, 0.75),  # no label and reference
    ]
    assert con.sql("select * from tbl_consensus_disagreements").pl().rows() == [
        ("s", "i2", "full", "model", 5, 0.0, False, True),  # most confident first
        ("s", "i3", "near", "model", 5, 0.8, True, False),
    ]


def _judged(votes: dict[str, dict[tuple[str, str], int | list]]) -> pl.DataFrame:
    """{item: {(judge, effort): 1/0 or repeats}} → verdicts (base prompt, no reference)."""
    rows = [
        ("s", judge, f"m/{judge}", "base", effort, item, r, "ok", v, None)
        for item, per_design in votes.items()
        for (judge, effort), entry in per_design.items()
        for r, v in enumerate(entry if isinstance(entry, list) else [entry])
    ]
    return validate(pl.DataFrame(rows, schema=SCHEMA, orient="row"), Verdicts)


# ja runs at two efforts (two designs), jb and jc without effort control (one design each)
BY_JUDGE = _judged(
    {
        # designs 2 TRUE : 2 FALSE; judges ja TRUE, jb and jc FALSE → FALSE, 2 of 3
        "x": {("ja", "low"): 1, ("ja", "high"): 1, ("jb", "n/a"): 0, ("jc", "n/a"): 0},
        # ja's designs tie: ja abstains; jb TRUE, jc FALSE → a tie of two voters, no label
        "w": {("ja", "low"): 1, ("ja", "high"): 0, ("jb", "n/a"): 1, ("jc", "n/a"): 0},
        # ja's designs tie; jb and jc TRUE → full under "model", 3 of 4 under "design"
        "y": {("ja", "low"): 1, ("ja", "high"): 0, ("jb", "n/a"): 1, ("jc", "n/a"): 1},
        # ja low: 2 of 3 repeats TRUE → its design says TRUE; ja high TRUE
        "z": {("ja", "low"): [1, 1, 0], ("ja", "high"): 1, ("jb", "n/a"): 1, ("jc", "n/a"): 0},
    }
)


def test_model_votes_one_per_judge() -> None:
    cols = ("n_designs", "n_voters", "n_true", "agreement", "subset", "consensus_label")

    def got(votes: str) -> dict[str, tuple]:
        out = consensus(BY_JUDGE, near=0.75, votes=votes)
        assert set(out["votes"]) == {votes}
        return {r["item_id"]: tuple(r[c] for c in cols) for r in out.iter_rows(named=True)}

    assert got("model") == {
        "w": (4, 2, 1, 0.5, "ambiguous", None),  # an abstaining tie counts neither way
        "x": (4, 3, 1, pytest.approx(2 / 3), "ambiguous", False),
        "y": (4, 2, 2, 1.0, "full", True),
        "z": (4, 3, 2, pytest.approx(2 / 3), "ambiguous", True),
    }
    assert got("design") == {
        "w": (4, 4, 2, 0.5, "ambiguous", None),
        "x": (4, 4, 2, 0.5, "ambiguous", None),  # ja's two designs outvote nobody: a tie
        "y": (4, 4, 3, 0.75, "near", True),  # at the cut: near (≥ 0.75)
        "z": (4, 4, 3, 0.75, "near", True),
    }
    with pytest.raises(ValueError, match="votes"):
        consensus(BY_JUDGE, votes="judge")


def test_min_designs_counts_judges_under_model_votes() -> None:
    """One judge with three agreeing designs is one voter: no consensus by default."""
    lone = _judged({"x": {("ja", "low"): 1, ("ja", "high"): 1, ("ja", "medium"): 1}})
    by_model = consensus(lone).row(0, named=True)
    assert (by_model["n_voters"], by_model["subset"], by_model["consensus_label"]) == (
        1,
        "ambiguous",
        None,
    )
    by_design = consensus(lone, votes="design").row(0, named=True)
    assert (by_design["n_voters"], by_design["subset"], by_design["consensus_label"]) == (
        3,
        "full",
        True,
    )
    assert consensus(lone, min_designs=1).row(0, named=True)["subset"] == "full"


def test_repeat_sd_per_item() -> None:
    """SD (n − 1) of the ok repeats' 0/1 verdicts; none with fewer than two ok repeats."""
    dv = design_verdicts(
        _calls({"i1": [[1, 1, 0], [1, 0], [1, "error"], [1, 1]]}, {"i1": None})
    ).sort("judge")
    assert dv["repeat_sd"].to_list() == [
        pytest.approx((1 / 3) ** 0.5),  # mean 2/3: (1/9 + 1/9 + 4/9) / 2
        pytest.approx(0.5**0.5),
        None,  # one ok repeat
        0.0,
    ]


def test_judges_vote_by_default() -> None:
    """A judge run at two efforts must not outvote one run at one unless the study asks."""
    import inspect

    from judgelab.study import Analysis
    from tasks.accuracy.consensus import consensus

    assert Analysis().consensus_votes == "model"
    assert inspect.signature(consensus).parameters["votes"].default == "model"


def test_one_voter_says_no_consensus_instead_of_a_silent_ambiguous(settings: Settings) -> None:
    """One judge (three designs) on every item: each item is 'ambiguous' at agreement 1.0, and
    the run's and report's opening line (the type's headline) says why — one voter, no
    consensus — and how to get one. Letting the designs vote, or min_designs = 1, needs no
    word; one item of two with a lone voter is counted."""
    from tasks.accuracy.consensus import one_voter_notes
    from tasks.study_types import StudyType

    designs = {("ja", "low"): 1, ("ja", "high"): 1, ("ja", "medium"): 1}
    lone = _judged({"x": designs, "y": {d: 0 for d in designs}})
    table = consensus(lone)
    assert set(table["subset"]) == {"ambiguous"} and set(table["agreement"]) == {1.0}
    (said,) = one_voter_notes(table).values()
    assert said.startswith("One voter: no consensus. Every item has one judge voting")
    assert "all 2 items count as 'ambiguous'" in said
    assert 'consensus_votes = "design"' in said
    assert one_voter_notes(consensus(lone, votes="design")) == {}
    assert one_voter_notes(consensus(lone, min_designs=1)) == {}
    one_design = _judged({"x": {("ja", "n/a"): 1}})
    assert "add a design" in one_voter_notes(consensus(one_design, votes="design"))["s"]
    partly = _judged({"x": {("ja", "n/a"): 1, ("jb", "n/a"): 1}, "y": {("ja", "n/a"): 0}})
    assert one_voter_notes(consensus(partly)) == {
        "s": "1 of 2 items have one voter (judge): no consensus, counted 'ambiguous' with no "
        "consensus label."
    }
    warehouse.write_table(settings, table, "consensus", "s")
    warehouse.publish_views(settings)
    headline = StudyType.named("accuracy").load("headline")
    (study,) = headline(settings, ["s", "other"])  # the note leads the study's headline
    assert study == "s" and headline(settings, ["s"])["s"].full.startswith(said)

"""The glossary is generated, not written: each meaning is a definition the view's SQL comment
(or its table's schema) already gives, found by the `name: meaning` convention; prose that only
looks like one ("per choice: …") is not a definition."""

from __future__ import annotations

from judgelab.views_cli import comment_lines
from tasks import warehouse
from tasks.report.glossary import definitions, field_notes, glossary
from tasks.study_types import StudyType

COMMENT = "\n".join(
    [
        "Gap: per text, the first sentence describes the view and defines nothing.",
        "bias: mean judge − human on 1–7; bias_lo / bias_hi: its 95% interval (null under 2",
        "items). n_items: items scored (n_pairs: all planned pairs). flagged = p_holm < 0.05.",
        'Decided per choice: "yes" or "no"; unknown_name: not a column. note (macro',
        "design_note): why a row has no number",
    ]
)
COLUMNS = {
    "gap",
    "judge",
    "bias",
    "bias_lo",
    "bias_hi",
    "n_items",
    "n_pairs",
    "flagged",
    "choice",
    "note",
}


def test_definitions_follow_the_name_colon_meaning_convention() -> None:
    start = COMMENT.index("\n")  # after the one-sentence description
    assert definitions(COMMENT, COLUMNS, start) == {
        "bias": "mean judge − human on 1–7.",
        "bias_lo": "its 95% interval (null under 2 items).",
        "bias_hi": "its 95% interval (null under 2 items).",
        "n_items": "items scored (n_pairs: all planned pairs).",
        "n_pairs": "all planned pairs.",
        "flagged": "p_holm < 0.05.",
        "note": "why a row has no number.",
    }
    # without the start, the description's "Gap:" would be read as a definition of gap
    assert definitions(COMMENT.lower(), COLUMNS)["gap"].startswith("per text, the first")


def test_schema_fields_give_their_trailing_comment() -> None:
    source = (
        "class T(pa.DataFrameModel):\n"
        "    n_calls: int = pa.Field(ge=1)  # planned calls (repeats), whatever their status\n"
        "    mean: float = pa.Field(nullable=True)\n"
        "    # a comment line of its own belongs to no field\n"
        "    label: str  # the design's name\n"
    )
    assert field_notes(source) == {
        "n_calls": "planned calls (repeats), whatever their status",
        "mean": None,
        "label": "the design's name",
    }


def test_every_meaning_is_written_in_its_source() -> None:
    """Over every view the report shows: each meaning is text of the SQL comment or schema it
    names (whitespace aside), the columns the issue asked about are there, and a column a
    joined table also has (tbl_rating_performance's bias: human_ceiling's too) takes its
    view's own definition."""
    files = {f.stem: f for f in warehouse.view_files()}
    views = {p.view for k in StudyType.every() for p in k.load("report").PANELS}
    settings_free = {v: _columns(files[v]) for v in sorted(views)}
    terms = glossary(settings_free)
    for term in terms:
        if term.source.startswith("schemas/"):
            text = (warehouse.PROJECT_ROOT / term.source).read_text(encoding="utf-8")
        else:
            text = "\n".join(comment_lines(files[term.source]))
        assert _words(term.meaning.rstrip(".")) in _words(text), term
    said = {(t.column, v): t for t in terms for v in t.views}
    assert said["bias_lo", "tbl_rating_performance"].meaning.startswith("the 95% percentile")
    assert said["bias", "tbl_rating_performance"].source == "tbl_rating_performance"
    assert said["p_holm", "tbl_pairwise_position"].meaning == (
        "p_value adjusted over the study's designs (Holm)"
    )
    assert said["flagged", "tbl_pairwise_position"].meaning == "p_holm < 0.05."
    assert {"a_mean", "b_mean", "gap"} <= {c for c, v in said if v == "tbl_tone_per_text"}


def _words(text: str) -> str:
    return " ".join(text.replace("--", " ").split())


def _columns(sql_file) -> list[str]:
    """A view's output columns as its select names them (enough for these report views)."""
    import re

    body = sql_file.read_text(encoding="utf-8")
    return sorted(set(re.findall(r"\b([a-z][a-z0-9_]*)\b", body)))

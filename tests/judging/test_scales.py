"""Scales: grids, positions and the llama.cpp grammar that only admits grid values."""

import pytest

from tasks.judging.grammar import grammar_text, score_grammar
from tasks.judging.scales import load_scales

SCALES = load_scales()


def test_the_four_paper_scales() -> None:
    got = {n: (s.min, s.max, len(s.grid())) for n, s in SCALES.items()}
    assert got == {
        "likert7": (1, 7, 7),
        "bipolar3": (-3, 3, 7),
        "unit": (0, 1, 101),
        "pct100": (0, 100, 101),
    }


def test_positions_map_onto_each_grid() -> None:
    assert [SCALES["likert7"].from_unit(u) for u in (0, 0.5, 1)] == [1, 4, 7]
    assert SCALES["bipolar3"].from_unit(0.17) == -2  # -3 + 1.02 → snapped
    assert SCALES["unit"].fmt(SCALES["unit"].from_unit(0.583)) == "0.58"
    assert SCALES["pct100"].from_unit(0.7) == 70


def test_grammar_enumerates_exactly_the_grid() -> None:
    text = grammar_text(SCALES["bipolar3"])
    for v in ("-3", "0", "3"):
        assert f'"{v}"' in text
    assert '"4"' not in text and '"-4"' not in text


@pytest.mark.parametrize("name", list(SCALES))
def test_grammar_compiles_in_llama_cpp(name: str) -> None:
    assert score_grammar(SCALES[name].json_schema()) is not None

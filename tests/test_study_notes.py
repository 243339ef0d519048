"""Load-time notes: a valid study that would not measure what it seems to says so."""

from judgelab.study import Study


def study(repeats: int, temperature: float) -> Study:
    return Study.model_validate(
        {
            "name": "s",
            "task": "sentiment",
            "benchmark": "vader",
            "sample_size": 4,
            "repeats": repeats,
            "prompt_levels": ["base"],
            "scales": ["likert7"],
            "judges": [
                {"name": "greedy", "model": "local/smollm2-135m-instruct"},
                {"name": "sampling", "model": "openai/gpt-4o", "temperature": temperature},
            ],
        }
    )


def test_repeats_at_temperature_zero_warn_once_per_greedy_judge() -> None:
    notes = study(repeats=2, temperature=0.7).notes()
    assert notes == [
        "study 's', judge 'greedy': repeats at temperature 0 measure provider nondeterminism only"
    ]
    assert len(study(repeats=2, temperature=0.0).notes()) == 2


def test_no_note_without_repeats() -> None:
    assert study(repeats=1, temperature=0.0).notes() == []

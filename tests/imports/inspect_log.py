"""A real Inspect AI eval log of a pairwise judge, made offline: `mockllm/model` answers as a
planted judge (its verdict depends only on the prompt it sees), one sample per pair and order,
two epochs. Writes the committed fixture when run as a script; the recipe test calls
`generate` instead when inspect_ai is importable (it is not a judgelab dependency:
tests/imports/inspect_log/README.md)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

FIXTURE = Path(__file__).parent / "inspect_log"
LOG = "pairwise_judge.json"  # the log's name here; Inspect names it <time>_<task>_<id>.json
PAIRS = """pair_id,question,answer_a,answer_b,human
1,What is 2 + 2?,4,5,a
2,Name a primary colour.,Green,Red,b
3,What is the capital of France?,Paris,Lyon,a
"""
PROMPT = """Which answer to the question is better?
Reply with JSON: {{"winner": "A" | "B" | "tie"}}.

Question: {question}

Answer A: {first}

Answer B: {second}
"""
# the planted judge: pair 1 picks the right answer in both orders, pair 2 always picks the
# answer shown first (A), pair 3 calls a tie when "Paris" is shown first and otherwise answers
# without JSON (unparseable)
VERDICTS = {
    ("1", "ab"): '{"winner": "A"}',
    ("1", "ba"): '{"winner": "B"}',
    ("2", "ab"): '{"winner": "A"}',
    ("2", "ba"): '{"winner": "A"}',
    ("3", "ab"): '{"winner": "tie"}',
    ("3", "ba"): "Both answers name a French city.",
}
EPOCHS = 2


def _samples() -> list:
    import csv
    import io

    from inspect_ai.dataset import Sample

    out = []
    for row in csv.DictReader(io.StringIO(PAIRS)):
        for order in ("ab", "ba"):
            first, second = (row["answer_a"], row["answer_b"])[:: 1 if order == "ab" else -1]
            prompt = PROMPT.format(question=row["question"], first=first, second=second)
            preferred = "A" if (row["human"] == "a") == (order == "ab") else "B"
            out.append(
                Sample(
                    id=f"{row['pair_id']}-{order}",
                    input=prompt,
                    target=preferred,
                    metadata={"pair_id": row["pair_id"], "order": order},
                )
            )
    return out


def generate(log_dir: Path) -> Path:
    """Run the eval with Inspect (offline, mockllm) and return the JSON log, renamed LOG."""
    from inspect_ai import Task, eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
    from inspect_ai.solver import TaskState
    from inspect_ai.solver import generate as generate_solver

    by_prompt = {
        s.input: VERDICTS[(s.metadata["pair_id"], s.metadata["order"])] for s in _samples()
    }

    def judge(messages, tools, tool_choice, config):  # mockllm's custom_outputs callable
        output = ModelOutput.from_content("mockllm/model", by_prompt[messages[-1].text])
        # token usage given, so mockllm does not count tokens (tiktoken would download)
        output.usage = ModelUsage(input_tokens=40, output_tokens=8, total_tokens=48)
        return output

    @scorer(metrics=[accuracy()])
    def human_preference():  # a scorer a pairwise task might have; the recipe reads no score
        async def score(state: TaskState, target: Target) -> Score:
            said = state.output.completion
            picked = next((p for p in ("A", "B", "tie") if f'"{p}"' in said), None)
            return Score(value=CORRECT if picked == target.text else INCORRECT, answer=picked)

        return score

    task = Task(
        name="pairwise_judge",
        dataset=_samples(),
        solver=generate_solver(),
        scorer=human_preference(),
        epochs=EPOCHS,
    )
    model = get_model("mockllm/model", custom_outputs=judge, memoize=False)
    with tempfile.TemporaryDirectory() as tmp:
        (log,) = eval(task, model=model, log_dir=tmp, log_format="json", display="none")
        assert log.status == "success", log.error
        log_dir.mkdir(parents=True, exist_ok=True)
        written = log_dir / LOG
        shutil.move(log.location, written)
    return written


if __name__ == "__main__":
    import inspect_ai

    path = generate(FIXTURE)
    (FIXTURE / "pairs.csv").write_text(PAIRS)
    size = path.stat().st_size
    version = inspect_ai.__version__
    print(json.dumps({"log": str(path), "bytes": size, "inspect_ai": version}), file=sys.stderr)

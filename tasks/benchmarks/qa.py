"""The user message a judge sees for one question–answer item (accuracy classification)."""

from __future__ import annotations


def qa_text(question: str, answer: str) -> str:
    """`Question: "<question>"` and `Candidate answer: "<answer>"` on two lines. Quotes inside
    the texts are kept as they are (not escaped): the judge reads prose, not a literal."""
    return f'Question: "{question}"\nCandidate answer: "{answer}"'

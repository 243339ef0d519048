"""Words and sentences as every tone module counts them (checks, rewriters, prompts).

Words are runs of letters and digits, joined across inner apostrophes, hyphens and the
separators of a number ("don't", "well-known", "1,000.5" are one word each).

A sentence starts at the start of the text, a line, or after . ! ? : (quotes, brackets and
list markup skipped); `sentence_spans` cuts a text into sentences for the control arms that
work sentence by sentence (padding, bullets).
"""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+(?:[.,'’\-][^\W_]+)*")
# Spans no rewrite may touch or start in: links, e-mail addresses, paths.
PROTECTED = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+|\S*/\S*[\w/]", re.IGNORECASE)

_OPENERS = "\"'“‘([{*•-–— \t"
_ENDERS = ".!?:…"
# A sentence ends at . ! ? … (with closing quotes or brackets) before whitespace or the end,
# or at a line break.
_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|\n")
# "e.g." "U.S." "J. Smith", "Mr." "etc." and a list number at a line start end no sentence.
_NO_END = re.compile(r"(?:^|[\s(.])(?:[^\W\d_]|mr|mrs|ms|dr|prof|st|vs|etc|cf|no|fig)\.$", re.I)
_LIST_NUMBER = re.compile(r"(?:^|\n)[ \t]*\d{1,3}\.$")


def words(text: str) -> list[str]:
    return WORD.findall(text)


def sentence_start(text: str, pos: int) -> bool:
    """Whether the word at `pos` starts a sentence (the checks' and the rewriter's one rule)."""
    i = pos - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return i < 0 or text[i] in "\n\r" or text[i] in _ENDERS


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, stripped of surrounding whitespace; a sentence keeps its
    closing punctuation. Spans in order, never overlapping, none empty."""
    spans, start = [], 0
    for m in _END.finditer(text):
        if m.group() != "\n":
            head = text[start : m.start() + 1]
            if _NO_END.search(head) or _LIST_NUMBER.search(text[: m.start() + 1]):
                continue
        end = m.start() if m.group() == "\n" else m.end()
        spans += _stripped(text, start, end)
        start = m.end()
    return spans + _stripped(text, start, len(text))


def _stripped(text: str, start: int, end: int) -> list[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return [(start, end)] if end > start else []

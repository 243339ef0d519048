"""Style axes as data (prompts/tone/axes/<axis>.toml): poles, techniques, lexicons, rewrite prompt.

An axis has two poles. Each pole lists the techniques a rewriter may use, its marker lexicon by
category (every phrase is counted by the checks as a marker of that pole), free-text notes
that are shown to the rewriter but not counted, the name its markers go by in the checks
(`marker_name`, e.g. "boosters"), the way lexical diversity should move (`diversity`: "up",
"down" or "any") and, where the rule-based rewriter supports it, its `lexical` rules. The
axis's `rewrite_template` (string.Template) states the content-integrity rules and asks the
model to close with a `CHANGES:` list, which `strip_change_list` removes before scoring.
"""

from __future__ import annotations

import math
import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from judgelab.names import confined
from judgelab.settings import PROJECT_ROOT

AXES_DIR = PROJECT_ROOT / "prompts" / "tone" / "axes"
TEMPLATE_FIELDS = ("text", "pole_description", "techniques", "tolerance")
DIVERSITY = ("up", "down", "any")


class AxisError(ValueError):
    """An axis file is malformed; the message names the file and the key."""


@dataclass(frozen=True)
class LexicalRules:
    """What the rule-based rewriter (tasks.tone.lexical) may insert or swap for one pole."""

    insert_after_aux: tuple[str, ...]  # an adverb after is/are/will/can… ("is clearly")
    insert_at_start: tuple[str, ...]  # a sentence opener ("Arguably,", "It seems that")
    swap: Mapping[str, str]  # opposite-pole adverb → this pole's adverb
    copula_to_modal: str | None = None  # "is"/"are" → e.g. "may be"


@dataclass(frozen=True)
class Pole:
    name: str
    description: str
    techniques: tuple[str, ...]
    lexicon: Mapping[str, tuple[str, ...]]  # category → markers
    notes: tuple[str, ...] = ()
    marker_name: str | None = None
    diversity: str = "any"
    lexical: LexicalRules | None = None

    @property
    def markers(self) -> tuple[str, ...]:
        """Every marker of the pole, each once, in lexicon order."""
        return tuple(dict.fromkeys(m for ms in self.lexicon.values() for m in ms))


@dataclass(frozen=True)
class Axis:
    name: str
    version: str
    description: str
    poles: Mapping[str, Pole]
    rewrite_template: str
    path: Path | None = field(default=None, compare=False)

    def pole(self, name: str) -> Pole:
        if name not in self.poles:
            raise KeyError(f"axis {self.name!r} has no pole {name!r}; poles: {list(self.poles)}")
        return self.poles[name]

    def opposite(self, name: str) -> Pole:
        self.pole(name)
        (other,) = (p for n, p in self.poles.items() if n != name)
        return other

    def density_lexicon(self) -> dict[str, tuple[str, ...]]:
        """Marker lists named as the checks report them, e.g. {"boosters": …, "hedges": …}."""
        return {p.marker_name: p.markers for p in self.poles.values() if p.marker_name}


# -------------------------------------------------------------------------------------- loading


def _get(table: Mapping, key: str, kind: type | tuple[type, ...], where: str):
    if key not in table:
        raise AxisError(f"{where}: missing key {key!r}")
    value = table[key]
    if not isinstance(value, kind):
        raise AxisError(f"{where}.{key}: expected {kind}, got {type(value).__name__}")
    return value


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise AxisError(f"{where}: expected a list of non-empty strings")
    return tuple(value)


def _lexical(table: Mapping, where: str) -> LexicalRules:
    swap = _get(table, "swap", dict, where)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in swap.items()):
        raise AxisError(f"{where}.swap: expected a table of strings")
    for k, v in swap.items():
        if len(k.split()) != len(v.split()):
            raise AxisError(f"{where}.swap: {k!r} → {v!r} changes the number of words")
    copula = table.get("copula_to_modal")
    if copula is not None and not isinstance(copula, str):
        raise AxisError(f"{where}.copula_to_modal: expected a string")
    return LexicalRules(
        insert_after_aux=_strings(table.get("insert_after_aux", []), f"{where}.insert_after_aux"),
        insert_at_start=_strings(table.get("insert_at_start", []), f"{where}.insert_at_start"),
        swap=dict(swap),
        copula_to_modal=copula,
    )


def _pole(name: str, table: Mapping, where: str) -> Pole:
    lexicon_table = _get(table, "lexicon", dict, where)
    lexicon = {k: _strings(v, f"{where}.lexicon.{k}") for k, v in lexicon_table.items()}
    diversity = table.get("diversity", "any")
    if diversity not in DIVERSITY:
        raise AxisError(f"{where}.diversity: {diversity!r} is not one of {DIVERSITY}")
    lexical = table.get("lexical")
    return Pole(
        name=name,
        description=_get(table, "description", str, where).strip(),
        techniques=_strings(_get(table, "techniques", list, where), f"{where}.techniques"),
        lexicon=lexicon,
        notes=_strings(table.get("notes", []), f"{where}.notes"),
        marker_name=table.get("marker_name"),
        diversity=diversity,
        lexical=_lexical(lexical, f"{where}.lexical") if lexical is not None else None,
    )


def parse_axis(data: Mapping, where: str, path: Path | None = None) -> Axis:
    """A parsed TOML document → Axis; `where` names the source in error messages."""
    poles_table = _get(data, "poles", dict, where)
    if len(poles_table) != 2:
        raise AxisError(f"{where}.poles: an axis has exactly two poles, found {list(poles_table)}")
    poles = {n: _pole(n, t, f"{where}.poles.{n}") for n, t in poles_table.items()}
    template = _get(data, "rewrite_template", str, where)
    found = set(string.Template(template).get_identifiers())
    missing = [f for f in TEMPLATE_FIELDS if f not in found]
    if missing or not string.Template(template).is_valid():
        raise AxisError(f"{where}.rewrite_template: missing ${', $'.join(missing)} or a bad $")
    return Axis(
        name=_get(data, "name", str, where),
        version=_get(data, "version", str, where),
        description=_get(data, "description", str, where).strip(),
        poles=poles,
        rewrite_template=template,
        path=path,
    )


def load_axis(name: str, root: Path = AXES_DIR) -> Axis:
    path = confined(root, f"{name}.toml")
    if not path.is_file():
        known = sorted(p.stem for p in root.glob("*.toml"))
        raise FileNotFoundError(f"no style axis {path}; axes: {known}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise AxisError(f"{path}: not valid TOML ({exc})") from None
    axis = parse_axis(data, path.name, path)
    if axis.name != name:
        raise AxisError(f"{path.name}: name {axis.name!r} differs from the file name")
    return axis


@cache
def load_axes(root: Path = AXES_DIR) -> dict[str, Axis]:
    """Every axis under `root`, by name (cached: axis files do not change during a run)."""
    return {p.stem: load_axis(p.stem, root) for p in sorted(root.glob("*.toml"))}


def axis_of(pole: str, root: Path = AXES_DIR) -> Axis:
    """The axis a pole name belongs to (pole names are unique across axes)."""
    owners = [a for a in load_axes(root).values() if pole in a.poles]
    if len(owners) != 1:
        known = [p for a in load_axes(root).values() for p in a.poles]
        raise KeyError(f"pole {pole!r} belongs to {len(owners)} axes; poles: {known}")
    return owners[0]


# ------------------------------------------------------------------------------------ prompting


def word_range(n_words: int, tolerance: float) -> tuple[int, int]:
    """The word counts a rewrite of an `n_words` text may have."""
    return math.ceil(n_words * (1 - tolerance) - 1e-9), math.floor(n_words * (1 + tolerance) + 1e-9)


def render_techniques(pole: Pole) -> str:
    lines = [f"- {t}" for t in pole.techniques]
    for category, markers in pole.lexicon.items():
        lines.append(f"- {category.replace('_', ' ').capitalize()}: {', '.join(markers)}")
    lines += [f"- {n}" for n in pole.notes]
    return "\n".join(lines)


def render_rewrite_prompt(axis: Axis, pole: str, text: str, tolerance: float) -> str:
    """The rewrite request for one text. Besides the four documented fields the template may
    use $words (the original's length), $min_words, $max_words and $word_range ("41 to 45
    words", or "exactly 12 words" when the tolerance leaves no room)."""
    from tasks.tone.checks import words  # here, not at the top: checks imports this module

    n = len(words(text))
    lo, hi = word_range(n, tolerance)
    return string.Template(axis.rewrite_template).substitute(
        text=text,
        pole_description=axis.pole(pole).description,
        techniques=render_techniques(axis.pole(pole)),
        tolerance=f"±{tolerance * 100:g}%",
        words=n,
        min_words=lo,
        max_words=hi,
        word_range=f"exactly {n} words" if lo == hi else f"{lo} to {hi} words",
    )


# ---------------------------------------------------------------------------------- the answer

# A line that opens the change list: "CHANGES:", "**Changes made:**", "### Changes", "Changes -".
_CHANGES = re.compile(
    r"^[ \t>]*(?:[#*_]+[ \t]*)?(?:list of |summary of )?changes(?: made)?\b", re.I | re.M
)
# An opening line that announces the text instead of being part of it: it starts like a reply
# and names the rewrite ("Sure! Here is the rewritten text:", "**Low-confidence version:**").
_PREAMBLE_START = re.compile(
    r"(?:sure|certainly|of course|okay|ok|absolutely|here|below|the|this|my|rewritten|revised"
    r"|rephrased|high|low|native|non)\b",
    re.I,
)
_PREAMBLE_WORDS = re.compile(r"rewrit|revis|rephras|version|here you go|adjusted|modified", re.I)
_FILLER = re.compile(r"(?:sure|certainly|of course|okay|ok|absolutely)[ \t]*[!.,]?[ \t]*\n", re.I)
_LABEL = re.compile(r"[ \t]*(?:[#*_>]+[ \t]*)?([^\n:]{1,100}?)[ \t]*:(?:[ \t]*[*_]+)?[ \t]*")
_WRAPPERS = [
    re.compile(r"^```[\w-]*\n(.*?)\n?```$", re.DOTALL),
    re.compile(r"^<text>\s*(.*?)\s*</text>$", re.DOTALL | re.IGNORECASE),
]
_RULE = re.compile(r"\n[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$")


def strip_change_list(raw: str) -> str:
    """The rewritten text alone: without the trailing `CHANGES:` block (from the first line
    after the first that opens one — "CHANGES:", "**Changes made:**", "### Changes" — to the
    end), an opening "Here is the rewritten text:"-style line, a horizontal rule before the
    change list, or a code fence or <text> tags around it all.

    A line of the text itself that opens with "Changes:" would be cut with all that follows;
    the texts are arguments and rarely hold one ("Changes in policy…" is kept).
    """
    text = raw.replace("\r\n", "\n").strip()
    heads = [m for m in _CHANGES.finditer(text) if _is_heading(text, m)]
    if heads:
        text = text[: heads[0].start()].rstrip()
    text = _RULE.sub("", text).rstrip()
    text = _drop_preamble(text)
    for wrapper in _WRAPPERS:
        m = wrapper.match(text)
        if m:
            text = m.group(1).strip()
    return _RULE.sub("", text).strip()


def _is_preamble(line: str) -> bool:
    line = line.strip(" \t*_#>")
    return bool(_PREAMBLE_START.match(line) and _PREAMBLE_WORDS.search(line))


def _drop_preamble(text: str) -> str:
    """Remove a filler line ("Sure!") and then an announcing line, which may end in a colon
    with the text following on the same line, or in "." / "!" with the text on the next."""
    filler = _FILLER.match(text)
    if filler and text[filler.end() :].strip():
        text = text[filler.end() :].lstrip()
    first, _, rest = text.partition("\n")
    label = _LABEL.match(first)
    if label and _is_preamble(label.group(1)):
        return (first[label.end() :] + "\n" + rest).strip()
    ends_sentence = first.rstrip(" *_").endswith((".", "!"))
    if rest.strip() and len(first) <= 120 and ends_sentence and _is_preamble(first):
        return rest.strip()
    return text


def _is_heading(text: str, m: re.Match) -> bool:
    """A "changes" line opens the list if it is not the text's first line (an answer that is
    all change list is kept whole, and fails the length check) and after the word comes a
    colon, a dash, markup or nothing: "Changes in policy are needed." is text."""
    if m.start() == 0:
        return False
    rest = text[m.end() :].split("\n", 1)[0].strip()
    return rest == "" or rest[0] in ":-–—*_" or m.group().lstrip(" \t>").startswith("#")

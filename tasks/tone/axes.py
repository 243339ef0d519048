"""Style axes as data (prompts/tone/axes/<axis>.toml): poles, techniques, lexicons, rewrite prompt.

An axis has two poles. Each pole lists the techniques a rewriter may use, its marker lexicon by
category (every phrase is counted by the checks as a marker of that pole), free-text notes
that are shown to the rewriter but not counted, the name its markers go by in the checks
(`marker_name`, e.g. "boosters"), the way lexical diversity should move (`diversity`: "up",
"down" or "any") and, where the rule-based rewriter supports it, its `lexical` rules. The
axis's `rewrite_template` (string.Template) states the content-integrity rules and asks the
model to close with a `CHANGES:` list, which `strip_change_list` removes before scoring.

A pole also says how its rewrites are checked (tasks.tone.checks), so a new axis is data:
`length_change` ([lo, hi] relative word change, e.g. [0.4, 0.6]; default ± the study's
length_tolerance), `direction` ("markers": the lexicon balance or diversity moved, as for
confidence and fluency; "markdown": bullets and bold appeared), `markup` ("markdown": every
check and the similarity compare the text with its markup stripped), `words` (the share of
the original's words a rewrite may drop or add, case-insensitive), and `original = true`: the
pole *is* the text as written (verbosity's `unpadded`, formatting's `prose`), so no rewrite is
asked for and every rewriter's version of it is the original itself.
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
from tasks.tone.tokens import words

AXES_DIR = PROJECT_ROOT / "prompts" / "tone" / "axes"
TEMPLATE_FIELDS = ("text", "pole_description", "techniques", "tolerance")
DIVERSITY = ("up", "down", "any")
DIRECTIONS = ("markers", "markdown")
MARKUPS = ("markdown",)


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
class PadRules:
    """Rule-based padding (tasks.tone.padding, `kind = "pad"`): restatements of the text's own
    fact-free sentences, echoes of their key phrases and neutral filler sentences, all built
    from phrases of the pole's lexicon."""

    restate: tuple[str, ...]  # openers: "To put it another way" + ", " + a sentence of the text
    echo: tuple[str, ...]  # openers: "In short" + ": " + a sentence's key phrase
    filler: tuple[str, ...]  # whole sentences: "This point deserves attention"


@dataclass(frozen=True)
class BulletRules:
    """Rule-based markdown (tasks.tone.markdown, `kind = "bullets"`): one bullet per sentence,
    its longest run of content words (at most `bold_words`) in bold."""

    bold_words: int


@dataclass(frozen=True)
class WordLimits:
    """Largest share of the original's words a rewrite may drop / add (None: no limit)."""

    missing: float | None = None
    added: float | None = None


@dataclass(frozen=True)
class Pole:
    name: str
    description: str
    techniques: tuple[str, ...]
    lexicon: Mapping[str, tuple[str, ...]]  # category → markers
    notes: tuple[str, ...] = ()
    marker_name: str | None = None
    diversity: str = "any"
    lexical: LexicalRules | PadRules | BulletRules | None = None
    original: bool = False  # the pole is the text as written: never rewritten
    length_change: tuple[float, float] | None = None  # None: ± the study's length_tolerance
    direction: str = "markers"
    markup: str | None = None
    words: WordLimits | None = None

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

    def rewritten(self) -> list[str]:
        """The poles a rewriter is asked for (all but a pole that is the original)."""
        return [n for n, p in self.poles.items() if not p.original]


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


def _lexical(
    table: Mapping, lexicon: Mapping[str, tuple[str, ...]], where: str
) -> LexicalRules | PadRules | BulletRules:
    kind = table.get("kind", "edits")
    if kind == "pad":
        return PadRules(
            restate=_category(lexicon, _get(table, "restate", str, where), f"{where}.restate"),
            echo=_category(lexicon, _get(table, "echo", str, where), f"{where}.echo"),
            filler=_category(lexicon, _get(table, "filler", str, where), f"{where}.filler"),
        )
    if kind == "bullets":
        bold = _get(table, "bold_words", int, where)
        if bold < 1:
            raise AxisError(f"{where}.bold_words: at least 1")
        return BulletRules(bold_words=bold)
    if kind != "edits":
        raise AxisError(f"{where}.kind: {kind!r} is not one of edits, pad, bullets")
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


def _category(lexicon: Mapping[str, tuple[str, ...]], name: str, where: str) -> tuple[str, ...]:
    if not lexicon.get(name):
        raise AxisError(f"{where}: {name!r} is not a non-empty lexicon category of the pole")
    return lexicon[name]


def _choice(table: Mapping, key: str, allowed: tuple[str, ...], default, where: str):
    value = table.get(key, default)
    if value != default and value not in allowed:
        raise AxisError(f"{where}.{key}: {value!r} is not one of {allowed}")
    return value


def _length_change(table: Mapping, where: str) -> tuple[float, float] | None:
    value = table.get("length_change")
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 2
    ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not ok or not -1 < value[0] <= value[1]:
        raise AxisError(f"{where}.length_change: expected [lo, hi] with -1 < lo <= hi")
    return float(value[0]), float(value[1])


def _words(table: Mapping, where: str) -> WordLimits | None:
    value = table.get("words")
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= {"missing", "added"}:
        raise AxisError(f"{where}.words: expected a table with `missing` and/or `added`")
    for k, v in value.items():
        if not isinstance(v, int | float) or isinstance(v, bool) or v < 0:
            raise AxisError(f"{where}.words.{k}: expected a share >= 0")
    return WordLimits(**{k: float(v) for k, v in value.items()})


def _pole(name: str, table: Mapping, where: str) -> Pole:
    original = table.get("original", False)
    if not isinstance(original, bool):
        raise AxisError(f"{where}.original: expected true or false")
    # a pole that is the original has nothing to rewrite: techniques and lexicon are optional
    lexicon_table = table.get("lexicon", {}) if original else _get(table, "lexicon", dict, where)
    lexicon = {k: _strings(v, f"{where}.lexicon.{k}") for k, v in lexicon_table.items()}
    techniques = table.get("techniques", []) if original else _get(table, "techniques", list, where)
    diversity = _choice(table, "diversity", DIVERSITY, "any", where)
    lexical = table.get("lexical")
    if original and (lexical is not None or "length_change" in table or "words" in table):
        raise AxisError(f"{where}: a pole that is the original has no lexical, length or words")
    return Pole(
        name=name,
        description=_get(table, "description", str, where).strip(),
        techniques=_strings(techniques, f"{where}.techniques"),
        lexicon=lexicon,
        notes=_strings(table.get("notes", []), f"{where}.notes"),
        marker_name=table.get("marker_name"),
        diversity=diversity,
        lexical=_lexical(lexical, lexicon, f"{where}.lexical") if lexical is not None else None,
        original=original,
        length_change=_length_change(table, where),
        direction=_choice(table, "direction", DIRECTIONS, "markers", where),
        markup=_choice(table, "markup", MARKUPS, None, where),
        words=_words(table, where),
    )


def parse_axis(data: Mapping, where: str, path: Path | None = None) -> Axis:
    """A parsed TOML document → Axis; `where` names the source in error messages."""
    poles_table = _get(data, "poles", dict, where)
    if len(poles_table) != 2:
        raise AxisError(f"{where}.poles: an axis has exactly two poles, found {list(poles_table)}")
    poles = {n: _pole(n, t, f"{where}.poles.{n}") for n, t in poles_table.items()}
    if all(p.original for p in poles.values()):
        raise AxisError(f"{where}.poles: at most one pole can be the original")
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


def axis_poles(root: Path = AXES_DIR) -> dict[str, tuple[str, str]]:
    """Per axis, (pole A, pole B) in its file's order: every tone gap is A − B."""
    return {name: tuple(axis.poles) for name, axis in load_axes(root).items()}  # type: ignore[misc]


def axis_of(pole: str, root: Path = AXES_DIR) -> Axis:
    """The axis a pole name belongs to (pole names are unique across axes)."""
    owners = [a for a in load_axes(root).values() if pole in a.poles]
    if len(owners) != 1:
        known = [p for a in load_axes(root).values() for p in a.poles]
        raise KeyError(f"pole {pole!r} belongs to {len(owners)} axes; poles: {known}")
    return owners[0]


# ------------------------------------------------------------------------------------ prompting


def length_change(pole: Pole, tolerance: float) -> tuple[float, float]:
    """The relative word-count change a rewrite toward `pole` may make: the pole's own
    `length_change`, else ±`tolerance` (the study's length_tolerance)."""
    return pole.length_change or (-tolerance, tolerance)


def word_range(n_words: int, change: float | tuple[float, float]) -> tuple[int, int]:
    """The word counts a rewrite of an `n_words` text may have: within ±change (a tolerance)
    or within [lo, hi] relative change."""
    lo, hi = (-change, change) if isinstance(change, int | float) else change
    return math.ceil(n_words * (1 + lo) - 1e-9), math.floor(n_words * (1 + hi) + 1e-9)


def change_label(change: tuple[float, float]) -> str:
    """How a prompt and a check detail state a change range: "±5%" when it is symmetric,
    "+40% to +60%" otherwise."""
    lo, hi = change
    if lo == -hi:
        return f"±{hi * 100:g}%"
    return f"{lo * 100:+g}% to {hi * 100:+g}%"


def render_techniques(pole: Pole) -> str:
    lines = [f"- {t}" for t in pole.techniques]
    for category, markers in pole.lexicon.items():
        lines.append(f"- {category.replace('_', ' ').capitalize()}: {', '.join(markers)}")
    lines += [f"- {n}" for n in pole.notes]
    return "\n".join(lines)


def render_rewrite_prompt(axis: Axis, pole: str, text: str, tolerance: float) -> str:
    """The rewrite request for one text. Besides the four documented fields the template may
    use $words (the original's length), $min_words, $max_words and $word_range ("41 to 45
    words", or "exactly 12 words" when the tolerance leaves no room). $tolerance is the
    pole's length change: "±5%" (the study's tolerance) or e.g. "+40% to +60%"."""
    if axis.pole(pole).original:
        raise ValueError(f"pole {pole!r} is the original text: there is nothing to rewrite")
    n = len(words(text))
    change = length_change(axis.pole(pole), tolerance)
    lo, hi = word_range(n, change)
    return string.Template(axis.rewrite_template).substitute(
        text=text,
        pole_description=axis.pole(pole).description,
        techniques=render_techniques(axis.pole(pole)),
        tolerance=change_label(change),
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

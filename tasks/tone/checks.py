"""Rewrite checks: did a style rewrite keep the facts and the length, and did its tone move?

Pure functions on strings; `check_version` runs every check on one version and
`check_versions` turns a frame of versions into the `rewrite_checks` table (one row per
version × check). Semantic similarity is added to that table by another stage; a version is
scored only if every one of its rows passed (`pass_rates` reports the share per rewriter).

Words are runs of letters and digits, joined across inner apostrophes, hyphens and the
separators of a number ("don't", "well-known", "1,000.5" are one word each; tasks.tone.tokens).
Lengths, per-100-word densities and MTLD all count these words.

What a pole asks of its rewrites is data in its axis file (tasks.tone.axes): the length range
(`length_change`, default ± the study's tolerance), how the move is seen (`direction`:
lexicon markers, or markdown structure), whether markup is stripped before comparing
(`markup`), and how many of the original's words may go or come (`words`, an extra `words`
check). A pole that is the original passes when the version is the original text itself.

Facts: numbers (decimals, thousands separators, percentages, ordinals, decades and the number
words two…ninety, which count as their digits), dates (ISO, d/m/y, "22 February 2016",
"February 22, 2016", "Feb 2016"), currency amounts ("$5 million", "20 euros") and capitalised
words not at a sentence start (names, acronyms; "I" is not a name). A sentence starts at the
start of the text, a line or after . ! ? : (quotes and brackets skipped). A name that starts a
sentence is not extracted — the definition the tone issue asks for — so a rewrite that drops
such a name entirely goes unnoticed; one that merely moves a name onto or off a sentence start
still matches, because a name only has to appear capitalised somewhere in the other version.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import polars as pl

from schemas.rewrite_checks import RewriteChecks
from schemas.validate import validate
from tasks.tone.axes import Axis, Pole, change_label, length_change
from tasks.tone.markdown import strip_markdown, structure
from tasks.tone.tokens import sentence_start
from tasks.tone.tokens import words as words  # re-exported: the checks count these words

DEFAULT_TOLERANCE = 0.05  # length: a rewrite keeps within ±5% of the original's words
MTLD_THRESHOLD = 0.72  # McCarthy & Jarvis (2010)
CHECKS = ("facts", "length", "direction", "mtld", "words")  # "words" only where a pole asks


# ---------------------------------------------------------------------------------------- facts

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATES = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b"
    rf"|\b\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}\b"
    rf"|\b{_MONTH}\s+{_DAY}(?:,?\s+\d{{4}})?\b"
    rf"|\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b"
    rf"|\b{_MONTH}\s+\d{{4}}\b"
)
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MAGNITUDE = r"(?:thousand|million|billion|trillion|k|m|bn)"
_CURRENCY_SYMBOL = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
_CURRENCY_WORD = {"dollar": "usd", "euro": "eur", "cent": "cent", "usd": "usd", "eur": "eur"}
_AMOUNTS = re.compile(
    rf"(?P<sym>[$€£¥])\s?(?P<n1>{_NUM})(?:\s?(?P<m1>{_MAGNITUDE})\b)?"
    rf"|\b(?P<n2>{_NUM})(?:\s(?P<m2>{_MAGNITUDE}))?\s(?P<cur>dollars?|euros?|cents?|usd|eur)\b",
    re.IGNORECASE,
)
_PERCENT = re.compile(rf"(?<![\d.,])(?P<n>{_NUM})\s?(?:%|per\s?cent\b)", re.IGNORECASE)
_NUMBER = re.compile(rf"(?<![\d.,])(?P<n>{_NUM})(?P<suffix>st|nd|rd|th|s)?(?![\d])")
_UNITS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
)
_TENS = "thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS = {w: str(i) for i, w in enumerate(_UNITS.split(), start=2)} | {
    w: str(30 + 10 * i) for i, w in enumerate(_TENS.split())
}
_NUMBER_WORD = re.compile(
    r"\b(" + "|".join(NUMBER_WORDS) + r"|hundreds?|thousands?|millions?|billions?|trillions?)\b",
    re.IGNORECASE,
)
_NOT_NAMES = {"I", "I'm", "I've", "I'd", "I'll", "I’m", "I’ve", "I’d", "I’ll"}
_CAPITALISED = re.compile(r"[^\W\d_][\w'’\-]*")


def _norm_number(n: str) -> str:
    return n.replace(",", "")


def _mask(text: str, span: tuple[int, int]) -> str:
    return text[: span[0]] + " " * (span[1] - span[0]) + text[span[1] :]


def _name(word: str) -> str:
    """`Darwin's` → `Darwin`; trailing hyphens and apostrophes dropped."""
    return re.sub(r"(?:['’]s)?['’\-]*$", "", word)


def _capitalised(text: str) -> list[tuple[str, bool]]:
    """Every capitalised word with whether it starts a sentence."""
    out = []
    for m in _CAPITALISED.finditer(text):
        w = m.group()
        if w[0].isupper() and w not in _NOT_NAMES:
            out.append((_name(w), sentence_start(text, m.start())))
    return out


def extract_facts(text: str) -> dict[str, list[str]]:
    """Numbers, dates, amounts and names in `text`, normalised; each list sorted, repeats kept
    (names: each once). A span counts once: a date's year is not also a number."""
    dates, amounts, numbers = [], [], []
    masked = text
    for m in _DATES.finditer(text):
        dates.append(re.sub(r"\s+", " ", m.group().lower().replace(",", "").replace(" of ", " ")))
        masked = _mask(masked, m.span())
    for m in _AMOUNTS.finditer(masked):
        if m.group("sym"):
            cur, n, mag = _CURRENCY_SYMBOL[m.group("sym")], m.group("n1"), m.group("m1")
        else:
            cur, n, mag = m.group("cur").lower().rstrip("s"), m.group("n2"), m.group("m2")
            cur = _CURRENCY_WORD[cur]
        amounts.append(" ".join(x for x in (cur, _norm_number(n), (mag or "").lower()) if x))
        masked = _mask(masked, m.span())
    for m in _PERCENT.finditer(masked):
        numbers.append(_norm_number(m.group("n")) + "%")
        masked = _mask(masked, m.span())
    for m in _NUMBER.finditer(masked):
        numbers.append(_norm_number(m.group("n")) + (m.group("suffix") or "").lower())
    for m in _NUMBER_WORD.finditer(masked):
        w = m.group().lower()
        numbers.append(NUMBER_WORDS.get(w, w.rstrip("s")))
    names = sorted({w for w, start in _capitalised(text) if not start})
    return {
        "numbers": sorted(numbers),
        "dates": sorted(dates),
        "amounts": sorted(amounts),
        "names": names,
    }


def _diff(a: Iterable[str], b: Iterable[str]) -> tuple[list[str], list[str]]:
    ca, cb = Counter(a), Counter(b)
    return sorted((ca - cb).elements()), sorted((cb - ca).elements())


def fact_diff(orig: str, new: str) -> dict[str, tuple[list[str], list[str]]]:
    """Per kind of fact that differs: (missing from `new`, added in `new`). Numbers, dates and
    amounts must match with repeats; a name of either version must appear capitalised
    somewhere in the other (so moving it onto or off a sentence start is no change)."""
    fo, fn = extract_facts(orig), extract_facts(new)
    out = {}
    for kind in ("numbers", "dates", "amounts"):
        missing, added = _diff(fo[kind], fn[kind])
        if missing or added:
            out[kind] = (missing, added)
    caps_o = {w for w, _ in _capitalised(orig)}
    caps_n = {w for w, _ in _capitalised(new)}
    missing = sorted(set(fo["names"]) - caps_n)
    added = sorted(set(fn["names"]) - caps_o)
    if missing or added:
        out["names"] = (missing, added)
    return out


def facts_match(orig: str, new: str) -> tuple[bool, str]:
    """(all facts kept, what is missing or added — "" when nothing is)."""
    diff = fact_diff(orig, new)
    detail = "; ".join(f"{k}: missing {m}, added {a}" for k, (m, a) in diff.items())
    return not diff, detail


# --------------------------------------------------------------------------------------- length


def length_ratio(orig: str, new: str) -> float:
    """Words in `new` over words in `orig`."""
    n = len(words(orig))
    if n == 0:
        raise ValueError("the original has no words")
    return len(words(new)) / n


def within_tolerance(ratio: float, tolerance: float) -> bool:
    return abs(ratio - 1.0) <= tolerance + 1e-12


def within_change(ratio: float, change: tuple[float, float]) -> bool:
    """The word ratio lies in [1 + lo, 1 + hi] (a relative change range such as [0.4, 0.6])."""
    return change[0] - 1e-12 <= ratio - 1.0 <= change[1] + 1e-12


# ---------------------------------------------------------------------------------------- words


def word_change(orig: str, new: str) -> tuple[float, float]:
    """(share of the original's words missing from `new`, share added), as multisets of
    lowercased words, both over the original's word count."""
    co = Counter(w.lower() for w in words(orig))
    cn = Counter(w.lower() for w in words(new))
    n = sum(co.values())
    if n == 0:
        raise ValueError("the original has no words")
    return sum((co - cn).values()) / n, sum((cn - co).values()) / n


def comparable(text: str, pole: Pole) -> str:
    """The text the checks and the similarity compare: markup stripped for a pole with
    `markup = "markdown"` (the original too, so both sides are treated alike)."""
    return strip_markdown(text) if pole.markup == "markdown" else text


# -------------------------------------------------------------------------------------- markers


@lru_cache(maxsize=64)
def _marker_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One alternation, longest phrase first, so "it seems to us" counts once, not as "it seems"."""
    if not phrases:
        return None
    alts = []
    for p in sorted(set(phrases), key=lambda s: (-len(s), s)):
        alts.append(r"\s+".join(re.escape(w).replace("'", "['’]") for w in p.split()))
    return re.compile(r"(?<![\w'’\-])(?:" + "|".join(alts) + r")(?![\w'’\-])", re.IGNORECASE)


def marker_count(text: str, phrases: Iterable[str]) -> int:
    pattern = _marker_pattern(tuple(sorted(set(phrases))))
    return 0 if pattern is None else sum(1 for _ in pattern.finditer(text))


def marker_density(text: str, lexicon: Mapping[str, Iterable[str]]) -> dict[str, float]:
    """Markers per 100 words for each named list, e.g. `{"hedges": [...], "boosters": [...]}` →
    `{"hedges_per_100": …, "boosters_per_100": …}` (0.0 for a text without words)."""
    n = len(words(text))
    return {
        f"{name}_per_100": 100.0 * marker_count(text, phrases) / n if n else 0.0
        for name, phrases in lexicon.items()
    }


def moved_in_direction(orig: str, new: str, pole: str, axis: Axis) -> bool:
    """Did the tone move toward `pole`? Two conditions:

    (a) nothing moved against it: the pole's own markers are not fewer and the opposite pole's
        markers not more numerous (counts, so a length change alone cannot flip this);
    (b) something moved toward it: the balance (own − opposite markers per 100 words) rose, or —
        for a pole that declares a diversity direction, as the fluency poles do — MTLD moved
        that way.

    For `high`: boosters not fewer, hedges not more, and boosters − hedges per 100 words up.
    """
    own, other = axis.pole(pole), axis.opposite(pole)
    if marker_count(new, own.markers) < marker_count(orig, own.markers):
        return False
    if marker_count(new, other.markers) > marker_count(orig, other.markers):
        return False
    lexicon = {"own": own.markers, "other": other.markers}
    do, dn = marker_density(orig, lexicon), marker_density(new, lexicon)
    if dn["own_per_100"] - dn["other_per_100"] > do["own_per_100"] - do["other_per_100"] + 1e-9:
        return True
    return own.diversity != "any" and _diversity_moved(orig, new, own.diversity)


def _diversity_moved(orig: str, new: str, direction: str) -> bool:
    mo, mn = mtld(orig), mtld(new)
    if mo is None or mn is None:
        return False
    return mn > mo if direction == "up" else mn < mo


# ----------------------------------------------------------------------------------------- MTLD


def _mtld_pass(tokens: Sequence[str], threshold: float) -> float | None:
    types: set[str] = set()
    count, factors, ttr = 0, 0.0, 1.0
    for token in tokens:
        count += 1
        types.add(token)
        ttr = len(types) / count
        if ttr <= threshold:
            factors += 1
            types, count, ttr = set(), 0, 1.0
    if count:
        factors += (1.0 - ttr) / (1.0 - threshold)
    return len(tokens) / factors if factors else None


def mtld_tokens(tokens: Sequence[str], threshold: float = MTLD_THRESHOLD) -> float | None:
    """Bidirectional MTLD (McCarthy & Jarvis 2010, Behavior Research Methods 42(2), 381–392):
    the mean length of runs over which the type-token ratio stays above `threshold`, counting a
    final partial run as (1 − TTR) / (1 − threshold) of a factor; the mean of a forward and a
    backward pass. None when no factor forms at all (every token distinct, or no tokens):
    lexicalrichness returns the token count there, lexical-diversity −1. The authors advise at
    least ~100 tokens; most debate arguments are shorter, so read it as a rough signal."""
    forward = _mtld_pass(tokens, threshold)
    backward = _mtld_pass(list(reversed(tokens)), threshold)
    if forward is None or backward is None:
        return None
    return (forward + backward) / 2


def mtld(text: str, threshold: float = MTLD_THRESHOLD) -> float | None:
    """MTLD over the lowercased words of `text` that contain a letter (numbers are left out)."""
    tokens = [w.lower() for w in words(text) if any(c.isalpha() for c in w)]
    return mtld_tokens(tokens, threshold)


# ------------------------------------------------------------------------------------ one version


def _row(check: str, passed: bool, value: float | None, detail: str) -> dict:
    value = float(value) if value is not None and math.isfinite(value) else None
    return {"check": check, "passed": bool(passed), "value": value, "detail": detail}


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def check_version(
    original: str, rewrite: str, axis: Axis, pole: str, tolerance: float = DEFAULT_TOLERANCE
) -> list[dict]:
    """The model-free checks of one rewrite, one dict each: check, passed, value, detail.

    * facts — value: how many facts differ;
    * length — value: word ratio rewrite / original, passes within ±`tolerance` or the
      pole's `length_change`;
    * direction — value: change of the balance (own − opposite markers per 100 words); for
      `direction = "markdown"` bullet lines plus bold spans added, passing when both grew; for
      a pole that is the original 0, passing when the version is the original text;
    * mtld — value: MTLD ratio rewrite / original; passes if it moved the pole's declared way
      (`diversity` "up"/"down"), always for "any" (then it is only reported);
    * words (only for a pole with `words` limits) — value: share of the original's words
      missing plus share added; passes when each is within its limit.

    With `markup = "markdown"` every check but direction sees both texts with markup stripped.
    """
    own, other = axis.pole(pole), axis.opposite(pole)
    raw_original, raw_rewrite = original, rewrite
    original, rewrite = comparable(original, own), comparable(rewrite, own)
    rows = []
    diff = fact_diff(original, rewrite)
    detail = "; ".join(f"{k}: missing {m}, added {a}" for k, (m, a) in diff.items())
    rows.append(_row("facts", not diff, sum(len(m) + len(a) for m, a in diff.values()), detail))

    if words(original):
        ratio = length_ratio(original, rewrite)
        change = length_change(own, tolerance)
        rows.append(
            _row(
                "length",
                within_change(ratio, change),
                ratio,
                f"{len(words(original))} → {len(words(rewrite))} words ({change_label(change)})",
            )
        )
    else:
        rows.append(_row("length", False, None, "the original has no words"))

    if own.original:
        same = raw_rewrite == raw_original
        detail = f"pole {pole!r} is the text as written" + ("" if same else ", but it differs")
        rows.append(_row("direction", same, 0.0, detail))
    elif own.direction == "markdown":
        (bo, so), (bn, sn) = structure(raw_original), structure(raw_rewrite)
        detail = f"bullet lines {bo} → {bn}, bold spans {so} → {sn}"
        rows.append(_row("direction", bn > bo and sn > so, (bn - bo) + (sn - so), detail))
    else:
        names = {
            own.marker_name or "own": own.markers,
            other.marker_name or "opposite": other.markers,
        }
        do, dn = marker_density(original, names), marker_density(rewrite, names)
        own_key, other_key = (f"{k}_per_100" for k in names)
        shift = (dn[own_key] - dn[other_key]) - (do[own_key] - do[other_key])
        detail = ", ".join(f"{k} {do[k]:.2f} → {dn[k]:.2f}" for k in do)
        moved = moved_in_direction(original, rewrite, pole, axis)
        rows.append(_row("direction", moved, shift, detail))

    mo, mn = mtld(original), mtld(rewrite)
    ratio = mn / mo if mo and mn is not None else None
    if own.diversity == "any":
        passed = True
    elif mo is None or mn is None:
        passed = False
    else:
        passed = mn > mo if own.diversity == "up" else mn < mo
    detail = f"MTLD {_fmt(mo)} → {_fmt(mn)} (wanted: {own.diversity})"
    rows.append(_row("mtld", passed, ratio, detail))

    if own.words is not None:
        rows.append(_words_row(original, rewrite, own))
    return rows


def _words_row(original: str, rewrite: str, pole: Pole) -> dict:
    limits = pole.words
    if not words(original):
        return _row("words", False, None, "the original has no words")
    missing, added = word_change(original, rewrite)
    ok = all(
        limit is None or share <= limit + 1e-12
        for share, limit in ((missing, limits.missing), (added, limits.added))
    )

    def limit(x: float | None) -> str:
        return "any" if x is None else f"≤ {x * 100:g}%"

    detail = (
        f"of {len(words(original))} words: missing {missing * 100:.1f}% ({limit(limits.missing)}),"
        f" added {added * 100:.1f}% ({limit(limits.added)})"
    )
    return _row("words", ok, missing + added, detail)


# --------------------------------------------------------------------------------------- tables


def check_versions(
    versions: pl.DataFrame,
    texts: pl.DataFrame,
    axes: Mapping[str, Axis],
    tolerance: float = DEFAULT_TOLERANCE,
) -> pl.DataFrame:
    """`versions` (version_id, text_id, axis, pole, rewriter, text) against the originals in
    `texts` (tone_texts) → the `rewrite_checks` table, one row per version × check."""
    originals = dict(texts.select("text_id", "text").iter_rows())
    missing = sorted(set(versions["text_id"]) - set(originals))
    if missing:
        raise ValueError(f"versions of unknown text ids: {missing[:5]}")
    rows = []
    for v in versions.iter_rows(named=True):
        keys = {k: v[k] for k in ("version_id", "text_id", "axis", "pole", "rewriter")}
        for row in check_version(
            originals[v["text_id"]], v["text"], axes[v["axis"]], v["pole"], tolerance
        ):
            rows.append(keys | row)
    schema = {
        "version_id": pl.String,
        "text_id": pl.String,
        "axis": pl.String,
        "pole": pl.String,
        "rewriter": pl.String,
        "check": pl.String,
        "passed": pl.Boolean,
        "value": pl.Float64,
        "detail": pl.String,
    }
    return validate(pl.DataFrame(rows, schema=schema), RewriteChecks)


def pass_rates(checks: pl.DataFrame) -> pl.DataFrame:
    """Per rewriter × axis × pole: versions, how many passed every check, the pass rate, and
    how many failed each check (a version may fail several)."""
    per_version = checks.group_by("version_id", "rewriter", "axis", "pole").agg(
        pl.col("passed").all().alias("ok"),
        *(
            (~pl.col("passed")).filter(pl.col("check") == c).any().alias(f"failed_{c}")
            for c in sorted(set(checks["check"]))
        ),
    )
    failed = [c for c in per_version.columns if c.startswith("failed_")]
    return (
        per_version.group_by("rewriter", "axis", "pole")
        .agg(
            pl.len().alias("n_versions"),
            pl.col("ok").sum().alias("n_passed"),
            pl.col("ok").mean().alias("pass_rate"),
            *(pl.col(c).sum() for c in failed),
        )
        .sort("rewriter", "axis", "pole")
    )

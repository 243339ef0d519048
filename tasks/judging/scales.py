"""Rating scales as data: range, step, and the value grid a judge may answer with."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from judgelab.settings import PROJECT_ROOT

SCALES_FILE = PROJECT_ROOT / "prompts" / "scales.toml"
# the scale a rewriter answers on (a tone study's [rewriter]): its calls are not judge designs
REWRITE_SCALE = "rewrite"


@dataclass(frozen=True)
class Scale:
    name: str
    label: str
    min: float
    max: float
    step: float
    categories: tuple[str, ...] = ()  # a verdict scale: answer i of these scores i
    # a rubric scale: each criterion scored 1..criterion_max with a justification, then an
    # overall score on [min, max] (the call's score); a text scale: free text (rewrites)
    criteria: tuple[str, ...] = ()
    criterion_max: int = 4
    text: bool = False
    # the JSON key of a categorical answer ("winner" for pairwise); empty: "verdict", as every
    # categorical scale before it (whose key material is unchanged)
    key: str = ""

    @property
    def field(self) -> str:
        """The JSON key that carries the score."""
        if self.criteria:
            return "overall"
        if self.categories:
            return self.key or "verdict"
        return "score"

    @property
    def structured(self) -> bool:
        """Whether answers are JSON (a text scale's are not)."""
        return not self.text

    @property
    def decimals(self) -> int:
        exp = Decimal(str(self.step)).normalize().as_tuple().exponent
        return max(0, -int(exp))

    @property
    def is_integer(self) -> bool:
        return self.decimals == 0

    def fmt(self, value: float) -> str:
        return f"{value:.{self.decimals}f}"

    def from_unit(self, position: float) -> float:
        """Map a position in [0, 1] onto the scale, snapped to its grid."""
        raw = self.min + position * (self.max - self.min)
        return round(round(raw / self.step) * self.step, self.decimals)

    @property
    def mid(self) -> float:
        return self.from_unit(0.5)

    def grid(self) -> list[str]:
        """Every answer a constrained decoder may emit, formatted as in prompts (JSON); for a
        rubric, the overall score's grid; a text scale has none."""
        if self.text:
            return []
        if self.categories:
            return [json.dumps(c) for c in self.categories]
        n = round((self.max - self.min) / self.step)
        return [self.fmt(self.min + k * self.step) for k in range(n + 1)]

    def contains(self, value: float) -> bool:
        return self.min <= value <= self.max

    def answer_hint(self) -> str:
        """How the answer looks, for prompts and re-asks."""
        if self.text:
            return "the rewritten text"
        if self.criteria:
            one = f'{{"score": <1 to {self.criterion_max}>, "justification": "<one sentence>"}}'
            crit = ", ".join(f'"{c}": {one}' for c in self.criteria)
            return (
                f'{{"criteria": {{{crit}}}, "overall": <{self.fmt(self.min)} to '
                f'{self.fmt(self.max)}>, "strengths": "<one sentence>", '
                f'"weaknesses": "<one sentence>"}}'
            )
        if self.categories:
            return " or ".join(f'{{"{self.field}": "{c}"}}' for c in self.categories)
        return f'{{"score": <a number from {self.fmt(self.min)} to {self.fmt(self.max)}>}}'

    def json_schema(self) -> dict:
        """Schema for `{"score": …}`, `{"verdict": …}` (or the scale's own key) or a rubric;
        structured-output providers enforce it. A text scale has none."""
        if self.criteria:
            criterion = {
                "type": "object",
                "properties": {
                    "score": {"type": "integer", "minimum": 1, "maximum": self.criterion_max},
                    "justification": {"type": "string"},
                },
                "required": ["score", "justification"],
                "additionalProperties": False,
            }
            text = {"type": "string"}
            return {
                "type": "object",
                "properties": {
                    "criteria": {
                        "type": "object",
                        "properties": dict.fromkeys(self.criteria, criterion),
                        "required": list(self.criteria),
                        "additionalProperties": False,
                    },
                    "overall": {
                        "type": "integer",
                        "minimum": int(self.min),
                        "maximum": int(self.max),
                    },
                    "strengths": text,
                    "weaknesses": text,
                },
                "required": ["criteria", "overall", "strengths", "weaknesses"],
                "additionalProperties": False,
            }
        if self.categories:
            return {
                "type": "object",
                "properties": {self.field: {"type": "string", "enum": list(self.categories)}},
                "required": [self.field],
                "additionalProperties": False,
            }
        num = int if self.is_integer else float
        score: dict = {
            "type": "integer" if self.is_integer else "number",
            "minimum": num(self.min),
            "maximum": num(self.max),
        }
        if not self.is_integer:
            score["multipleOf"] = self.step
        return {
            "type": "object",
            "properties": {"score": score},
            "required": ["score"],
            "additionalProperties": False,
        }

    def key_material(self) -> dict:
        material = {"name": self.name, "min": self.min, "max": self.max, "step": self.step}
        if self.categories:  # only verdict scales carry it: numeric scales keep their keys
            material["categories"] = list(self.categories)
        if self.key:  # only scales naming their own key carry it
            material["key"] = self.key
        if self.criteria:
            material |= {"criteria": list(self.criteria), "criterion_max": self.criterion_max}
        if self.text:
            material["text"] = True
        return material


def scale_files() -> list[Path]:
    """prompts/scales.toml, then the `scales.toml` of each type package that has one."""
    from tasks.study_types import package_paths

    return [SCALES_FILE, *package_paths("scales.toml")]


def load_scales(path: Path | None = None) -> dict[str, Scale]:
    """Every scale by name, in the order the files declare them (`path`: that file only). A
    name declared twice is an error: a type package cannot redefine a shared scale."""
    scales: dict[str, Scale] = {}
    for file in scale_files() if path is None else [path]:
        for name, scale in _read_scales(file).items():
            if name in scales:
                raise ValueError(f"{file}: scale {name!r} is declared twice")
            scales[name] = scale
    return scales


def _read_scales(path: Path) -> dict[str, Scale]:
    doc = tomllib.loads(path.read_text())["scales"]
    return {
        name: Scale(
            name=name,
            label=s["label"],
            min=float(s["min"]),
            max=float(s["max"]),
            step=float(s["step"]),
            categories=tuple(s.get("categories", ())),
            criteria=tuple(s.get("criteria", ())),
            criterion_max=int(s.get("criterion_max", 4)),
            text=bool(s.get("text", False)),
            key=str(s.get("key", "")),
        )
        for name, s in doc.items()
    }

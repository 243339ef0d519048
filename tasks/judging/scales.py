"""Rating scales as data: range, step, and the value grid a judge may answer with."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from judgelab.settings import PROJECT_ROOT

SCALES_FILE = PROJECT_ROOT / "prompts" / "scales.toml"


@dataclass(frozen=True)
class Scale:
    name: str
    label: str
    min: float
    max: float
    step: float
    categories: tuple[str, ...] = ()  # a verdict scale: answer i of these scores i

    @property
    def field(self) -> str:
        """The JSON key a judge answers with."""
        return "verdict" if self.categories else "score"

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
        """Every answer a constrained decoder may emit, formatted as in prompts (JSON)."""
        if self.categories:
            return [json.dumps(c) for c in self.categories]
        n = round((self.max - self.min) / self.step)
        return [self.fmt(self.min + k * self.step) for k in range(n + 1)]

    def contains(self, value: float) -> bool:
        return self.min <= value <= self.max

    def answer_hint(self) -> str:
        """How the answer looks, for prompts and re-asks."""
        if self.categories:
            return " or ".join(f'{{"verdict": "{c}"}}' for c in self.categories)
        return f'{{"score": <a number from {self.fmt(self.min)} to {self.fmt(self.max)}>}}'

    def json_schema(self) -> dict:
        """Schema for `{"score": …}` or `{"verdict": …}`; structured-output providers enforce it."""
        if self.categories:
            return {
                "type": "object",
                "properties": {"verdict": {"type": "string", "enum": list(self.categories)}},
                "required": ["verdict"],
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
        return material


def load_scales(path: Path = SCALES_FILE) -> dict[str, Scale]:
    doc = tomllib.loads(path.read_text())["scales"]
    return {
        name: Scale(
            name=name,
            label=s["label"],
            min=float(s["min"]),
            max=float(s["max"]),
            step=float(s["step"]),
            categories=tuple(s.get("categories", ())),
        )
        for name, s in doc.items()
    }

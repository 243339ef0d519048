"""Rating scales as data: range, step, and the value grid a judge may answer with."""

from __future__ import annotations

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
        """Every answer a constrained decoder may emit, formatted as in prompts."""
        n = round((self.max - self.min) / self.step)
        return [self.fmt(self.min + k * self.step) for k in range(n + 1)]

    def contains(self, value: float) -> bool:
        return self.min <= value <= self.max

    def json_schema(self) -> dict:
        """Schema for `{"score": …}`; providers with structured output enforce it."""
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
        return {"name": self.name, "min": self.min, "max": self.max, "step": self.step}


def load_scales(path: Path = SCALES_FILE) -> dict[str, Scale]:
    doc = tomllib.loads(path.read_text())["scales"]
    return {
        name: Scale(
            name=name,
            label=s["label"],
            min=float(s["min"]),
            max=float(s["max"]),
            step=float(s["step"]),
        )
        for name, s in doc.items()
    }

"""Every view keeps its columns: the views published over an empty warehouse are compared with
tests/golden/view_columns.json, written from the release before the one-study-flow redesign
(ba77e2c) by publishing its views the same way. A view may be added; none may lose, rename,
reorder or retype a column. To accept a deliberate change, regenerate the file with
`python tests/test_view_columns.py > tests/golden/view_columns.json` and say why in the commit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from judgelab.settings import Settings
from tasks import warehouse

GOLDEN = Path(__file__).parent / "golden" / "view_columns.json"


def view_columns(settings: Settings) -> dict[str, list[list[str]]]:
    """Every view's columns, published over the empty typed tables."""
    warehouse.publish_views(settings)
    return warehouse.view_columns(settings)


def test_every_view_keeps_its_columns(tmp_path: Path) -> None:
    golden = json.loads(GOLDEN.read_text())
    now = view_columns(Settings(data_dir=tmp_path / "data"))
    assert sorted(set(golden) - set(now)) == []  # no view removed or renamed
    changed = {v: (golden[v], now[v]) for v in golden if golden[v] != now[v]}
    assert changed == {}


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        json.dump(view_columns(Settings(data_dir=Path(tmp))), sys.stdout, indent=1, sort_keys=True)
        print()

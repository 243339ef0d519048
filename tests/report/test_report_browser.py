"""The report in a real browser: headless Chromium loads it from disk, every figure is an SVG
in the DOM it builds, a scripted click opens a row's drill-down, a header click sorts a table,
a sensitive task's texts stay out of the visible text until asked, and screenshots are kept in
artifacts/ for a person to look at.

Skipped only where Chromium is not installed and CI is not set; in CI a missing browser fails.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from judgelab.settings import PROJECT_ROOT
from tasks import warehouse

from .cdp import BASE_FLAGS, Page, chromium_page
from .conftest import Node, Warehouse, parse_html

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = PROJECT_ROOT / "artifacts" / "report-screenshot.png"
TOP_SHOT = PROJECT_ROOT / "artifacts" / "report-top.png"
DRILL_SHOT = PROJECT_ROOT / "artifacts" / "report-drilldown.png"
# the figures issue 30 found unreadable, at 1400 px: artifacts/report-1400-<study>-<view>.png
WIDE_SHOTS = PROJECT_ROOT / "artifacts"
WIDE = 1400
WIDTH, HEIGHT = 1280, 4000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FLAGS = [*BASE_FLAGS, "--virtual-time-budget=10000"]  # layout and painting finish first


def chromium() -> Path:
    if CHROMIUM.is_file():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing and CI is set: install it (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium); the browser checks need it")


def run_chromium(tmp_path: Path, name: str, *args: str) -> str:
    """One headless Chromium run with a fresh profile; its stdout."""
    profile = tmp_path / f"profile-{name}"
    profile.mkdir()
    proc = subprocess.run(
        [str(chromium()), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_browser_builds_one_svg_per_counted_figure(report_file: Path, tmp_path: Path) -> None:
    dom: Node = parse_html(run_chromium(tmp_path, "dom", "--dump-dom", report_file.as_uri()))
    (meta,) = dom.find_all("meta", name="judgelab-figures")
    n = int(meta.attrs["content"])
    figures = dom.find_all("figure")
    in_figures = [s for s in dom.find_all("svg") if any(a.tag == "figure" for a in s.ancestors())]
    assert n > 0 and len(figures) == n and len(in_figures) == n
    assert len(dom.find_all("svg")) == n  # no stray drawing outside a figure
    for svg in in_figures:
        _, _, w, h = (float(v) for v in svg.attrs["viewbox"].split())
        assert w > 100 and h > 100
        assert svg.find_all("path") or svg.find_all("use")  # it has drawn content
    assert len(dom.find_all("details")) >= n  # every figure's table survived the parse


def test_screenshot_is_a_readable_png(report_file: Path, tmp_path: Path) -> None:
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    run_chromium(
        tmp_path,
        "shot",
        f"--screenshot={SCREENSHOT}",
        f"--window-size={WIDTH},{HEIGHT}",
        report_file.as_uri(),
    )
    data = SCREENSHOT.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (WIDTH, HEIGHT)
    assert len(data) > 20_000
    # not a blank page: a good share of the pixels carry ink, in more than a few colours
    with Image.open(SCREENSHOT) as image:
        small = image.convert("L").resize((WIDTH // 8, HEIGHT // 8))
        pixels = small.tobytes()  # one byte per pixel in mode L
    inked = sum(p < 235 for p in pixels) / len(pixels)
    assert inked > 0.03 and len(set(pixels)) > 50


def visible_count(page: Page, texts: list[str]) -> int:
    """How many of `texts` the page's visible text holds; the texts are never sent to the
    browser nor printed, only counted here."""
    visible = page.js("document.body.innerText")
    return sum(t in visible for t in texts)


def row_keys(page: Page, view: str) -> list[str]:
    return page.js(
        f"Array.from(document.querySelectorAll('table[data-view={view}] > tbody > tr'))"
        ".filter((r) => !r.classList.contains('drill'))"
        ".map((r) => Array.from(r.cells).slice(0, 5).map((c) => c.textContent).join('|'))"
    )


def column(page: Page, view: str, name: str) -> list[str]:
    return page.js(
        f"(() => {{ const t = document.querySelector('table[data-view={view}]');"
        f"const i = Array.from(t.tHead.rows[0].cells).findIndex((c) => c.textContent === "
        f"{json.dumps(name)}); return Array.from(t.tBodies[0].rows).map((r) => "
        "r.cells[i].textContent); })()"
    )


def drill_row(page: Page, view: str, *cells: str) -> None:
    """Click the row of `view` whose leading cells are `cells` (opening its <details>)."""
    where = " && ".join(
        f"r.cells[{i}].textContent === {json.dumps(c)}" for i, c in enumerate(cells)
    )
    index = page.js(
        f"(() => {{ const rows = Array.from(document.querySelectorAll("
        f"'table[data-view={view}] > tbody > tr[data-drill]'));"
        f"const i = rows.findIndex((r) => {where}); if (i >= 0) {{"
        "rows[i].closest('details') && (rows[i].closest('details').open = true);"
        "rows[i].scrollIntoView(); rows[i].click(); } return i; })()"
    )
    assert index >= 0, cells


def test_rows_drill_down_tables_sort_and_sensitive_texts_stay_hidden(
    warehouse_run: Warehouse, report_file: Path, tmp_path: Path
) -> None:
    settings = warehouse_run.settings
    toxic = warehouse.query(
        settings,
        "select distinct i.text from stg_items i join stg_scores s using (item_id) "
        "where s.study = 'report-toxicity' and length(i.text) >= 12",
    )["text"].to_list()
    assert toxic  # texts long enough that finding one cannot be chance
    with chromium_page(chromium(), tmp_path / "profile-cdp") as page:
        page.open(report_file.as_uri())
        # the inline script ran (its hash is in the CSP): every table is sortable
        assert page.js("document.querySelectorAll('th.sortable').length") > 20
        assert page.js("document.querySelectorAll('input.filter').length") > 0
        assert visible_count(page, toxic) == 0

        TOP_SHOT.parent.mkdir(exist_ok=True)
        page.js("window.scrollTo(0, 0)")
        page.screenshot(TOP_SHOT)  # the first 1280 × 1600 pixels

        # a toxicity row: its drill-down lists all 12 calls, every one unparseable, with the
        # judge's raw answer; the texts stay behind their "show text" buttons
        view = "tbl_rating_performance"
        drill_row(page, view, "report-toxicity", "judge", "tox-prose")
        box = page.js(
            f"(() => {{ const d = document.querySelector('table[data-view={view}] tr.drill');"
            "if (!d) return null;"
            "const rows = Array.from(d.querySelectorAll('.drill-table > tbody > tr'));"
            "return {n: rows.length, failed: rows.filter((r) => r.className === 'failed').length,"
            " raw: rows.map((r) => r.cells[r.cells.length - 1].textContent),"
            " buttons: d.querySelectorAll('button.reveal').length,"
            " head: d.querySelector('.drill-head').textContent}; })()"
        )
        assert box is not None, "no drill-down row after the click"
        assert box["n"] == box["failed"] == box["buttons"] == 12
        assert set(box["raw"]) == {"I think this text is rather positive overall."}
        assert "12 calls, 12 without a usable answer" in box["head"]
        assert visible_count(page, toxic) == 0
        # the explicit control shows one text, and only that one
        shown = page.js(
            f"(() => {{ const b = document.querySelector('table[data-view={view}] "
            "tr.drill button.reveal'); const cell = b.parentElement; b.click();"
            "const item = cell.parentElement.cells[0].textContent;"
            "const data = JSON.parse(document.getElementById('drill-data').textContent);"
            "return cell.textContent === data.texts[item]; })()"
        )
        assert shown is True
        assert page.js("document.querySelectorAll('tr.drill button.reveal').length") == 11

        # a second click closes it; a sentiment design's drill-down shows texts and scores
        drill_row(page, view, "report-toxicity", "judge", "tox-prose")
        assert page.js(f"document.querySelectorAll('table[data-view={view}] tr.drill').length") == 0
        drill_row(page, view, "report-rating", "judge", "fake-shift", "base", "likert7")
        cells = page.js(
            f"Array.from(document.querySelector('table[data-view={view}] tr.drill "
            ".drill-table > tbody > tr').cells).map((c) => c.textContent)"
        )
        item, text, _repeat, human, score, on_1to7, status, raw = cells
        assert item.startswith("vader:") and text and status == "ok"
        assert float(human) and float(score) == float(on_1to7) and json.loads(raw)["score"]
        clip = page.js(
            f"(() => {{ const d = document.querySelector('table[data-view={view}] tr.drill');"
            "const r = d.previousElementSibling.getBoundingClientRect();"
            "const b = d.getBoundingClientRect();"
            "return {x: 0, y: r.top + window.scrollY - 40, width: 1280,"
            " height: Math.min(900, b.bottom - r.top + 60)}; })()"
        )
        page.screenshot(DRILL_SHOT, clip)

        # sorting: a click on "bias" orders the rows by it, a second click reverses them
        before = row_keys(page, view)
        page.js(
            f"Array.from(document.querySelectorAll('table[data-view={view}] > thead th'))"
            ".find((th) => th.textContent === 'bias').click()"
        )
        after = row_keys(page, view)
        assert sorted(after) == sorted(before) and after != before
        assert page.js(f"document.querySelectorAll('table[data-view={view}] tr.drill').length") == 0
        bias = [float(v) for v in column(page, view, "bias") if v != "–"]
        assert bias == sorted(bias)
        page.js(
            f"Array.from(document.querySelectorAll('table[data-view={view}] > thead th'))"
            ".find((th) => th.textContent === 'bias').click()"
        )
        bias = [float(v) for v in column(page, view, "bias") if v != "–"]
        assert bias == sorted(bias, reverse=True)

        # filtering keeps the rows that mention the query
        page.js(
            f"(() => {{ const i = document.querySelector('table[data-view={view}]')"
            ".closest('.scroll').previousElementSibling; i.value = 'fake-shift';"
            "i.dispatchEvent(new Event('input')); })()"
        )
        visible = page.js(
            f"Array.from(document.querySelectorAll('table[data-view={view}] > tbody > tr'))"
            ".filter((r) => !r.hidden).map((r) => r.cells[2].textContent)"
        )
        assert visible and set(visible) == {"fake-shift"}

        # an accuracy design: reference and verdict per call
        drill_row(page, "tbl_accuracy_by_design", "report-accuracy", "lenient")
        header = page.js(
            "Array.from(document.querySelectorAll('table[data-view=tbl_accuracy_by_design] "
            "tr.drill thead th')).map((c) => c.textContent)"
        )
        assert header == ["item", "text", "repeat", "reference", "verdict", "status", "raw answer"]
        first = page.js(
            "Array.from(document.querySelector('table[data-view=tbl_accuracy_by_design] "
            "tr.drill .drill-table > tbody > tr').cells).map((c) => c.textContent)"
        )
        assert first[3] in {"TRUE", "FALSE"} and first[4] in {"TRUE", "FALSE"}
        assert json.loads(first[6])["verdict"] == first[4]  # the raw answer behind the verdict

        if "report-tone" in warehouse_run.types:  # a tone gap: each text's two versions
            drill_row(page, "tbl_tone_gaps", "report-tone", "bonus", "plain")
            rows = page.js(
                "Array.from(document.querySelectorAll('table[data-view=tbl_tone_gaps] "
                "tr.drill .drill-table > tbody > tr')).map((r) => "
                "Array.from(r.cells).map((c) => c.textContent))"
            )
            assert [r[3] for r in rows[:4]] == ["high", "high", "low", "low"]  # × 2 repeats
            assert len({r[0].rsplit(":", 1)[1] for r in rows[:4]}) == 1  # one text
            assert all(r[5] == "ok" and 1 <= float(r[4]) <= 10 for r in rows)
    for shot in (TOP_SHOT, DRILL_SHOT):
        data = shot.read_bytes()
        assert data[:8] == PNG_SIGNATURE and len(data) > 10_000


def test_a_row_scrolled_to_stays_below_the_sticky_header(report_file: Path, tmp_path: Path) -> None:
    """A table's header row sticks to the top of its scrolling box; a row brought into view
    there (a script, a link, the keyboard) stops below it (scroll-padding), not under it. The
    toxicity drill-down makes its table's box scroll."""
    view = "tbl_rating_performance"
    with chromium_page(chromium(), tmp_path / "profile-sticky") as page:
        page.open(report_file.as_uri())
        drill_row(page, view, "report-toxicity", "judge", "tox-prose")
        seen = page.js(
            f"(() => {{ const d = document.querySelector('table[data-view={view}] tr.drill');"
            "const box = d.closest('.scroll'); box.scrollIntoView({block: 'center'});"
            "const rows = Array.from(d.parentElement.rows).filter((r) => r.dataset.drill);"
            "box.scrollTop = box.scrollHeight;"  # the rows above the drill-down out of sight
            "const out = [];"
            "for (const target of [rows[rows.length - 6], d]) {"
            "  target.scrollIntoView({block: 'nearest'});"
            "  const head = d.closest('table').tHead.getBoundingClientRect();"
            "  const line = (target === d ? d.querySelector('.drill-head') : target)"
            "    .getBoundingClientRect();"
            "  const hit = document.elementFromPoint(line.left + 40, line.top + 2);"
            "  out.push({scrolled: box.scrollTop, below: line.top >= head.bottom - 0.5,"
            "            seen: target.contains(hit)}); }"
            "return out; })()"
        )
    assert seen[0]["scrolled"] > 0  # the box did scroll to bring the row back
    assert all(s["below"] and s["seen"] for s in seen), seen


def test_wide_screenshots_of_the_figures_issue_30_found_unreadable(
    one_judge_run: Warehouse, report_file: Path, tmp_path: Path
) -> None:
    """At 1400 px: the one-judge pairwise figure, the two-judge one, and the tone-axes figures
    (three axes × two prompt variants), each article alone, for a person to look at."""
    one = one_judge_run.settings.data_dir / "reports" / "one.html"
    wanted = [
        (one, "one-pairwise", "tbl_pairwise_position"),
        (report_file, "report", "tbl_pairwise_position"),
    ]
    if "tone-axes" in one_judge_run.types:
        wanted += [
            (one, "tone-axes", v) for v in ("tbl_tone_per_text", "tbl_tone_gaps", "tbl_tone_flips")
        ]
    WIDE_SHOTS.mkdir(exist_ok=True)
    shots = []
    for report, name, view in wanted:
        with chromium_page(chromium(), tmp_path / f"profile-{name}-{view}", width=WIDE) as page:
            page.open(report.as_uri())
            boxes = page.js(
                f"Array.from(document.querySelectorAll('figure[data-view={view}]')).map((f) => "
                "{ const r = f.closest('article').getBoundingClientRect();"
                f" return {{x: 0, y: r.top + window.scrollY, width: {WIDE}, height: r.height}}; }})"
            )
            assert boxes, (name, view)
            path = WIDE_SHOTS / f"report-{WIDE}-{name}-{view}.png"
            page.screenshot(path, boxes[0])
            shots.append(path)
    for path in shots:
        with Image.open(path) as image:
            assert image.width == WIDE and image.height > 200, path
            small = image.convert("L").resize((image.width // 4, image.height // 4))
        assert len(set(small.tobytes())) > 30, path  # drawn, not blank

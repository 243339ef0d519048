"""Mutation check of the statistics code: does the test suite notice a one-line change?

Each mutant replaces one exact piece of source text (a cut, an operator at a cut, an
aggregate, a denominator, a membership rule), runs the tests that cover that module, and
restores the file. Each mutant ends as one of:

  killed    a test assertion failed (an `assert`, pytest.fail, pytest.raises not raising)
  CRASHED   the tests stopped on something else: an exception that is not an assertion
            (ImportError, SyntaxError, a missing column…), an error in a fixture, a collection
            error, or a pytest exit code other than 0 or 1. The mutant did not run as meant:
            it says nothing about the tests
  SURVIVED  every test passed
  ERROR     the mutant could not run: its original text is not in the file exactly once, a
            test file is missing, the tests fail without the mutant, or the file changed while
            the mutant was in it (restored without the mutant, nothing else touched)

Prints one line per mutant and the counts; exits 1 unless every mutant is killed by a test.

.venv/bin/python bench/mutants.py            # every mutant
.venv/bin/python bench/mutants.py -k cuts    # those whose name contains "cuts"
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES_ENV = "JUDGELAB_MUTANT_OUTCOMES"  # file the plugin below appends each failure to

# (name, file, original text, mutated text, test files)
MUTANTS: list[tuple[str, str, str, str, list[str]]] = [
    (
        "cuts: tolerance off",
        "tasks/cuts.py",
        "TOLERANCE = 1e-9",
        "TOLERANCE = 0.0",
        ["tests/test_cuts.py"],
    ),
    (
        "cuts: above as >=",
        "tasks/cuts.py",
        "else x > cut + TOLERANCE\n\n\ndef at_least(",
        "else x >= cut + TOLERANCE\n\n\ndef at_least(",
        ["tests/test_cuts.py", "tests/test_equivalence.py"],
    ),
    (
        "cuts: below as <=",
        "tasks/cuts.py",
        "else x < cut - TOLERANCE\n\n\ndef above_expr",
        "else x <= cut - TOLERANCE\n\n\ndef above_expr",
        ["tests/test_cuts.py", "tests/accuracy/test_verdict_impact.py"],
    ),
    (
        "cuts: SQL above as >=",
        "tasks/cuts.py",
        "macro above(x, cut) as x > cut",
        "macro above(x, cut) as x >= cut",
        ["tests/test_cuts.py"],
    ),
    (
        "cuts: p cut 0.1",
        "tasks/cuts.py",
        "SIG_P = 0.05",
        "SIG_P = 0.1",
        ["tests/test_cuts.py", "tests/rating/test_thresholds.py"],
    ),
    (
        "thresholds: bias cut 0.3 → 0.25",
        "tasks/cuts.py",
        "BIAS_CUTS = (0.2, 0.3)",
        "BIAS_CUTS = (0.2, 0.25)",
        ["tests/rating/test_thresholds.py", "tests/test_cuts.py"],
    ),
    (
        "thresholds: MAE cut 0.5 → 0.4",
        "tasks/cuts.py",
        "MAE_CUT = 0.5",
        "MAE_CUT = 0.4",
        ["tests/rating/test_thresholds.py", "tests/test_cuts.py"],
    ),
    (
        "thresholds: medium effect ≥ → >",
        "tasks/rating/thresholds.py",
        '_share(at_least_expr(pl.col("rank_biserial").abs(), MEDIUM_EFFECT))',
        '_share(above_expr(pl.col("rank_biserial").abs(), MEDIUM_EFFECT))',
        ["tests/rating/test_thresholds.py"],
    ),
    (
        "thresholds: share over non-null only",
        "tasks/rating/thresholds.py",
        "return hit.fill_null(False).cast(pl.Float64).sum() / pl.len()",
        # an all-null group stays 0, not null: the schema would stop it before any assertion
        "return hit.cast(pl.Float64).mean().fill_null(0.0)",
        ["tests/rating/test_thresholds.py"],
    ),
    (
        "thresholds: Holm share from raw p",
        "tasks/rating/thresholds.py",
        '_share(below_expr(pl.col("p_holm"), SIG_P))',
        '_share(below_expr(pl.col("wilcoxon_p"), SIG_P))',
        ["tests/rating/test_thresholds.py"],
    ),
    (
        "pairs: meaningful as ≥",
        "tasks/rating/agreement.py",
        'above_expr(pl.col("mean_diff").abs(), meaningful)',
        '(pl.col("mean_diff").abs() >= meaningful)',  # bracketed: `.alias` follows
        ["tests/rating/test_agreement.py", "tests/test_cuts.py"],
    ),
    (
        "pairs: sig as ≤",
        "tasks/rating/agreement.py",
        'below_expr(pl.col("wilcoxon_p"), SIG_P)',
        '(pl.col("wilcoxon_p") <= SIG_P)',
        ["tests/rating/test_agreement.py", "tests/test_cuts.py"],
    ),
    (
        "repeats: median of repeats",
        "tasks/rating/item_scores.py",
        'pl.col("score_1to7").mean(),',
        'pl.col("score_1to7").median(),',
        ["tests/test_stats.py", "tests/rating/test_agreement.py"],
    ),
    (
        "repeats: seed not varied",
        "tasks/judging/keys.py",
        "return None if judge.seed is None else judge.seed + repeat",
        "return judge.seed",
        ["tests/judging/test_golden_keys.py"],
    ),
    (
        "repeats: seed varies at repeat 0",
        "tasks/judging/keys.py",
        "return None if judge.seed is None else judge.seed + repeat",
        "return None if judge.seed is None else judge.seed + repeat + 1",
        ["tests/judging/test_golden_keys.py"],
    ),
    (
        "consensus: repeat sd needs 2 repeats",
        "tasks/accuracy/consensus.py",
        'pl.when(pl.col("n_ok") >= 2).then(pl.col("repeat_sd"))',
        'pl.when(pl.col("n_ok") >= 3).then(pl.col("repeat_sd"))',
        ["tests/accuracy/test_consensus.py", "tests/accuracy/test_accuracy.py"],
    ),
    (
        "consensus: near as >",
        "tasks/accuracy/consensus.py",
        ".when(enough & at_least_expr(agreement, near))",
        ".when(enough & (agreement > near))",
        ["tests/accuracy/test_consensus.py"],
    ),
    (
        "consensus: majority ≥ half",
        "tasks/accuracy/consensus.py",
        "label = pl.when(enough & (2 * t > n))",
        "label = pl.when(enough & (2 * t >= n))",
        ["tests/accuracy/test_consensus.py"],
    ),
    (
        "consensus: per-design votes by default",
        "judgelab/study.py",
        'consensus_votes: Literal["model", "design"] = "model"',
        'consensus_votes: Literal["model", "design"] = "design"',
        [
            "tests/accuracy/test_consensus.py",
            "tests/test_study_notes.py",
            "tests/accuracy/test_accuracy.py",
        ],
    ),
    (
        "accuracy: leniency over every scored item",
        "tasks/accuracy/metrics.py",
        'then(c("fp") / (c("fp") + c("fn")))',
        'then(c("fp") / (c("fp") + c("fn") + c("n_correct")))',
        ["tests/accuracy/test_accuracy.py"],
    ),
    (
        "Table 17: median over levels",
        "tasks/accuracy/verdict_impact.py",
        'means = (c("accuracy").mean(), c("leniency").mean())',
        'means = (c("accuracy").median(), c("leniency").median())',
        ["tests/accuracy/test_verdict_impact.py"],
    ),
    (
        "verdict pairs: sig as ≤",
        "tasks/accuracy/verdict_impact.py",
        '"sig": below(p, SIG_P),',
        '"sig": None if p is None else p <= SIG_P,',
        ["tests/accuracy/test_verdict_impact.py"],
    ),
    (
        "ensembles: baselines join the judges",
        "tasks/rating/ensembles.py",
        '{"judges": ("judge",), "judges+baselines"',
        '{"judges": ("judge", "baseline"), "judges+baselines"',
        ["tests/rating/test_ensembles.py"],
    ),
    (
        "ensembles: median over members",
        "tasks/rating/ensembles.py",
        "member_abs_bias = float(mem_abs.mean(axis=1).mean())",
        "member_abs_bias = float(np.median(mem_abs, axis=1).mean())",
        ["tests/rating/test_ensembles.py"],
    ),
    (
        "ensembles: |mean of member biases|",
        "tasks/rating/ensembles.py",
        "member_abs_bias = float(mem_abs.mean(axis=1).mean())",
        "member_abs_bias = float(np.abs(f.mem_bias[ok].mean(axis=1)).mean())",
        ["tests/rating/test_ensembles.py"],
    ),
    (
        "TOST: 95% instead of 90% interval",
        "tasks/equivalence.py",
        "half = sps.t.ppf(1 - ALPHA, df) * se",
        "half = sps.t.ppf(1 - ALPHA / 2, df) * se",
        ["tests/test_equivalence.py"],
    ),
    (
        "TOST: no-spread rule off",
        "tasks/equivalence.py",
        "MIN_N_NO_SPREAD = 30",
        "MIN_N_NO_SPREAD = 2",
        ["tests/test_equivalence.py"],
    ),
    (
        "multiplicity: BH as Holm",
        "tasks/multiplicity.py",
        '(_holm if method == "holm" else _bh)',
        '(_holm if method == "holm" else _holm)',
        [
            "tests/test_multiplicity.py",
            "tests/rating/test_agreement.py",
            "tests/tone/test_analysis.py",
        ],
    ),
    (
        "pairwise: flagged from the raw p",
        "tasks/pairwise/analysis.py",
        '(pl.col("p_holm") < ALPHA).alias("flagged")',
        '(pl.col("p_value") < ALPHA).alias("flagged")',
        ["tests/pairwise/test_pairwise_analysis.py"],
    ),
    (
        "pairwise figure: interval ends swapped",
        "tasks/pairwise/figures.py",
        "np.vstack([bias - lo, hi - bias])",
        "np.vstack([hi - bias, bias - lo])",
        ["tests/pairwise/test_pairwise_figures.py"],
    ),
    (
        "pairwise figure: untested designs drawn as flagged",
        "tasks/pairwise/figures.py",
        'np.array([bool(f) for f in frame["flagged"]])',
        'np.array([f is not False for f in frame["flagged"]])',
        ["tests/pairwise/test_pairwise_figures.py"],
    ),
    (
        "pairwise figure: first design at the bottom",
        "tasks/pairwise/figures.py",
        "y = np.arange(len(labels))[::-1]",
        "y = np.arange(len(labels))",
        ["tests/pairwise/test_pairwise_figures.py"],
    ),
    (
        "grammar: grid without its last value",
        "tasks/judging/grammar.py",
        'values = " | ".join(_lit(v) for v in scale.grid())',
        'values = " | ".join(_lit(v) for v in scale.grid()[:-1])',
        ["tests/judging/test_scales.py"],
    ),
    (
        "grammar: rubric criterion may score 0",
        "tasks/judging/grammar.py",
        "criterion = f'[1-{scale.criterion_max}]",
        "criterion = f'[0-{scale.criterion_max}]",
        ["tests/judging/test_scales.py"],
    ),
]


# ---- the pytest plugin: how each failing test failed --------------------------------------
# This module is loaded into the test run (`-p mutants`): it writes one JSON line per failed
# test phase, saying whether an assertion failed or something else was raised.

ASSERTIONS = (AssertionError, pytest.fail.Exception)  # pytest.raises not raising is a fail


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    target = os.environ.get(OUTCOMES_ENV)
    if target and report.failed:
        excinfo = call.excinfo
        line = {
            "test": item.nodeid,
            "when": call.when,
            "assertion": call.when == "call"
            and excinfo is not None
            and excinfo.errisinstance(ASSERTIONS),
            "error": excinfo.typename if excinfo is not None else "failed",
        }
        _record(target, line)
    return report


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A test file that does not import (SyntaxError, ImportError…): its error's last line."""
    target = os.environ.get(OUTCOMES_ENV)
    if target and report.failed:
        errors = [ln for ln in report.longreprtext.splitlines() if ln.startswith("E ")]
        error = errors[-1].removeprefix("E").strip() if errors else "collection error"
        _record(
            target, {"test": report.nodeid, "when": "collect", "assertion": False, "error": error}
        )


def _record(target: str, line: dict) -> None:
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


# ---- the runner ----------------------------------------------------------------------------


def run_tests(tests: list[str]) -> tuple[int, list[dict], str]:
    """(pytest's exit code, one record per failed test phase, the output's last lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = Path(tmp) / "outcomes.jsonl"
        env = {
            **os.environ,
            OUTCOMES_ENV: str(outcomes),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]),
            # no bytecode from a mutant: a restored file of the same size within the same
            # second would otherwise run the mutant's cached bytecode in the next test run
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-m",
                "not slow",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:xdist",
                "-p",
                "mutants",
                *tests,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
        )
        lines = outcomes.read_text().splitlines() if outcomes.exists() else []
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-3:])
    return done.returncode, [json.loads(line) for line in lines], tail


def verdict(code: int, failures: list[dict], tail: str) -> tuple[str, str]:
    """(status, why) of one test run on a mutant (module docstring)."""
    if code == 0:
        return "SURVIVED", ""
    asserted = [f for f in failures if f["assertion"]]
    if code == 1 and asserted:
        return "killed", asserted[0]["test"]
    if failures:
        first = failures[0]
        return (
            "CRASHED",
            f"exit code {code}, {first['error']} in {first['when']} of {first['test']}",
        )
    return "CRASHED", f"exit code {code}: {tail.splitlines()[-1] if tail else ''}"


def restore(path: Path, source: str, mutated: str, old: str, new: str) -> str:
    """Put the file back; "" when it held the mutant untouched, else why not quite: someone
    edited it meanwhile, so only the mutant is taken out of their text."""
    now = path.read_text()
    if now == mutated:
        path.write_text(source)
        return ""
    if now.count(new) == 1:
        path.write_text(now.replace(new, old))
        return f"{path.relative_to(ROOT)} changed while the mutant was in it (mutant taken out)"
    return f"{path.relative_to(ROOT)} changed while the mutant was in it (mutant text gone)"


def run(name: str, rel: str, old: str, new: str, tests: list[str]) -> tuple[str, str, float]:
    """(status, why, seconds) of one mutant; the file is as it was afterwards."""
    path = ROOT / rel
    missing = [t for t in tests if not (ROOT / t).exists()]
    if missing:
        return "ERROR", f"no test file {', '.join(missing)}", 0.0
    source = path.read_text()
    if source.count(old) != 1:
        return "ERROR", f"the original text occurs {source.count(old)} times in {rel}", 0.0
    started = time.perf_counter()
    mutated = source.replace(old, new)
    path.write_text(mutated)
    try:
        code, failures, tail = run_tests(tests)
    finally:
        edited = restore(path, source, mutated, old, new)
    if edited:
        return "ERROR", edited, time.perf_counter() - started
    return (*verdict(code, failures, tail), time.perf_counter() - started)


def failing_files(tests: list[str]) -> dict[str, str]:
    """The test files that fail without any mutant, each with its first failing test (a kill
    by a test that fails anyway would mean nothing). One run over all of them."""
    code, failures, tail = run_tests(tests)
    if code == 0:
        return {}
    if not failures:  # a collection error or worse: every file is suspect
        return dict.fromkeys(tests, tail.splitlines()[-1] if tail else f"exit code {code}")
    found: dict[str, str] = {}
    for failure in failures:
        found.setdefault(failure["test"].split("::")[0], failure["test"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if args.k in m[0]]
    files = sorted({t for m in chosen for t in m[4] if (ROOT / t).exists()})
    broken = failing_files(files)
    counts = dict.fromkeys(["killed", "CRASHED", "SURVIVED", "ERROR"], 0)
    for name, rel, old, new, tests in chosen:
        if failing := [broken[t] for t in tests if t in broken]:
            status, why, secs = "ERROR", f"fails without the mutant: {failing[0]}", 0.0
        else:
            status, why, secs = run(name, rel, old, new, tests)
        counts[status] += 1
        print(f"{status:8} {secs:5.1f} s  {name}" + (f"  [{why}]" if why else ""), flush=True)
    print(
        f"\n{len(chosen)} mutants: {counts['killed']} killed by a test, "
        f"{counts['CRASHED']} crashed, {counts['SURVIVED']} survived, {counts['ERROR']} errors"
    )
    sys.exit(0 if counts["killed"] == len(chosen) else 1)


if __name__ == "__main__":
    main()

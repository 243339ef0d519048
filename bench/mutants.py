"""Mutation check of the statistics code: does the test suite notice a one-line change?

Each mutant replaces one exact piece of source text (a cut, an operator at a cut, an
aggregate, a denominator, a membership rule), runs the tests that cover that module, and
restores the file. A mutant the tests do not notice "survives". Prints one line per mutant
and the count; asserts nothing.

.venv/bin/python bench/mutants.py            # every mutant
.venv/bin/python bench/mutants.py -k cuts    # those whose name contains "cuts"
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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
        ["tests/test_cuts.py", "tests/test_verdict_impact.py"],
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
        ["tests/test_cuts.py", "tests/test_thresholds.py"],
    ),
    (
        "thresholds: bias cut 0.3 → 0.25",
        "tasks/cuts.py",
        "BIAS_CUTS = (0.2, 0.3)",
        "BIAS_CUTS = (0.2, 0.25)",
        ["tests/test_thresholds.py", "tests/test_cuts.py"],
    ),
    (
        "thresholds: MAE cut 0.5 → 0.4",
        "tasks/cuts.py",
        "MAE_CUT = 0.5",
        "MAE_CUT = 0.4",
        ["tests/test_thresholds.py", "tests/test_cuts.py"],
    ),
    (
        "thresholds: medium effect ≥ → >",
        "tasks/rating/thresholds.py",
        '_share(at_least_expr(pl.col("rank_biserial").abs(), MEDIUM_EFFECT))',
        '_share(above_expr(pl.col("rank_biserial").abs(), MEDIUM_EFFECT))',
        ["tests/test_thresholds.py"],
    ),
    (
        "thresholds: share over non-null only",
        "tasks/rating/thresholds.py",
        "return hit.fill_null(False).cast(pl.Float64).sum() / pl.len()",
        "return hit.cast(pl.Float64).mean()",
        ["tests/test_thresholds.py"],
    ),
    (
        "thresholds: Holm share from raw p",
        "tasks/rating/thresholds.py",
        '_share(below_expr(pl.col("p_holm"), SIG_P))',
        '_share(below_expr(pl.col("wilcoxon_p"), SIG_P))',
        ["tests/test_thresholds.py"],
    ),
    (
        "pairs: meaningful as ≥",
        "tasks/rating/agreement.py",
        'above_expr(pl.col("mean_diff").abs(), meaningful)',
        'pl.col("mean_diff").abs() >= meaningful',
        ["tests/test_agreement.py", "tests/test_cuts.py"],
    ),
    (
        "pairs: sig as ≤",
        "tasks/rating/agreement.py",
        'below_expr(pl.col("wilcoxon_p"), SIG_P)',
        'pl.col("wilcoxon_p") <= SIG_P',
        ["tests/test_agreement.py", "tests/test_cuts.py"],
    ),
    (
        "repeats: median of repeats",
        "tasks/rating/item_scores.py",
        'pl.col("score_1to7").mean(),',
        'pl.col("score_1to7").median(),',
        ["tests/test_stats.py", "tests/test_agreement.py"],
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
        ["tests/test_consensus.py", "tests/test_accuracy.py"],
    ),
    (
        "consensus: near as >",
        "tasks/accuracy/consensus.py",
        ".when(enough & at_least_expr(agreement, near))",
        ".when(enough & (agreement > near))",
        ["tests/test_consensus.py"],
    ),
    (
        "consensus: majority ≥ half",
        "tasks/accuracy/consensus.py",
        "label = pl.when(enough & (2 * t > n))",
        "label = pl.when(enough & (2 * t >= n))",
        ["tests/test_consensus.py"],
    ),
    (
        "consensus: per-design votes by default",
        "judgelab/study.py",
        'consensus_votes: Literal["model", "design"] = "model"',
        'consensus_votes: Literal["model", "design"] = "design"',
        ["tests/test_consensus.py", "tests/test_study_notes.py", "tests/test_accuracy.py"],
    ),
    (
        "accuracy: leniency denominator",
        "tasks/accuracy/metrics.py",
        'then(c("fp") / (c("fp") + c("fn")))',
        'then(c("fp") / (c("fp") + c("fn") + c("tp")))',
        ["tests/test_accuracy.py"],
    ),
    (
        "Table 17: median over levels",
        "tasks/accuracy/verdict_impact.py",
        'means = (c("accuracy").mean(), c("leniency").mean())',
        'means = (c("accuracy").median(), c("leniency").median())',
        ["tests/test_verdict_impact.py"],
    ),
    (
        "verdict pairs: sig as ≤",
        "tasks/accuracy/verdict_impact.py",
        '"sig": below(p, SIG_P),',
        '"sig": None if p is None else p <= SIG_P,',
        ["tests/test_verdict_impact.py"],
    ),
    (
        "ensembles: baselines join the judges",
        "tasks/rating/ensembles.py",
        '{"judges": ("judge",), "judges+baselines"',
        '{"judges": ("judge", "baseline"), "judges+baselines"',
        ["tests/test_ensembles.py"],
    ),
    (
        "ensembles: median over members",
        "tasks/rating/ensembles.py",
        "member_abs_bias = float(mem_abs.mean(axis=1).mean())",
        "member_abs_bias = float(np.median(mem_abs, axis=1).mean())",
        ["tests/test_ensembles.py"],
    ),
    (
        "ensembles: |mean of member biases|",
        "tasks/rating/ensembles.py",
        "member_abs_bias = float(mem_abs.mean(axis=1).mean())",
        "member_abs_bias = float(np.abs(f.mem_bias[ok].mean(axis=1)).mean())",
        ["tests/test_ensembles.py"],
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
        'METHODS = {"holm": "holm", "bh": "fdr_bh"}',
        'METHODS = {"holm": "holm", "bh": "holm"}',
        ["tests/test_agreement.py", "tests/test_verdict_impact.py", "tests/tone/test_analysis.py"],
    ),
]


def run(name: str, rel: str, old: str, new: str, tests: list[str]) -> tuple[bool, float]:
    """True when the tests notice the mutant (it is killed)."""
    path = ROOT / rel
    source = path.read_text()
    if source.count(old) != 1:
        raise SystemExit(
            f"mutant {name!r}: the original text occurs {source.count(old)} times in {rel}"
        )
    started = time.perf_counter()
    path.write_text(source.replace(old, new))
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-x",
                "-m",
                "not slow",
                "-p",
                "no:cacheprovider",
                *tests,
            ],
            cwd=ROOT,
            capture_output=True,
        )
    finally:
        path.write_text(source)
    return done.returncode != 0, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if args.k in m[0]]
    survivors = []
    for mutant in chosen:
        killed, secs = run(*mutant)
        print(f"{'killed  ' if killed else 'SURVIVED'} {secs:5.1f} s  {mutant[0]}", flush=True)
        if not killed:
            survivors.append(mutant[0])
    print(
        f"\n{len(chosen)} mutants, {len(chosen) - len(survivors)} killed, {len(survivors)} survived"
    )


if __name__ == "__main__":
    main()

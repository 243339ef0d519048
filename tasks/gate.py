"""The gate: rules over report views pass or fail a study, for CI (`judgelab check`) and flows."""

from __future__ import annotations

import json
import operator
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from pydantic import ValidationError

from judgelab.settings import Settings
from judgelab.study import Rule, StudyError
from judgelab.study_toml import locate, suggest

OPS: dict[str, Callable] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
}
# The CI bound that must satisfy the op when ci = "within": the whole interval lies beyond the
# value only if its nearer bound does. == and != have no such bound.
BOUND = {">=": "lo", ">": "lo", "<=": "hi", "<": "hi"}
# Estimates whose CI columns drop a prefix of their name (otherwise: <column>_lo / <column>_hi)
CI_STEMS = {
    "kripp_alpha": "alpha",  # tbl_rating_performance
    "gap_plain": "plain",  # tbl_tone_by_variant
    "gap_style_attention": "style_attention",
    "gap_fact_first": "fact_first",
}
# one line: how to write a rule
HOW_TO_ADD = (
    "add [[rules]] tables (view, column, op, value; optional where, ci, name), e.g. "
    '[[rules]] view = "tbl_rating_performance" column = "kripp_alpha" op = ">=" value = 0.8'
)


class GateError(StudyError):
    """A rule that cannot be evaluated (unknown view or column, no CI to be within): a
    configuration error, never a failed rule."""


def refused(name: str, why: str) -> GateError:
    """The error for a rule that cannot be evaluated, naming it (its `where` often holds ')."""
    return GateError(f'rule "{name}": {why}')


def rule_name(rule: Rule) -> str:
    """The rule's own name, else the rule written out."""
    if rule.name:
        return rule.name
    where = f" where {rule.where}" if rule.where else ""
    within = " (CI within)" if rule.ci == "within" else ""
    return f"{rule.view}.{rule.column} {rule.op} {rule.value:g}{where}{within}"


@dataclass(frozen=True)
class RuleResult:
    study: str
    name: str
    passed: bool
    value: float | None  # the worst matching row's estimate: the one that decided
    ci: tuple[float | None, float | None] | None  # its interval, when the view has one
    n_rows: int

    @property
    def detail(self) -> str:
        if self.n_rows == 0:
            return "no rows"
        ci = f" [{_num(self.ci[0])}, {_num(self.ci[1])}]" if self.ci else ""
        return f"{_num(self.value)}{ci}, {self.n_rows} row{'s' * (self.n_rows != 1)}"

    @property
    def line(self) -> str:
        study = f"{self.study} · " if self.study else ""
        return f"{'PASS' if self.passed else 'FAIL'} {study}{self.name}: {self.detail}"


def _num(value: float | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def ci_columns(column: str, columns: list[str]) -> tuple[str, str] | None:
    """The (lo, hi) columns of `column`'s CI in a view with these columns, or None."""
    for stem in (column, CI_STEMS.get(column)):
        if stem and f"{stem}_lo" in columns and f"{stem}_hi" in columns:
            return f"{stem}_lo", f"{stem}_hi"
    return None


def evaluate(rule: Rule, rows: pl.DataFrame, study: str = "") -> RuleResult:
    """Every row (already narrowed to the study and `where`) must satisfy the rule; the worst
    row decides and is reported. No rows fails: a gate that checks nothing must not pass. A
    null or NaN estimate fails its row."""
    name = rule_name(rule)
    if rule.column not in rows.columns:
        raise refused(
            name,
            f"{rule.view} has no column {rule.column!r}; "
            f"{suggest(rule.column, rows.columns)}its columns: {', '.join(rows.columns)}",
        )
    dtype = rows.schema[rule.column]
    if not (dtype.is_numeric() or dtype == pl.Boolean):
        raise refused(name, f"{rule.view}.{rule.column} is {dtype}, not a number")
    ci = ci_columns(rule.column, rows.columns)
    if rule.ci == "within" and ci is None:
        raise refused(
            name,
            f'ci = "within", but {rule.view} has no CI for {rule.column} (no '
            f'{rule.column}_lo/_hi columns); use ci = "point" or a column with a CI',
        )
    if rows.is_empty():
        return RuleResult(study, name, False, None, None, 0)

    def number(column: str) -> pl.Expr:
        return pl.col(column).cast(pl.Float64).fill_nan(None)  # polars orders NaN above all

    lo, hi = ci or (None, None)
    frame = rows.select(
        value=number(rule.column),
        lo=number(lo) if lo else pl.lit(None, pl.Float64),
        hi=number(hi) if hi else pl.lit(None, pl.Float64),
    )
    decisive = pl.col(BOUND[rule.op] if rule.ci == "within" else "value")
    ok = OPS[rule.op](decisive, rule.value).fill_null(False)
    # worst first: failing rows, then the decisive value farthest on the wrong side
    if rule.op in (">=", ">"):
        key, descending = decisive, False
    elif rule.op in ("<=", "<"):
        key, descending = decisive, True
    else:
        key, descending = (decisive - rule.value).abs(), rule.op == "=="
    worst = (
        frame.with_columns(ok=ok, key=key)
        .sort(["ok", "key"], descending=[False, descending], nulls_last=[False, False])
        .row(0, named=True)
    )
    passed = bool(frame.select(ok.all()).item())
    return RuleResult(
        study, name, passed, worst["value"], (worst["lo"], worst["hi"]) if ci else None, len(rows)
    )


def _parsed(sql: str) -> dict:
    """DuckDB's own parse tree of `sql` (json_serialize_sql), without running anything."""
    import duckdb

    with duckdb.connect() as con:
        ((text,),) = con.execute("select json_serialize_sql(?)", [sql]).fetchall()
    tree = json.loads(text)
    if tree.get("error"):
        raise ValueError(tree.get("error_message", "not valid SQL"))
    return tree


def _split(tree: dict) -> tuple[dict, dict | None]:
    """(the one statement without its WHERE clause, the WHERE clause)."""
    if len(tree["statements"]) != 1:
        raise ValueError(f"{len(tree['statements'])} statements")
    (statement,) = tree["statements"]
    node = dict(statement["node"])
    return {**statement, "node": node}, node.pop("where_clause", None)


def _has_subquery(tree: object) -> bool:
    if isinstance(tree, dict):
        return tree.get("class") == "SUBQUERY" or any(map(_has_subquery, tree.values()))
    return isinstance(tree, list) and any(map(_has_subquery, tree))


def one_condition(where: str, query: Callable[[str], str]) -> None:
    """Raise ValueError unless `where` is one condition on a row: `select * from t where
    <where>` and the query that will run (`query(where)`) must each parse (DuckDB's parser) to
    one statement that differs from the same text with `true` only in its WHERE clause, and
    that clause holds no subquery. So `1=1) or (1=1` (unbalanced), `true) union all …`, a
    second statement, `limit`, `order by` or `group by` are refused, never run."""
    for template in (lambda e: f"select * from t where {e}", query):
        outer, condition = _split(_parsed(template(where)))
        if outer != _split(_parsed(template("true")))[0]:
            raise ValueError("not one condition: it changes the query around it")
        if _has_subquery(condition):
            raise ValueError("a subquery is not a condition on the view's columns")


def read_rows(settings: Settings, rule: Rule, study: str) -> pl.DataFrame:
    """The rows of the rule's view for this study (when the view has a study column) that
    match its `where`: one condition on the view's columns (`one_condition`), applied to the
    study's rows in a subquery, so no `where` can reach another study's rows."""
    import duckdb

    from judgelab.views_cli import one_line, quoted
    from tasks import export, warehouse

    name = rule_name(rule)
    try:
        select = export.select_view(rule.view)
    except FileNotFoundError as exc:
        raise refused(name, str(exc)) from None
    columns = warehouse.query(settings, f"{select} limit 0").columns
    inner, params = (f"{select} where study = ?", [study]) if "study" in columns else (select, [])

    def query(where: str) -> str:
        return f"select * from ({inner}) as {quoted(rule.view)} where (\n{where}\n)"

    sql = f"select * from ({inner}) as {quoted(rule.view)}"
    if rule.where:
        try:
            one_condition(rule.where, query)
        except ValueError as exc:
            raise refused(name, f"where: {exc}") from None
        sql = query(rule.where)
    try:
        return warehouse.query(settings, sql, params)
    except duckdb.Error as exc:
        raise refused(name, f"where: {one_line(exc)}") from None


def run_gate(settings: Settings, study_name: str, rules: list[Rule]) -> list[RuleResult]:
    """Every rule over the warehouse as it stands (no calls); raises GateError on a rule that
    cannot be evaluated, so a broken rule is never reported as a pass or a fail."""
    return [evaluate(rule, read_rows(settings, rule, study_name), study_name) for rule in rules]


def load_rules(path: str | Path) -> list[Rule]:
    """The `[[rules]]` tables of a rules file; errors name the file, the line and the key."""
    path = Path(path)
    try:
        text = path.read_text()
        raw = tomllib.loads(text)
    except FileNotFoundError:
        raise GateError(f"rules file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise GateError(f"{path}: not valid TOML: {exc}") from None
    for key in raw:
        if key != "rules":
            lines = text.splitlines()
            line = next(
                (
                    n
                    for n, ln in enumerate(lines, 1)
                    if re.match(rf"\s*\[*\s*{re.escape(key)}\b", ln)
                ),
                None,
            )
            raise GateError(
                f"{path}: {f'line {line}, ' if line else ''}[{key}]: unknown table; "
                f"{suggest(key, ['rules'])}a rules file has only [[rules]] tables"
            )
    tables = raw.get("rules", [])
    if isinstance(tables, dict):
        raise GateError(f"{path}: [rules] is one table; write [[rules]], one per rule")
    if not isinstance(tables, list) or not tables:
        raise GateError(f"{path}: no [[rules]] table; {HOW_TO_ADD}")
    rules, problems = [], []
    for i, table in enumerate(tables):
        try:
            rules.append(Rule.model_validate(table))
        except ValidationError as exc:
            # an unknown key first: a missing field next to it is usually the same typo
            for e in sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden"):
                loc = ("rules", i, *e["loc"])
                line = locate(text, loc)
                msg = e["msg"].removeprefix("Value error, ")
                if e["type"] == "extra_forbidden":
                    key = str(e["loc"][-1])
                    known = list(Rule.model_fields)
                    msg = f"unknown key; {suggest(key, known)}known keys: {', '.join(known)}"
                where = f"line {line}, " if line else ""
                problems.append(f"{where}{'.'.join(map(str, loc))}: {msg}")
    if problems:
        raise GateError(f"{path}: {'; '.join(problems)}")
    return rules


def junit_xml(results: list[RuleResult], suite: str) -> str:
    """A JUnit XML report: one testcase per rule, a <failure> for each failed one."""
    tests, failures = str(len(results)), str(sum(not r.passed for r in results))
    counts = {"tests": tests, "failures": failures, "errors": "0"}
    root = ET.Element("testsuites", name=suite, **counts)
    testsuite = ET.SubElement(root, "testsuite", name=suite, skipped="0", **counts)
    for r in results:
        case = ET.SubElement(testsuite, "testcase", name=r.name, classname=r.study or suite)
        if r.passed:
            ET.SubElement(case, "system-out").text = r.line
        else:
            ET.SubElement(case, "failure", message=r.detail, type="gate").text = r.line
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"

"""The upgrade check: ``postinit upgrade`` against two real vLLMs, on every golden input both answered.

``python -m tests.golden.upgrade_check --from A --to B [PATTERN] [-v]`` (without ``--from``/``--to``: every
pair of :data:`PAIRS`) runs ``postinit.upgrade(..., from_version=A, to_version=B)`` on each golden input that
real vLLM ``A`` and real vLLM ``B`` both answered, and holds its report to the two real answers:

* **the outcome on each side**: accepted, or refused with vLLM's exception type, message (numbers
  normalised, :func:`tests.golden.parity.norm_log`) and stage — ``upgrade``'s ``before_outcome`` /
  ``after_outcome``, a parser's refusal (``Refused``) included;
* **the fields**, when both accept the input: over the field set the golden comparator compares
  (:func:`tests.golden.parity.oracle_fields`: the same keys, aliases and normalisation), the fields ``upgrade``
  reports as changing (``changes``) are exactly those whose real values differ, and the fields it lists as one
  version's only (``only_before`` / ``only_after``) are exactly the keys only that version's dump has. The
  fields of an optional sub-config missing on either side are not compared (the sub-config itself is);
  ``upgrade`` reports nothing for fields outside the compared set that the check could hold it to, so those
  are counted, not judged. When a version refuses the input, ``upgrade`` compares no field;
* **the log lines**: what ``upgrade`` lists as logged only by one version (``logs_removed`` / ``logs_added``,
  ``level: text``, the parser's records included) is exactly what only that real vLLM logged (the records the
  comparator accepts postinit not producing, ``KNOWN_MISSING_LOGS``, left out), refused inputs included.

Which inputs: seed and 0.11.1 share ``cases/`` (every case, config mode included); 0.34.0's ``s-<name>`` is
the seed corpus' ``<name>`` command line (``gen_cases_0340.py``). Excluded, and counted with the reason: a
case that is a documented divergence of either version (``divergences*.json``: postinit does not match that
real answer, so the upgrade cannot), and a pair whose inputs differ (argv, usage or env; a platform spec the
two oracles simulated with other device names is checked when postinit's answer as ``B`` is the same on either).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import postinit
from postinit._upgrade import FIELD_ALIASES, Outcome, Upgrade, compare_versions, outcome
from postinit.rules import versions
from tests.golden.corpus import GoldenCase, load_cases
from tests.golden.parity import (
    KNOWN_MISSING_LOGS,
    VARIANTS,
    VLLM_CONFIG_FIELDS,
    _norm,
    _norm_known,
    _space,
    divergences,
    inputs_of,
    norm_log,
    oracle_fields,
    platform_of,
    sub_configs,
    vllm_logs,
)

PAIRS: tuple[tuple[str, str], ...] = (("d7fb10c57", "0.11.1"), ("0.11.1", "0.34.0"), ("d7fb10c57", "0.34.0"))
"""The version pairs checked (from, to)."""
MINIMUM: Mapping[tuple[str, str], int] = {("d7fb10c57", "0.11.1"): 800, ("0.11.1", "0.34.0"): 300,
                                          ("d7fb10c57", "0.34.0"): 300}
"""Lines each pair must check (issue 29: >= 300 command lines across the 0.34.0 gap)."""


INPUT_DIFFERENCES: Mapping[str, str] = {
    "argv": "another command line",
    "usage": "another usage context",
    "platform": "the two oracles simulate the platform spec differently (another device name)",
    "env": "0.34.0's corpus adds VLLM_CPU_KVCACHE_SPACE=4 to a CPU case without it",
}
"""Why a line's two answers are not to the same input (the line is excluded)."""


def corpus_name(version: str, name: str) -> str:
    """A seed-corpus case's name in ``version``'s corpus (0.34.0 answers it as ``s-<name>``)."""
    return f"s-{name}" if version == "0.34.0" else name


@dataclass
class Line:
    """One golden input checked on a version pair."""

    name: str
    """The seed corpus' name of the input."""
    argv: bool
    excluded: str | None = None
    """Why the line is not checked (None: checked)."""
    problems: list[str] = field(default_factory=list)
    """Where ``upgrade``'s report and the two real answers disagree (empty: it agrees)."""
    real_changed: int = 0
    """Fields whose real values differ (both accepted)."""
    platform_immaterial: bool = False
    """The oracles simulated the platform with other device names, which changes nothing in postinit's answer."""
    real_logs: int = 0
    """Log lines only one version's real vLLM writes."""
    real_only: int = 0
    """Fields only one version's real dump has (both accepted)."""
    outcome_changed: bool = False
    """Accepted by one and refused by the other, or refused by both with other errors."""
    outside: int = 0
    """Fields ``upgrade`` reports that lie outside the compared field set (not judged)."""
    unjudged: list[str] = field(default_factory=list)
    """Keys one real dump lacks that postinit's model of that version has as fields (not judged)."""

    @property
    def agrees(self) -> bool:
        return self.excluded is None and not self.problems


def common_lines(va: str, vb: str, pattern: str = "*.json") -> list[tuple[str, GoldenCase, GoldenCase]]:
    """Every seed-corpus input that real ``va`` and real ``vb`` both answered: (name, case in va, case in vb)."""
    def corpus(version: str) -> dict[str, GoldenCase]:
        return {gc.name: gc for gc in load_cases(VARIANTS[version], missing_ok=True)}

    a, b = corpus(va), corpus(vb)
    seed = sorted(gc.name for gc in load_cases("seed", pattern=pattern, missing_ok=True))
    return [(n, a[corpus_name(va, n)], b[corpus_name(vb, n)]) for n in seed
            if corpus_name(va, n) in a and corpus_name(vb, n) in b]


def _inputs(gc: GoldenCase) -> tuple[Any, ...]:
    c = gc.case
    return (c.get("argv"), c.get("usage_context", "OPENAI_API_SERVER") if "argv" in c else None,
            platform_of(gc), dict(c.get("env") or {}))


def real_log_lines(gc: GoldenCase) -> set[str]:
    """vLLM's log records for an input as ``upgrade`` lists them (``level: text``, one line each, surrounding
    whitespace trimmed as the comparator does), the records the comparator accepts postinit not producing
    (``KNOWN_MISSING_LOGS``) left out."""
    out = set()
    for level, msg in vllm_logs(gc):
        if _norm_known(msg) in KNOWN_MISSING_LOGS:
            continue
        out.update(f"{level}: {line.strip()}" for line in msg.splitlines() if line.strip())
    return out


def real_outcome(gc: GoldenCase) -> Outcome:
    if gc.ok:
        return Outcome(True)
    err = gc.expected.get("error") or {}
    return Outcome(False, err.get("type"), err.get("message"), gc.expected.get("stage"))


def real_fields(gc: GoldenCase, version: str) -> tuple[dict[str, Any], set[str]]:
    """The compared fields of a real answer by postinit's name (:attr:`OracleField.name`), and which of them are
    optional objects (presence: the value is whether it is there)."""
    post = gc.expected.get("post") or {}
    space = _space()
    spec = post.get("speculative_config")
    ngram = isinstance(spec, dict) and spec.get("method") == "ngram"
    out: dict[str, Any] = {}
    presence: set[str] = set()
    for sub in sub_configs(version):
        if sub not in post:
            continue
        value = post[sub]
        if sub in space and space.info[sub].presence:
            presence.add(sub)
            out[sub] = value is not None
        if value is None:
            continue
        for f in oracle_fields(version, sub, value, ngram):
            if f.kind == "leaf":
                out[f.name] = f.value
            elif f.kind == "presence":
                presence.add(f.name)
                out[f.name] = f.value is not None
    for key, exp in (post.get("vllm_config") or {}).items():
        path = VLLM_CONFIG_FIELDS.get(f"vllm_config.{key}")
        if path is None:
            continue
        if path == "quant_config.class_name":  # an optional object in postinit: there or not, then its class
            presence.add("quant_config")
            out["quant_config"] = exp is not None
            if exp is None:
                continue
        out[path] = _norm(path, exp)
    return out, presence


def _models(version: str, path: str) -> bool:
    """Whether postinit's model of ``version`` has the field ``path`` (a field, or a property reading one)."""
    return path not in versions.get(version).absent_paths or path in FIELD_ALIASES.get(version, {})


def _same(a: Any, b: Any) -> bool:
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


def _outcome_problem(side: str, ours: Outcome, real: Outcome) -> str | None:
    if ours.ok != real.ok:
        return f"{side}: upgrade says {ours}, vLLM {'accepts it' if real.ok else real}"
    if real.ok:
        return None
    if (ours.error, ours.stage) != (real.error, real.stage) or norm_log(ours.message or "") != norm_log(
            real.message or ""):
        return f"{side}: upgrade says {ours}; vLLM {real}"
    return None


def check_line(name: str, a: GoldenCase, b: GoldenCase, va: str, vb: str,
               known: tuple[Mapping[str, str], Mapping[str, str]]) -> Line:
    """``postinit upgrade --from va --to vb`` on one input against the two real answers."""
    line = Line(name, a.argv_mode)
    reasons = [f"documented divergence of {v}" for v, gc, k in ((va, a, known[0]), (vb, b, known[1]))
               if gc.name in k]
    if reasons:
        line.excluded = "; ".join(reasons)
        return line
    differ = [what for what, x, y in zip(("argv", "usage", "platform", "env"), _inputs(a), _inputs(b), strict=True)
              if x != y]
    if differ and differ != ["platform"]:
        line.excluded = "different inputs: " + ", ".join(INPUT_DIFFERENCES[d] for d in differ)
        return line
    config, kw = inputs_of(a, version=va)
    u: Upgrade = postinit.upgrade(config, from_version=va, to_version=vb, **kw)
    if differ:
        # the two oracles simulated the same platform spec with other device names: the line is checked when
        # postinit's answer as vb is the same on either platform (values, outcome, logs), so the real vb answer
        # (held to vb's own platform by the comparator) is the answer to the upgrade's input too
        config_b, kw_b = inputs_of(b, version=vb)
        own = postinit.upgrade(config_b, from_version=vb, to_version=vb, **kw_b).after
        same = compare_versions(u.after, own)
        if not same.same or outcome(u.after) != outcome(own):
            line.excluded = "different inputs: " + INPUT_DIFFERENCES["platform"]
            return line
        line.platform_immaterial = True
    ra, rb = real_outcome(a), real_outcome(b)
    for side, ours, real in ((va, u.before_outcome, ra), (vb, u.after_outcome, rb)):
        problem = _outcome_problem(side, ours, real)
        if problem:
            line.problems.append(problem)
    line.outcome_changed = (ra.ok, ra.error, ra.stage) != (rb.ok, rb.error, rb.stage)
    la, lb = real_log_lines(a), real_log_lines(b)
    for what, real, ours in (("logged only by " + va, la - lb, {t.strip() for t in u.logs_removed}),
                             ("logged only by " + vb, lb - la, {t.strip() for t in u.logs_added})):
        line.real_logs += len(real)
        for text in sorted(real - ours):
            line.problems.append(f"{what} in real vLLM, not in upgrade's report: {text}")
        for text in sorted(ours - real):
            line.problems.append(f"{what} in upgrade's report, not in real vLLM: {text}")
    if not (ra.ok and rb.ok):
        if u.changes or u.only_before or u.only_after:
            line.problems.append(f"a version refuses the input, yet upgrade compares fields "
                                 f"({len(u.changes)} changes)")
        return line
    fa, pa = real_fields(a, va)
    fb, pb = real_fields(b, vb)
    gone = {p for p in pa | pb if not (fa.get(p) and fb.get(p))}
    reported = {c.path for c in u.changes}
    only_a, only_b = {p for p, _ in u.only_before}, {p for p, _ in u.only_after}
    domain = set()
    for path in sorted(fa.keys() | fb.keys()):
        if any(path.startswith(g + ".") for g in gone):
            continue
        domain.add(path)
        if path in fa and path in fb:
            changed = not _same(fa[path], fb[path])
            line.real_changed += changed
            if changed and path not in reported:
                line.problems.append(f"{path}: {fa[path]!r} -> {fb[path]!r} in real vLLM, not reported")
            elif not changed and path in reported:
                c = next(c for c in u.changes if c.path == path)
                line.problems.append(f"{path}: reported {c.before.value!r} -> {c.after.value!r}, "
                                     f"real vLLM has {fa[path]!r} on both")
            if path in only_a or path in only_b:
                line.problems.append(f"{path}: listed as one version's only, both real dumps have it")
        else:
            mine, where, lacking = (only_a, va, vb) if path in fa else (only_b, vb, va)
            if _models(lacking, path):
                # vLLM `lacking` dumps no such key (an InitVar, an attribute set only sometimes) while postinit's
                # model of it has the field: no real value to hold upgrade's to there
                line.unjudged.append(path)
                continue
            line.real_only += 1
            if path not in mine:
                line.problems.append(f"{path}: only vLLM {where}'s dump has it, upgrade does not list it so")
    line.outside = len((reported | only_a | only_b) - domain)
    return line


@dataclass
class PairReport:
    from_version: str
    to_version: str
    lines: list[Line]

    @property
    def checked(self) -> list[Line]:
        return [x for x in self.lines if x.excluded is None]

    @property
    def agreeing(self) -> int:
        return sum(x.agrees for x in self.lines)

    @property
    def minimum(self) -> int:
        return MINIMUM.get((self.from_version, self.to_version), 0)

    @property
    def ok(self) -> bool:
        return self.agreeing == len(self.checked) and len(self.checked) >= self.minimum

    def summary(self) -> list[str]:
        checked = self.checked
        argv = sum(x.argv for x in checked)
        excluded = Counter(x.excluded for x in self.lines if x.excluded is not None)
        out = [f"upgrade {self.from_version} -> {self.to_version}: {len(self.lines)} common golden inputs, "
               f"{len(checked)} checked ({argv} command lines, {len(checked) - argv} config mode), "
               f"{self.agreeing} agree with both real vLLMs, {len(checked) - self.agreeing} disagree; "
               f"{len(self.lines) - len(checked)} excluded"
               + (f" (minimum {self.minimum} checked)" if self.minimum else "")]
        for reason, n in sorted(excluded.items(), key=lambda kv: (-kv[1], kv[0] or "")):
            out.append(f"  excluded {n:4d}: {reason}")
        immaterial = sum(x.platform_immaterial for x in checked)
        if immaterial:
            out.append(f"  checked  {immaterial:4d}: the oracles simulated the platform with another device name, "
                       "which changes nothing in postinit's answer")
        out.append(f"  on the checked lines real vLLM changes {sum(x.real_changed for x in checked)} field values "
                   f"on {sum(bool(x.real_changed) for x in checked)} lines, has "
                   f"{sum(x.real_only for x in checked)} fields in one version only, logs "
                   f"{sum(x.real_logs for x in checked)} lines only one version logs, and changes the outcome "
                   f"(accepted / refused / which error) on {sum(x.outcome_changed for x in checked)} lines; "
                   f"upgrade reports {sum(x.outside for x in checked)} changes outside the compared field set "
                   "(not judged)")
        unjudged = Counter(p for x in checked for p in dict.fromkeys(x.unjudged))
        if unjudged:
            out.append("  not judged: keys one real dump lacks while postinit models the field in both versions "
                       "(no real value on that side): " + ", ".join(f"{p} ({n} lines)" for p, n in sorted(unjudged.items())))
        return out


def check_pair(va: str, vb: str, pattern: str = "*.json") -> PairReport:
    known = (divergences(va), divergences(vb))
    return PairReport(va, vb, [check_line(n, a, b, va, vb, known) for n, a, b in common_lines(va, vb, pattern)])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden.upgrade_check", description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="from_version", help="the version upgraded from (default: every pair)")
    parser.add_argument("--to", dest="to_version")
    parser.add_argument("pattern", nargs="?", default="*.json", help="seed-corpus case names (glob)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the excluded lines too")
    ns = parser.parse_args(argv)
    if (ns.from_version is None) != (ns.to_version is None):
        parser.error("give both --from and --to, or neither")
    pairs = PAIRS if ns.from_version is None else (
        (versions.version_name(ns.from_version, "--from"), versions.version_name(ns.to_version, "--to")),)
    status = 0
    for va, vb in pairs:
        report = check_pair(va, vb, ns.pattern)
        for x in report.lines:
            if x.excluded is None and x.problems:
                print(f"--- {x.name} ({va} -> {vb})")
                for p in x.problems[:12]:
                    print(f"    {p[:220]}")
            elif x.excluded is not None and ns.verbose:
                print(f"    excluded {x.name}: {x.excluded}")
        print("\n".join(report.summary()))
        status |= 0 if report.ok or (ns.pattern != "*.json" and report.agreeing == len(report.checked)) else 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

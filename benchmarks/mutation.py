"""Mutation testing of p2php's trust core: do the tests notice when a check is broken?

A small driver of our own (standard library only: ``ast``, ``subprocess``).  For each
target module it enumerates mutants -- one small change each -- applies one at a time
to a *temporary copy* of the tree, runs the tests mapped to that module and records
whether they failed (``killed``), passed (``survived``) or hung (``timeout``).

    python benchmarks/mutation.py --limit 15                       # every module, 15 mutants each
    python benchmarks/mutation.py --module p2php/session/audit.py  # one module, every mutant
    python benchmarks/mutation.py --limit 15 --json > out.json
    python benchmarks/mutation.py --list --module p2php/canonical.py   # the mutants, without running
    python benchmarks/mutation.py --rescore out.json               # re-apply the exclusion file to a saved run
    python benchmarks/mutation.py --only p2php/session/decks.py:239:20:continue->break   # one mutant
    python benchmarks/mutation.py --module p2php/net/libp2p_host.py --lines 133-167 \
        --tests tests/test_libp2p_abuse.py::test_hole_punching_reads_each_part_of_an_address_at_its_exact_bounds
                                    # some lines' mutants, against one test first (survivors: again without --tests)

Mutation operators: comparison swaps (``<``/``<=``, ``>``/``>=``, ``==``/``!=``,
``in``/``not in``, ``is``/``is not``), ``and``/``or``, removing a ``not``,
``True``/``False``, small integers ``k`` -> ``k+1`` and ``k-1``, ``+``/``-``,
a ``raise`` replaced by ``pass``, a ``return`` inside an ``if`` (a guard) replaced
by ``pass``, a call statement (``h.update(...)``, ``self._check()``) replaced by
``pass``, ``continue``/``break``, and the body of an ``if`` replaced by ``pass``.
Nothing inside f-strings (message text), docstrings or ``if TYPE_CHECKING:`` blocks
is mutated.

The working tree is never modified (others may be editing it).  The package and
its tests are exported from git (``--rev``, default ``HEAD``), plus the working
tree's *untracked* test files, so new tests count before they are committed;
``--worktree`` copies ``p2php/`` and ``tests/`` from the working tree instead.
Each worker gets its own copy in a temporary directory, which is the child
``pytest``'s working directory and first on its ``PYTHONPATH``.  Bytecode
caching is off in the children, so a mutant can never be shadowed by a stale
``.pyc``.  Before any mutant, each module's tests run once on the unmutated (but
``ast``-round-tripped) copy: a module whose baseline fails is reported, not scored.

Score = (killed + timeout) / (mutants - equivalent).  A mutant listed in the
exclusion file (``--exclude-file``, default ``benchmarks/mutation_equivalent.txt``:
one mutant id per line, then ``#`` and the reason) is run and reported, but counted
as *equivalent* rather than survived.  Ids look like
``p2php/canonical.py:57:8:Add->Sub`` (file:line:column:mutation of the source at
``--rev``; ``--list`` prints them).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SESSION_TESTS = [
    "tests/test_vectors.py",
    "tests/test_session_cheats.py",
    "tests/test_trust_variants.py",
    "tests/test_trust_corners.py",
    "tests/test_attribution_attacks.py",
    "tests/test_session_bad_input.py",
    "tests/test_privacy.py",
    "tests/test_spectator.py",
    "tests/test_reshuffle.py",
    "tests/test_memory_network.py",
]

#: Each target module and the test files relevant to it (files that do not exist are skipped).
TARGETS: dict[str, list[str]] = {
    "p2php/session/audit.py": [
        *SESSION_TESTS, "tests/test_session_verified.py", "tests/test_multi_answer_attribution.py",
        "tests/test_private_lie_attribution.py", "tests/test_witness_verify.py",
    ],
    "p2php/session/decks.py": SESSION_TESTS,
    "p2php/session/witness.py": [
        "tests/test_multi_answer_attribution.py", "tests/test_private_lie_attribution.py",
        "tests/test_session_verified.py", "tests/test_trust_variants.py", "tests/test_verify_hardening.py",
        "tests/test_witness_verify.py",
    ],
    "p2php/session/lockstep.py": [
        *SESSION_TESTS, "tests/test_resume.py", "tests/test_compact_wire.py", "tests/test_compact_attacks.py",
        "tests/test_multi_answer_attribution.py", "tests/test_attacks.py", "tests/test_private_lie_attribution.py",
        "tests/test_witness_verify.py",
    ],
    "p2php/session/ending.py": [
        *SESSION_TESTS, "tests/test_resume.py", "tests/test_session_verified.py", "tests/test_witness_verify.py",
        "tests/test_multi_answer_attribution.py", "tests/test_private_lie_attribution.py",
    ],
    "p2php/session/messages.py": SESSION_TESTS,
    "p2php/session/handshake.py": [*SESSION_TESTS, "tests/test_net_mesh.py"],
    "p2php/session/records.py": SESSION_TESTS,
    "p2php/session/pass_digests.py": [
        "tests/test_pass_digests.py", "tests/test_pass_digests_net.py", *SESSION_TESTS, "tests/test_resume.py",
    ],
    "p2php/crypto/deck.py": [
        "tests/test_vectors.py", "tests/test_crypto_deck.py", "tests/test_privacy.py",
        "tests/test_session_cheats.py", "tests/test_trust_variants.py",
    ],
    "p2php/crypto/beacon.py": [
        "tests/test_vectors.py", "tests/test_crypto_beacon.py", "tests/test_session_cheats.py",
        "tests/test_trust_variants.py",
    ],
    "p2php/crypto/group.py": [
        "tests/test_vectors.py", "tests/test_crypto_group.py", "tests/test_crypto_deck.py",
        "tests/test_session_cheats.py", "tests/test_trust_variants.py",
    ],
    "p2php/net/framing.py": ["tests/test_net_framing.py", "tests/test_trust_corners.py"],
    "p2php/session/verified.py": [
        "tests/test_session_verified.py", "tests/test_session_verified_messages.py", *SESSION_TESTS,
    ],
    "p2php/net/deflate.py": ["tests/test_net_deflate.py", "tests/test_net_framing.py"],
    "p2php/session/chat.py": ["tests/test_table_life.py", "tests/test_spectator.py"],
    "p2php/session/runner.py": [
        "tests/test_faults.py", "tests/test_spectator.py", "tests/test_session_network.py", "tests/test_attacks.py",
        "tests/test_resume.py", "tests/test_api.py", "tests/test_compact_wire.py", "tests/test_resume_hardening.py",
    ],
    "p2php/session/watchers.py": ["tests/test_watchers.py"],
    "p2php/net/mesh.py": [  # not test_faults.py (3 minutes a survivor); rejoins are served in test_net_mesh.py too
        "tests/test_net_mesh.py", "tests/test_vectors.py", "tests/test_net_deflate.py", "tests/test_spectator.py",
        "tests/test_session_network.py", "tests/test_attacks.py", "tests/test_resume.py",
        "tests/test_resume_hardening.py",
    ],
    "p2php/net/linkauth.py": [
        "tests/test_vectors.py", "tests/test_net_mesh.py", "tests/test_net_deflate.py", "tests/test_attacks.py",
        "tests/test_spectator.py",
    ],
    "p2php/session/compact.py": [
        "tests/test_compact_wire.py", "tests/test_compact_attacks.py", "tests/test_attacks.py",
    ],
    "p2php/session/spectator.py": [
        "tests/test_spectator.py", "tests/test_text_safety.py", "tests/test_verify_hardening.py", "tests/test_api.py",
    ],
    "p2php/net/invite.py": ["tests/test_invite.py", "tests/test_online.py"],
    "p2php/net/libp2p_host.py": ["tests/test_libp2p.py", "tests/test_libp2p_abuse.py"],
    # not test_online_links.py (75 s alone) nor test_online_nat.py (network namespaces, root only)
    "p2php/net/libp2p.py": ["tests/test_libp2p.py", "tests/test_libp2p_abuse.py", "tests/test_online.py"],
    "p2php/net/online.py": ["tests/test_online.py", "tests/test_libp2p.py"],
    "p2php/piped_output.py": ["tests/test_piped_output.py"],
    "p2php/net/admission.py": ["tests/test_net_admission.py", "tests/test_net_mesh.py", "tests/test_lobby.py"],
    "p2php/canonical.py": [
        "tests/test_vectors.py", "tests/test_crypto_beacon.py", "tests/test_crypto_deck.py",
        "tests/test_crypto_identity_channel.py", "tests/test_session_cheats.py", "tests/test_trust_variants.py",
        "tests/test_trust_corners.py",
    ],
    "p2php/session/resume.py": [  # the unit tests first (2 s, no network)
        "tests/test_resume_log_unit.py", "tests/test_resume_stale_log.py", "tests/test_resume.py",
        "tests/test_resume_hardening.py", "tests/test_resume_cli.py", "tests/test_resume_own_abort.py",
    ],
    "p2php/session/transcript.py": [
        "tests/test_verify_hardening.py", "tests/test_transcript_save.py", "tests/test_attacks.py",
        "tests/test_session_network.py", "tests/test_memory_network.py", "tests/test_reshuffle.py",
        "tests/test_resume_hardening.py",
    ],
    "p2php/session/netplay.py": [  # p2php host / join / discover: real processes on loopback, and in-process tables
        "tests/test_netplay.py", "tests/test_text_safety.py", "tests/test_discovery.py", "tests/test_crypto_mode.py",
        "tests/test_join_discover.py", "tests/test_lobby_cli.py", "tests/test_table_life.py",
    ],
    "p2php/engine/remask.py": [
        "tests/test_remask_kit.py", "tests/test_hpsha_hand_remask.py", "tests/test_hogwarts_hand_remask.py",
    ],
    "p2php/games/hpsha/remask.py": ["tests/test_hpsha_hand_remask.py"],
    "p2php/games/hogwarts/remask.py": ["tests/test_hogwarts_hand_remask.py"],
    "p2php/api.py": ["tests/test_api_withdrawn_turn.py", "tests/test_api.py"],
    "p2php/bridge/session.py": [
        "tests/test_bridge_verify.py", "tests/test_bridge.py", "tests/test_bridge_save_slow_disk.py",
    ],
    "p2php/bridge/stdio.py": ["tests/test_bridge.py", "tests/test_bridge_save_slow_disk.py"],
    "p2php/terminal.py": ["tests/test_terminal.py"],
    "p2php/engine/tasks.py": ["tests/test_engine_tasks.py", "tests/test_stray_keys.py"],
    "p2php/engine/taskgame.py": ["tests/test_stray_keys.py", "tests/test_engine_tasks.py"],
    "p2php/engine/local.py": ["tests/test_engine_tasks.py", "tests/test_stray_keys.py", "tests/test_fast_paths.py"],
    "p2php/session/durable.py": ["tests/test_resume_hardening.py", "tests/test_loop_disk.py"],
}

PYTEST_ARGS = ["-x", "-q", "-p", "no:cacheprovider"]
SMALL_INT = 256  # integer constants 0..SMALL_INT are mutated

_CMP_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}


# ----------------------------------------------------------------------------- mutants


@dataclass(frozen=True)
class Mutant:
    """One change to one module: ``index`` is the site's position in a fixed ast walk."""

    module: str
    index: int
    line: int
    col: int
    op: str  # short, stable: "Lt->LtE", "raise->pass", "const 1->2" ...
    text: str  # the original source line, stripped

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.op.replace(' ', '_')}"


@dataclass
class Site:
    node: ast.AST
    op: str
    apply: Callable[[], None]


def _skip_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes never mutated: f-strings (message text), docstrings, TYPE_CHECKING blocks."""
    skip: set[int] = set()

    def mark(node: ast.AST) -> None:
        for sub in ast.walk(node):
            skip.add(id(sub))

    for node in ast.walk(tree):
        type_checking = isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        if isinstance(node, ast.JoinedStr) or type_checking:
            mark(node)
        elif isinstance(node, (ast.AnnAssign, ast.arg)) and node.annotation is not None:
            mark(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            mark(node.returns)
    return skip


def _sites(tree: ast.Module) -> Iterator[Site]:
    """Every mutation site of ``tree``, in a fixed order; ``apply`` edits the tree in place."""
    skip = _skip_nodes(tree)
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node

    def replace_stmt(stmt: ast.stmt, new: list[ast.stmt]) -> Callable[[], None]:
        def apply() -> None:
            parent = parents[id(stmt)]
            for fieldname in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(parent, fieldname, None)
                if isinstance(block, list) and any(s is stmt for s in block):
                    i = next(i for i, s in enumerate(block) if s is stmt)
                    block[i:i + 1] = new
                    return
            raise AssertionError("statement not found in its parent")
        return apply

    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                new = _CMP_SWAP.get(type(op))
                if new is not None:
                    def apply(node: ast.Compare = node, i: int = i, new: type = new) -> None:
                        node.ops[i] = new()
                    yield Site(node, f"{type(op).__name__}->{new.__name__}", apply)
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            def apply_b(node: ast.BoolOp = node, other: type = other) -> None:
                node.op = other()
            yield Site(node, f"{type(node.op).__name__}->{other.__name__}", apply_b)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            def apply_n(node: ast.UnaryOp = node) -> None:
                parent = parents[id(node)]
                for fieldname, value in ast.iter_fields(parent):
                    if value is node:
                        setattr(parent, fieldname, node.operand)
                        return
                    if isinstance(value, list):
                        for i, v in enumerate(value):
                            if v is node:
                                value[i] = node.operand
                                return
                raise AssertionError("not-expression not found in its parent")
            yield Site(node, "not->", apply_n)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            def apply_c(node: ast.Constant = node) -> None:
                node.value = not node.value
            yield Site(node, f"const {node.value}->{not node.value}", apply_c)
        elif isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= SMALL_INT:
            for delta in (1, -1):
                if node.value + delta < 0:
                    continue
                def apply_i(node: ast.Constant = node, delta: int = delta) -> None:
                    node.value = node.value + delta
                yield Site(node, f"const {node.value}->{node.value + delta}", apply_i)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            other = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
            def apply_o(node: ast.BinOp = node, other: type = other) -> None:
                node.op = other()
            yield Site(node, f"{type(node.op).__name__}->{other.__name__}", apply_o)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
            other = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
            def apply_a(node: ast.AugAssign = node, other: type = other) -> None:
                node.op = other()
            yield Site(node, f"{type(node.op).__name__}=->{other.__name__}=", apply_a)
        elif isinstance(node, ast.Raise):
            yield Site(node, "raise->pass", replace_stmt(node, [ast.Pass()]))
        elif isinstance(node, ast.Return) and isinstance(parents.get(id(node)), ast.If):
            yield Site(node, "return->pass", replace_stmt(node, [ast.Pass()]))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield Site(node, "call->pass", replace_stmt(node, [ast.Pass()]))
        elif isinstance(node, ast.Continue):
            yield Site(node, "continue->break", replace_stmt(node, [ast.Break()]))
        elif isinstance(node, ast.Break):
            yield Site(node, "break->continue", replace_stmt(node, [ast.Continue()]))
        if isinstance(node, ast.If):
            def apply_if(node: ast.If = node) -> None:
                node.body = [ast.Pass()]
            yield Site(node, "if-body->pass", apply_if)


def enumerate_mutants(module: str, source: str) -> list[Mutant]:
    lines = source.splitlines()
    out = []
    for i, site in enumerate(_sites(ast.parse(source))):
        line = getattr(site.node, "lineno", 0)
        col = getattr(site.node, "col_offset", 0)
        out.append(Mutant(module, i, line, col, site.op, lines[line - 1].strip() if line else ""))
    return out


def mutated_source(source: str, index: int) -> str:
    tree = ast.parse(source)
    for i, site in enumerate(_sites(tree)):
        if i == index:
            site.apply()
            return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    raise IndexError(index)


def roundtrip_source(source: str) -> str:
    """The unmutated module as the mutants are written (``ast.unparse``), for the baseline."""
    return ast.unparse(ast.parse(source)) + "\n"


# ----------------------------------------------------------------------------- trees and runs


def make_tree(base: Path, rev: str | None) -> Path:
    """A private copy: ``p2php/``, ``tests/`` and ``pyproject.toml`` at ``rev`` plus the working
    tree's untracked test files (new tests count before they are committed); with ``rev=None``
    everything comes from the working tree."""
    tree = Path(tempfile.mkdtemp(prefix="p2php-mut-", dir=base))
    if rev is None:
        ignore = shutil.ignore_patterns("__pycache__", ".hypothesis")
        shutil.copytree(ROOT / "p2php", tree / "p2php", ignore=ignore)
        shutil.copytree(ROOT / "tests", tree / "tests", ignore=ignore)
        shutil.copytree(ROOT / "examples", tree / "examples", ignore=ignore)  # (tests load the example games)
        shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
        return tree
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "p2php", "tests", "examples",
                              "pyproject.toml"],
                             check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    new = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard", "tests"],
                         check=True, capture_output=True, text=True).stdout.split()
    for name in new:
        if "__pycache__" in name:
            continue
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tree / name)
    return tree


def read_source(rev: str | None, module: str) -> str:
    if rev is None:
        return (ROOT / module).read_text()
    out = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{module}"], check=True, capture_output=True)
    return out.stdout.decode()


def run_tests(tree: Path, tests: list[str], timeout: float) -> tuple[str, float]:
    """``("killed" | "survived" | "timeout", seconds)`` for one pytest run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *tests]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # our own child's process group only
        proc.wait()
        return "timeout", time.monotonic() - start
    elapsed = time.monotonic() - start
    return ("survived" if code == 0 else "killed"), elapsed


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed / survived / timeout
    seconds: float
    equivalent: str | None = None  # the reason, if listed in the exclusion file


def load_exclusions(path: Path | None) -> dict[str, str]:
    if path is None or not path.exists():
        return {}
    out = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        ident, _, reason = line.partition("#")
        out[ident.strip()] = reason.strip() or "(no reason given)"
    return out


# ----------------------------------------------------------------------------- the driver


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--module", action="append", help="a target module path (repeatable; default: all)")
    ap.add_argument("--limit", type=int, default=0, help="sample N mutants per module (fixed seed; 0: all)")
    ap.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per mutant (default: 3 x baseline + 10)")
    ap.add_argument("--rev", default="HEAD", help="git revision of p2php/ to mutate (default HEAD)")
    ap.add_argument("--worktree", action="store_true", help="mutate the working tree's p2php/ instead of --rev")
    ap.add_argument("--exclude-file", type=Path, default=ROOT / "benchmarks" / "mutation_equivalent.txt")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    ap.add_argument("--list", action="store_true", help="list the (sampled) mutants and exit")
    ap.add_argument("--only", action="append", metavar="ID",
                    help="run just this mutant id (repeatable; its module is implied); see --list")
    ap.add_argument("--lines", action="append", metavar="A-B",
                    help="only mutants on these source lines (repeatable; with --module)")
    ap.add_argument("--tests", action="append", metavar="TEST",
                    help="run these test files or node ids instead of the module's TARGETS (repeatable): a quick "
                         "first pass; run what survives it again without --tests before calling it a survivor")
    ap.add_argument("--rescore", type=Path, metavar="JSON",
                    help="re-apply the exclusion file to a saved --json report and print it (no test runs)")
    args = ap.parse_args(argv)
    if args.rescore is not None:
        report = rescore(json.loads(args.rescore.read_text()), load_exclusions(args.exclude_file))
        if args.json:
            json.dump(report, sys.stdout, indent=1)
            print()
        else:
            print_report(report)
        return 0

    # Resolve the revision once: others may commit while a long run goes on.
    rev = None if args.worktree else _commit(args.rev)
    only = set(args.only or ())
    modules = args.module or (sorted({i.split(":", 1)[0] for i in only}) if only else list(TARGETS))
    unknown = [m for m in modules if m not in TARGETS]
    if unknown:
        ap.error(f"unknown module(s) {unknown}; targets: {', '.join(TARGETS)}")
    excluded = load_exclusions(args.exclude_file)

    sources = {m: read_source(rev, m) for m in modules}
    plan: dict[str, list[Mutant]] = {}
    sites: dict[str, int] = {}
    for m in modules:
        every = enumerate_mutants(m, sources[m])
        sites[m] = len(every)
        if args.limit and len(every) > args.limit:
            rng = random.Random(f"{m}:{args.seed}")
            every = sorted(rng.sample(every, args.limit), key=lambda x: x.index)
        if only:
            every = [mu for mu in every if mu.id in only]
        if args.lines:
            spans = [tuple(int(x) for x in span.split("-", 1)) if "-" in span else (int(span), int(span))
                     for span in args.lines]
            every = [mu for mu in every if any(a <= mu.line <= b for a, b in spans)]
        plan[m] = every
    if args.list:
        for m in modules:
            for mu in plan[m]:
                print(f"{mu.id}    {mu.text}")
        return 0

    base = Path(tempfile.mkdtemp(prefix="p2php-mutation-"))
    log = sys.stderr
    try:
        trees = [make_tree(base, rev) for _ in range(max(1, args.jobs))]
        tests = {m: args.tests or [t for t in TARGETS[m] if (trees[0] / t).exists()] for m in modules}
        free: list[Path] = list(trees)
        lock = threading.Lock()

        def take() -> Path:
            with lock:
                return free.pop()

        def give(tree: Path) -> None:
            with lock:
                free.append(tree)

        def run_one(module: str, source: str, timeout: float) -> tuple[str, float]:
            tree = take()
            target = tree / module
            original = target.read_text()
            try:
                target.write_text(source)
                return run_tests(tree, tests[module], timeout)
            finally:
                target.write_text(original)
                give(tree)

        baselines: dict[str, tuple[str, float]] = {}
        with ThreadPoolExecutor(max_workers=len(trees)) as pool:
            futures = {m: pool.submit(run_one, m, roundtrip_source(sources[m]), 600.0) for m in modules}
            for m in modules:
                baselines[m] = futures[m].result()
                state = {"survived": "tests pass", "killed": "TESTS FAIL", "timeout": "TESTS HANG"}[baselines[m][0]]
                print(f"baseline {m}: {state} in {baselines[m][1]:.1f}s ({len(tests[m])} test files)", file=log)

        jobs = []
        for m in modules:
            if baselines[m][0] != "survived":
                print(f"SKIP {m}: its tests fail (or hang) without any mutation", file=log)
                continue
            timeout = args.timeout or 3 * baselines[m][1] + 10
            for mu in plan[m]:
                jobs.append((mu, timeout))

        results: list[Result] = []
        done = 0

        def work(mu: Mutant, timeout: float) -> Result:
            outcome, secs = run_one(mu.module, mutated_source(sources[mu.module], mu.index), timeout)
            return Result(mu, outcome, secs, excluded.get(mu.id) if outcome == "survived" else None)

        with ThreadPoolExecutor(max_workers=len(trees)) as pool:
            for res in pool.map(lambda j: work(*j), jobs):
                done += 1
                results.append(res)
                print(f"[{done}/{len(jobs)}] {res.outcome:8} {res.seconds:5.1f}s {res.mutant.id}", file=log)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    report = summarise(modules, sites, baselines, results, args, rev)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_report(report)
    return 0


def summarise(modules, sites, baselines, results, args, rev) -> dict:  # type: ignore[no-untyped-def]
    per: dict[str, dict] = {}
    total = {"mutants": 0, "killed": 0, "timeout": 0, "survived": 0, "equivalent": 0}
    for m in modules:
        rs = [r for r in results if r.mutant.module == m]
        row = {
            "baseline": baselines[m][0] == "survived",
            "baseline_seconds": round(baselines[m][1], 1),
            "sites": sites[m],
            "mutants": len(rs),
            "killed": sum(r.outcome == "killed" for r in rs),
            "timeout": sum(r.outcome == "timeout" for r in rs),
            "survived": sum(r.outcome == "survived" and r.equivalent is None for r in rs),
            "equivalent": sum(r.equivalent is not None for r in rs),
        }
        row["score"] = _score(row)
        per[m] = row
        for k in total:
            total[k] += row[k]
    total["score"] = _score(total)
    survivors = [
        {"id": r.mutant.id, "file": r.mutant.module, "line": r.mutant.line, "mutation": r.mutant.op,
         "source": r.mutant.text}
        for r in results if r.outcome == "survived" and r.equivalent is None
    ]
    equivalent = [{"id": r.mutant.id, "reason": r.equivalent} for r in results if r.equivalent is not None]
    return {
        "command": "python benchmarks/mutation.py " + " ".join(sys.argv[1:]),
        "rev": args.rev if rev else "working tree",
        "commit": _commit(rev),
        "limit": args.limit,
        "seed": args.seed,
        "modules": per,
        "total": total,
        "survivors": survivors,
        "equivalent": equivalent,
        "results": [{**asdict(r.mutant), "id": r.mutant.id, "outcome": r.outcome,
                     "seconds": round(r.seconds, 1)} for r in results],
    }


def rescore(report: dict, excluded: dict[str, str]) -> dict:
    """``report`` with its survivors re-split into survived / equivalent by ``excluded``."""
    for row in list(report["modules"].values()) + [report["total"]]:
        row["survived"] += row["equivalent"]
        row["equivalent"] = 0
    survivors, equivalent = [], []
    for r in report["results"]:
        if r["outcome"] != "survived":
            continue
        reason = excluded.get(r["id"])
        row = report["modules"][r["module"]]
        if reason is None:
            survivors.append({"id": r["id"], "file": r["module"], "line": r["line"], "mutation": r["op"],
                              "source": r["text"]})
            continue
        equivalent.append({"id": r["id"], "reason": reason})
        for target in (row, report["total"]):
            target["survived"] -= 1
            target["equivalent"] += 1
    for row in list(report["modules"].values()) + [report["total"]]:
        row["score"] = _score(row)
    report["survivors"], report["equivalent"] = survivors, equivalent
    return report


def _score(row: dict) -> float | None:
    scored = row["mutants"] - row["equivalent"]
    return round(100 * (row["killed"] + row["timeout"]) / scored, 1) if scored else None


def _commit(rev: str | None) -> str:
    if rev is None:
        return "working tree"
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def print_report(report: dict) -> None:
    sample = f"{report['limit']} sampled per module" if report["limit"] else "all mutants"
    print(f"mutation testing of {report['rev']} ({report['commit'][:12]}), {sample} (seed {report['seed']})")
    print()
    heads = ("sites", 5), ("mutants", 7), ("killed", 6), ("timeout", 7), ("survived", 8), ("equiv", 5), ("score", 6)
    print(f"{'module':32} " + " ".join(f"{h:>{w}}" for h, w in heads))
    rows = list(report["modules"].items()) + [("total", report["total"])]
    for name, row in rows:
        score = "-" if row["score"] is None else f"{row['score']:.1f}%"
        if name != "total" and not row["baseline"]:
            score = "baseline fails"
        cells = [row.get("sites", ""), row["mutants"], row["killed"], row["timeout"], row["survived"],
                 row["equivalent"], score]
        print(f"{name:32} " + " ".join(f"{c!s:>{w}}" for c, (_, w) in zip(cells, heads, strict=True)))
    if report["survivors"]:
        print()
        print("survivors (file:line  mutation  source):")
        for s in report["survivors"]:
            print(f"  {s['file']}:{s['line']}  {s['mutation']}  {s['source']}")
    if report["equivalent"]:
        print()
        print("excluded as equivalent:")
        for e in report["equivalent"]:
            print(f"  {e['id']}  # {e['reason']}")


if __name__ == "__main__":
    sys.exit(main())

"""`python3 -m bench.mutations`: the mutation audit. Would the suite notice if a load-bearing line broke?

Each entry of bench/mutations.toml names the capability it belongs to, one line (file, its exact
text without indentation), the sabotage to put in its place (same indentation), and the tests
that guard it. The audit
applies one sabotage at a time and runs those tests: the sabotage is *caught* when they fail,
*survived* when they pass. A run first checks that every named test passes on the tree as it
is (the baseline), else a failing test would count as a catch.

The working tree is never modified: each worker runs in its own temporary copy of the
repository (source, SQL, config, tests, bench), imported through a staging package that maps
`memgate.*` onto the copy the way pyproject's package-dir does, and the copies are removed at
the end, Ctrl-C included. Each worker is a fork server: it imports pytest and the heavy
third-party modules once, and forks a child per run that imports memgate from the copy as the
sabotage left it (their import is most of a run's start-up: 1.8 of 2.2 CPU seconds here). Each run has a time limit; a run past it
counts as caught and is reported as a timeout. The tests run with the project's interpreter
(.venv/bin/python when there is one, else this one).

    python3 -m bench.mutations                 # every entry, 2 workers
    python3 -m bench.mutations --only policy_required_roles --show
    python3 -m bench.mutations --capability retention   # one capability's entries
    python3 -m bench.mutations --list          # the entries, no runs
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import traceback
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST_FILE = ROOT / "bench" / "mutations.toml"
#: what a worker's copy holds (everything the named tests import or read)
COPIED = ("manager", "toolbox", "server", "sql", "config", "src", "tests", "bench", "docs", "docker")
COPIED_FILES = ("pyproject.toml", "Dockerfile", "README.md")
#: memgate's subpackages and the folders they come from (pyproject's package-dir)
PACKAGE_DIRS = {"server": "server", "manager": "manager", "toolbox": "toolbox", "sql": "sql", "config": "config"}
#: test runs in progress, ended at once on Ctrl-C (they run in their own session, so SIGINT misses them)
_RUNNING: set[subprocess.Popen] = set()
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "results", "*.db")


@dataclass(frozen=True)
class Mutation:
    id: str
    #: what the line is part of, as a user would name it ("retention", "step-up", "session slots")
    capability: str
    file: str
    line: str
    to: str
    tests: tuple[str, ...]
    why: str = ""


@dataclass
class Outcome:
    mutation: Mutation
    verdict: str  # caught, survived, timeout, broken (the line was not found once)
    seconds: float
    output: str = ""


def load(path: Path = LIST_FILE) -> list[Mutation]:
    """The entries of the list file, in order; a malformed entry raises ValueError naming it."""
    data = tomllib.loads(path.read_text())
    out, seen = [], set()
    for n, entry in enumerate(data.get("mutation", []), 1):
        missing = {"id", "capability", "file", "line", "to", "tests"} - set(entry)
        if missing:
            raise ValueError(f"entry {n} of {path.name} lacks {sorted(missing)}")
        if entry["id"] in seen:
            raise ValueError(f"entry {n} of {path.name}: the id {entry['id']!r} is used twice")
        seen.add(entry["id"])
        if "\n" in entry["line"] or "\n" in entry["to"] or entry["line"] != entry["line"].strip():
            raise ValueError(f"{entry['id']}: `line` is one line without its indentation, `to` one line")
        if entry["to"].strip() == entry["line"] or not entry["tests"]:
            raise ValueError(f"{entry['id']}: `to` must change the line and `tests` must name at least one test")
        if not str(entry["capability"]).strip():
            raise ValueError(f"{entry['id']}: `capability` names what the line is part of")
        out.append(
            Mutation(
                entry["id"],
                str(entry["capability"]).strip(),
                entry["file"],
                entry["line"],
                entry["to"],
                tuple(entry["tests"]),
                entry.get("why", ""),
            )
        )
    return out


def occurrences(text: str, line: str) -> list[int]:
    """The indexes of the lines of `text` that are `line` once indentation and trailing blanks are set aside."""
    return [i for i, have in enumerate(text.split("\n")) if have.strip() == line]


def mutated(text: str, m: Mutation) -> str:
    lines = text.split("\n")
    found = occurrences(text, m.line)
    if len(found) != 1:
        raise LookupError(f"{m.id}: the line occurs {len(found)} times in {m.file}, not once")
    i = found[0]
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    lines[i] = indent + m.to.strip()
    return "\n".join(lines)


# -- a worker's copy of the repository ----------------------------------------------------------
@contextmanager
def worker_copy(base: Path, n: int) -> Iterator[Path]:
    """A copy of the repository under `base`, with the staging package `_stage/memgate` mapping onto it."""
    copy = base / f"w{n}"
    for name in COPIED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, copy / name, ignore=_SKIP, symlinks=True)
    for name in COPIED_FILES:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, copy / name)
    stage = copy / "_stage" / "memgate"
    stage.mkdir(parents=True)
    for f in (copy / "src" / "memgate").glob("*.py"):
        shutil.copy2(f, stage / f.name)
    for package, folder in PACKAGE_DIRS.items():
        (stage / package).symlink_to(copy / folder, target_is_directory=True)
    try:
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


#: third-party modules a fork server imports once, so each test run pays only for memgate's own
PRELOAD = (
    "pytest",
    "anyio",
    "anyio.pytest_plugin",
    "fastmcp",
    "mcp",
    "sqlglot",
    "numpy",
    "jsonschema",
    "pydantic",
    "pydantic_settings",
    "uvicorn",
    "starlette",
    "jwt",
    "click",
    "PIL",
    "httpx2",
    "tiktoken",
    "cryptography",
    "wordllama",
)
PYTEST_ARGS = ("-q", "-x", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", "-rf")


class Runner:
    """A fork server in one worker copy: it imports pytest and the heavy third-party modules once,
    then forks a child per test run, which imports memgate from the copy as it is at that moment.
    It runs in its own process group, so ending the group ends every run it started."""

    def __init__(self, python: str, copy: Path):
        self.copy = copy
        env = {**os.environ, "PYTHONPATH": str(copy / "_stage"), "FASTMCP_CHECK_FOR_UPDATES": "off"}
        env.pop("PYTHONSAFEPATH", None)
        self.proc = subprocess.Popen(
            [python, "-m", "bench.mutations", "--serve", str(copy)],
            cwd=copy,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        _RUNNING.add(self.proc)
        self._n = 0

    def run(self, tests: tuple[str, ...], timeout: float) -> tuple[int | None, str]:
        """(pytest's exit code, or None past `timeout`, and its output) for `tests` in the copy."""
        self._n += 1
        out = self.copy / f"_run{self._n}.txt"
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"tests": list(tests), "out": str(out), "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError(f"the test runner in {self.copy} ended (exit code {self.proc.wait()})")
        text = out.read_text(errors="replace") if out.exists() else ""
        out.unlink(missing_ok=True)
        return json.loads(reply)["code"], text

    def close(self) -> None:
        _kill(self.proc)
        self.proc.wait()
        _RUNNING.discard(self.proc)


def serve(copy: Path) -> int:
    """The fork server's loop (`--serve COPY`): one JSON request a line in, one reply a line out."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    loaded = [m for m in sys.modules if m == "memgate" or m.startswith("memgate.")]
    if loaded:  # a child must import memgate afresh, from the copy as the sabotage left it
        raise SystemExit(f"the fork server imported {loaded[0]}")
    os.chdir(copy)
    for line in sys.stdin:
        request = json.loads(line)
        code = _fork_pytest(request["tests"], request["out"], request["timeout"])
        print(json.dumps({"code": code}), flush=True)
    return 0


def _fork_pytest(tests: list[str], out: str, timeout: float) -> int | None:
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:  # the child: its output to `out`, no stdin, pytest's exit code as its own
        code = 3
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            import pytest

            code = int(pytest.main([*PYTEST_ARGS, *tests]))
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.05)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def apply_and_run(runner: Runner, m: Mutation, stamp: int, timeout: float) -> Outcome:
    """Sabotage one line of `copy`, run the entry's tests, put the line back."""
    target = runner.copy / m.file
    original = target.read_text()
    started = time.monotonic()
    try:
        changed = mutated(original, m)
    except LookupError as exc:
        return Outcome(m, "broken", 0.0, str(exc))
    st = target.stat()
    try:
        target.write_text(changed)
        # a distinct mtime per mutation, so no cached bytecode of another version of the file is reused
        os.utime(target, (st.st_atime, st.st_mtime + 100 + stamp))
        code, out = runner.run(m.tests, timeout)
    finally:
        target.write_text(original)
        os.utime(target, (st.st_atime, st.st_mtime))
    seconds = time.monotonic() - started
    if code is None:
        return Outcome(m, "timeout", seconds, out)
    return Outcome(m, "survived" if code == 0 else "caught", seconds, out)


# -- the audit -----------------------------------------------------------------------------------
def audit(
    mutations: list[Mutation], *, python: str, workers: int, timeout: float, baseline: bool, report
) -> list[Outcome]:
    todo: queue.Queue[tuple[int, Mutation]] = queue.Queue()
    for i, m in enumerate(mutations):
        todo.put((i, m))
    outcomes: list[Outcome] = []
    lock = threading.Lock()
    failure: list[BaseException] = []

    def work(runner: Runner) -> None:
        while not failure:
            try:
                i, m = todo.get_nowait()
            except queue.Empty:
                return
            try:
                outcome = apply_and_run(runner, m, i, timeout)
            except BaseException as exc:  # the main thread reports it
                failure.append(exc)
                return
            with lock:
                outcomes.append(outcome)
                report(outcome, len(outcomes), len(mutations))

    with tempfile.TemporaryDirectory(prefix="memgate-mutations-") as tmp:
        with ExitStack() as stack:
            copies = [
                stack.enter_context(worker_copy(Path(tmp), n)) for n in range(max(1, min(workers, len(mutations))))
            ]
            runners = [Runner(python, c) for c in copies]
            for r in runners:
                stack.callback(r.close)
            threads: list[threading.Thread] = []
            try:
                if baseline:
                    _baseline(runners, mutations, timeout)
                threads = [threading.Thread(target=work, args=(r,), daemon=True) for r in runners]
                for t in threads:
                    t.start()
                for t in threads:
                    while t.is_alive():
                        t.join(0.2)
            except BaseException:  # Ctrl-C: end the test runs before their copies go
                failure.append(KeyboardInterrupt())
                for proc in list(_RUNNING):
                    _kill(proc)
                for t in threads:
                    t.join(10)
                raise
    if failure:
        raise failure[0]
    order = {m.id: i for i, m in enumerate(mutations)}
    return sorted(outcomes, key=lambda o: order[o.mutation.id])


def _baseline(runners: list[Runner], mutations: list[Mutation], timeout: float) -> None:
    """Every named test passes on the unmodified copies (split across them), else stop: no verdict would mean anything."""
    tests = list(dict.fromkeys(t for m in mutations for t in m.tests))
    shares = [tuple(tests[i :: len(runners)]) for i in range(len(runners))]
    results: list[tuple[int | None, str]] = []

    def run(runner: Runner, share: tuple[str, ...]) -> None:
        if share:
            results.append(runner.run(share, timeout * 4))

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in zip(runners, shares, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
    for code, out in results:
        if code != 0:
            raise SystemExit(
                f"the named tests fail on the unmodified tree, so no sabotage can be judged:\n{out[-3000:]}"
            )
    print(f"baseline: the {len(tests)} named tests pass on the unmodified tree", flush=True)


def _default_python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m bench.mutations", description=__doc__.split("\n")[0])
    p.add_argument("--list-file", type=Path, default=LIST_FILE)
    p.add_argument("--only", action="append", default=[], help="run only this entry id (repeatable)")
    p.add_argument("--capability", action="append", default=[], help="run only this capability's entries (repeatable)")
    p.add_argument("--workers", type=int, default=2, help="copies run side by side (default 2)")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per test run (default 240)")
    p.add_argument("--python", default=_default_python(), help="the interpreter that runs pytest")
    p.add_argument("--no-baseline", action="store_true", help="skip checking the named tests pass unmodified")
    p.add_argument("--show", action="store_true", help="print the test output of each run")
    p.add_argument("--min-caught", type=float, default=95.0, help="exit 1 below this percentage (default 95)")
    p.add_argument("--list", action="store_true", help="print the entries and stop")
    p.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # a worker's fork server
    args = p.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    signal.signal(signal.SIGTERM, _interrupted)  # a kill ends the runs and removes the copies as Ctrl-C does

    mutations = load(args.list_file)
    if args.only:
        unknown = set(args.only) - {m.id for m in mutations}
        if unknown:
            p.error(f"no entry {sorted(unknown)} in {args.list_file.name}")
        mutations = [m for m in mutations if m.id in args.only]
    if args.capability:
        unknown = set(args.capability) - {m.capability for m in mutations}
        if unknown:
            p.error(f"no entry of capability {sorted(unknown)} in {args.list_file.name}")
        mutations = [m for m in mutations if m.capability in args.capability]
    if args.list:
        for m in mutations:
            print(f"{m.capability:18} {m.id:34} {m.file}: {m.line}  ->  {m.to}")
        return 0

    started = time.monotonic()

    def report(o: Outcome, done: int, total: int) -> None:
        print(
            f"[{done:>2}/{total}] {o.verdict:8} {o.mutation.capability:18} {o.mutation.id:34} {o.seconds:6.1f}s  "
            f"{o.mutation.file}",
            flush=True,
        )
        if args.show or o.verdict == "broken":
            print(_tail(o.output), flush=True)

    print(
        f"mutation audit: {len(mutations)} sabotages from {args.list_file.relative_to(ROOT) if args.list_file.is_relative_to(ROOT) else args.list_file}, {args.workers} workers",
        flush=True,
    )
    try:
        outcomes = audit(
            mutations,
            python=args.python,
            workers=args.workers,
            timeout=args.timeout,
            baseline=not args.no_baseline,
            report=report,
        )
    except KeyboardInterrupt:
        print("\ninterrupted: the test runs were ended and the copies removed; the working tree was never changed")
        return 130
    elapsed = time.monotonic() - started
    caught = sum(o.verdict in ("caught", "timeout") for o in outcomes)
    survived = [o for o in outcomes if o.verdict == "survived"]
    broken = [o for o in outcomes if o.verdict == "broken"]
    pct = 100.0 * caught / len(outcomes) if outcomes else 100.0
    print()
    for capability, (got, of) in by_capability(outcomes).items():
        print(f"{capability:18} {got:>3} of {of:>3} caught")
    for o in survived:
        print(
            f"SURVIVED {o.mutation.capability}: {o.mutation.id}: {o.mutation.file}: {o.mutation.line!r} -> {o.mutation.to!r}"
        )
    for o in broken:
        print(f"BROKEN   {o.mutation.id}: {o.output}")
    timeouts = sum(o.verdict == "timeout" for o in outcomes)
    print(
        f"summary: {caught} of {len(outcomes)} sabotages caught ({pct:.1f}%), {len(survived)} survived, "
        f"{len(broken)} not applicable, {timeouts} timed out; {elapsed:.0f}s with {args.workers} workers"
    )
    return 0 if pct >= args.min_caught and not broken else 1


def by_capability(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """capability -> (caught, run), in the order the capabilities first appear."""
    tally: dict[str, tuple[int, int]] = {}
    for o in outcomes:
        got, of = tally.get(o.mutation.capability, (0, 0))
        tally[o.mutation.capability] = (got + (o.verdict in ("caught", "timeout")), of + 1)
    return tally


def _interrupted(signum, frame) -> None:
    raise KeyboardInterrupt


def _tail(text: str, lines: int = 30) -> str:
    return "\n".join("    " + s for s in text.rstrip().split("\n")[-lines:])


if __name__ == "__main__":
    raise SystemExit(main())

"""Run every bench script and print each figure beside its goal (`make bench`).

    .venv/bin/python bench/run_all.py [--only health] [--only notify] [--list]

A bench script is a bench/*.py with a `__main__` block that is not a helper (HELPERS).
Each prints one JSON object as its last line; the goals are the ```goals block of
bench/README.md (bench, dotted key into that object, comparison, value). Prints one
table, `✗` where a goal is missed or a bench did not run, and exits 1 then. Not
part of CI: the figures depend on the machine (see bench/README.md).
"""

import argparse
import json
import operator
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import NamedTuple

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
# Imported or started by the benches; not benches themselves.
HELPERS = {"common", "seed", "history_seed", "loadgen", "run_all"}
COMPARISONS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
}
GOALS_BLOCK = re.compile(r"^```goals\n(.*?)^```", re.MULTILINE | re.DOTALL)


class GoalError(ValueError):
    """The goals block of bench/README.md cannot be read."""


class Goal(NamedTuple):
    bench: str
    key: str
    comparison: str
    text: str  # as written in bench/README.md

    @property
    def value(self):
        if self.text in ("true", "false"):
            return self.text == "true"
        try:
            return float(self.text)
        except ValueError:
            return self.text

    def met_by(self, figure):
        goal = self.value
        if isinstance(goal, float) and isinstance(figure, int | float):
            return not isinstance(figure, bool) and COMPARISONS[self.comparison](figure, goal)
        return self.comparison == "==" and figure == goal


def bench_scripts():
    """{name: path} of the bench scripts, by name."""
    return {
        path.stem: path
        for path in sorted(BENCH.glob("*.py"))
        if path.stem not in HELPERS and 'if __name__ == "__main__":' in path.read_text()
    }


def read_goals(readme_text):
    """[Goal] from the ```goals block, in its order."""
    match = GOALS_BLOCK.search(readme_text)
    if match is None:
        raise GoalError("bench/README.md has no ```goals block")
    goals = []
    for number, line in enumerate(match.group(1).splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4 or parts[2] not in COMPARISONS:
            raise GoalError(f"goals line {number}: {line!r} is not `bench key comparison value`")
        goals.append(Goal(*parts))
    return goals


def figure(result, key):
    """The value at a dotted key of a bench's last line; KeyError when it is not there."""
    value = result
    for part in key.split("."):
        value = value[part]
    return value


def run_bench(path, timeout_s):
    """(last-line dict or None, why not): runs one script, echoing its output as it comes."""
    process = subprocess.Popen(
        [sys.executable, str(path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    # A bench that hangs is stopped with its children (gunicorn, qcluster), which hold the pipe.
    timed_out = threading.Event()

    def stop():
        timed_out.set()
        os.killpg(process.pid, signal.SIGKILL)

    watchdog = threading.Timer(timeout_s, stop)
    watchdog.start()
    last = ""
    try:
        for line in process.stdout:
            sys.stdout.write(f"  {path.stem}| {line}")
            if line.strip():
                last = line.strip()
        process.wait()
    finally:
        watchdog.cancel()
    if timed_out.is_set():
        return None, f"stopped after {timeout_s} s"
    if process.returncode != 0:
        return None, f"exit {process.returncode}: {last[:80]}"
    try:
        result = json.loads(last)
    except ValueError:
        return None, f"last line is not JSON: {last[:80]}"
    return result, None


def rows_for(name, result, why_not, goals):
    """Table rows (bench, key, figure, goal, ok) for one bench."""
    own = [goal for goal in goals if goal.bench == name]
    if result is None:
        return [(name, "-", why_not, "", False)]
    if not own:
        return [(name, "-", json.dumps(result)[:70], "no goal in bench/README.md", True)]
    rows = []
    for goal in own:
        shown = f"{goal.comparison} {goal.text}"
        try:
            value = figure(result, goal.key)
        except (KeyError, TypeError):
            rows.append((name, goal.key, "missing", shown, False))
            continue
        rows.append((name, goal.key, json.dumps(value), shown, goal.met_by(value)))
    return rows


def print_table(rows):
    header = ("bench", "key", "figure", "goal", "")
    table = [header] + [(b, k, f, g, "" if ok else "✗") for b, k, f, g, ok in rows]
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for row in table:
        print(
            "  ".join(
                str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)
            ).rstrip()
        )


def main(argv=None):
    scripts = bench_scripts()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", choices=sorted(scripts), help="run this bench (repeatable)"
    )
    parser.add_argument("--list", action="store_true", help="list the bench scripts and goals")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per bench")
    args = parser.parse_args(argv)
    try:
        goals = read_goals((BENCH / "README.md").read_text())
    except GoalError as exc:
        parser.error(str(exc))
    unknown = sorted({goal.bench for goal in goals} - set(scripts))
    if unknown:
        parser.error(f"bench/README.md has goals for unknown benches: {', '.join(unknown)}")
    names = args.only or list(scripts)
    if args.list:
        for name in names:
            own = [f"{g.key} {g.comparison} {g.text}" for g in goals if g.bench == name]
            print(f"{name}: {'; '.join(own) or 'no goal'}")
        return 0
    rows = []
    for name in names:
        print(f"== bench/{name}.py", flush=True)
        result, why_not = run_bench(scripts[name], args.timeout)
        rows += rows_for(name, result, why_not, goals)
    print()
    print_table(rows)
    missed = sum(1 for row in rows if not row[4])
    print(f"\n{missed} missed" if missed else "\nevery goal met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

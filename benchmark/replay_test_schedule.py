"""Replays a `bin/test` run's test durations under pytest-xdist's loadfile rule, for two
orders of the modules: xdist's own (most tests first) and tests/e2e/conftest.py's
MODULES_LONGEST_FIRST, and prints when each worker would finish. Use it to check the order
after a module grew or a new one came:

    CI=true PYTEST_ADDOPTS=--durations=0 bash .ci/run > ci.log 2>&1
    .venv/bin/python benchmark/replay_test_schedule.py ci.log

The rule (xdist 3.8, scheduler/loadscope.py): each worker gets one module, then another
whenever at most two of its assigned tests are still pending, after each test it finishes."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR / "tests" / "e2e"))


def test_durations(log: str) -> dict[str, float]:
    """Each test's setup, call and teardown seconds from pytest's --durations=0 report."""
    durations: dict[str, float] = {}
    for match in re.finditer(r"^([0-9.]+)s (?:call|setup|teardown)\s+(\S+)", log, re.MULTILINE):
        durations[match.group(2)] = durations.get(match.group(2), 0.0) + float(match.group(1))
    return durations


def collected_modules() -> OrderedDict[str, list[str]]:
    """The test ids by module, in pytest's collection order before any reordering."""
    listed = subprocess.run(
        [
            str(PROJECT_DIR / ".venv" / "bin" / "pytest"),
            "--co",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
        ],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    modules: OrderedDict[str, list[str]] = OrderedDict()
    for test_id in (line for line in listed.splitlines() if "::" in line):
        modules.setdefault(test_id.split("::")[0], []).append(test_id)
    # the conftest reorders the collection: put it back in the order of the test paths and names
    return OrderedDict(
        sorted(modules.items(), key=lambda item: (not item[0].startswith("python_udfs"), item[0]))
    )


def finish_times(order: list[str], modules: dict[str, list[str]], durations: dict[str, float]) -> list[float]:
    queue = [list(modules[module]) for module in order]
    pending: list[list[str]] = [[], []]
    clock = [0.0, 0.0]

    def assign(worker: int) -> None:
        if queue:
            pending[worker].extend(queue.pop(0))

    for worker in (0, 1):
        assign(worker)
    for worker in (0, 1):
        if len(pending[worker]) <= 2:
            assign(worker)
    while any(pending):
        end, worker = min(
            (clock[worker] + durations.get(pending[worker][0], 0.0), worker)
            for worker in (0, 1)
            if pending[worker]
        )
        clock[worker] = end
        pending[worker].pop(0)
        if len(pending[worker]) <= 2:
            assign(worker)
    return clock


def main() -> None:
    from conftest import module_place

    durations = test_durations(Path(sys.argv[1]).read_text())
    modules = collected_modules()
    orders = {
        "xdist's order (most tests first)": sorted(modules, key=lambda module: -len(modules[module])),
        "longest first (MODULES_LONGEST_FIRST)": sorted(
            modules, key=lambda module: module_place(Path(module).name)
        ),
    }
    print(f"tests' summed durations: {sum(durations.values()):,.0f} s")
    for name, order in orders.items():
        workers = finish_times(order, modules, durations)
        print(
            f"{name}: workers done at {workers[0]:,.0f} and {workers[1]:,.0f} s, pytest about {max(workers):,.0f} s"
        )
    by_module: dict[str, float] = {}
    for test_id, seconds in durations.items():
        by_module[Path(test_id.split("::")[0]).name] = (
            by_module.get(Path(test_id.split("::")[0]).name, 0.0) + seconds
        )
    print("seconds per module, longest first:")
    for module, seconds in sorted(by_module.items(), key=lambda item: -item[1]):
        print(f"  {module:40} {seconds:6.0f}")


if __name__ == "__main__":
    main()

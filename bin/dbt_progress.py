"""Shows a dbt run's progress in 80 columns: reads dbt's JSON log lines (`dbt --log-format json
...`) on stdin and prints one line per finished model, seed or hook (time since the start, its
place among the nodes, its status, its name, its own time), the tests that do not pass or took
2 s or more, and dbt's warnings, errors and closing summary, wrapped. Lines that are not JSON
(Spark's own, when stderr is piped too) are wrapped as they are; dbt's exit status reaches the
shell through `set -o pipefail`.

    dbt --log-format json build 2>&1 | python bin/dbt_progress.py
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from datetime import datetime
from typing import Any

WIDTH = 80
SHOWN_TEST_SECONDS = 2.0
ANSI = re.compile(r"\x1b\[[0-9;]*m")
NODE_RESULTS = {"LogModelResult", "LogSeedResult", "LogSnapshotResult", "LogHookEndLine"}
SUMMARY = {"MainReportVersion", "FoundStats", "FinishedRunningStats", "EndOfRunSummary", "StatsLine"}


def clean(text: str) -> str:
    return ANSI.sub("", text).strip()


def wrapped(text: str, indent: str = "") -> str:
    lines = clean(text).splitlines() or [""]
    return "\n".join(
        textwrap.fill(line, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ") if line else ""
        for line in lines
    )


class Progress:
    def __init__(self) -> None:
        self.started: datetime | None = None
        self.tests_passed = 0

    def elapsed(self, event: dict[str, Any]) -> str:
        moment = datetime.fromisoformat(event["info"]["ts"].replace("Z", "+00:00"))
        self.started = self.started or moment
        seconds = int((moment - self.started).total_seconds())
        return f"{seconds // 60:>2}:{seconds % 60:02d}"

    def node_line(self, event: dict[str, Any], status: str, name: str) -> str:
        data = event["data"]
        place = f"{data.get('index', '?')}/{data.get('total') or data.get('num_models') or '?'}"
        took = f"{float(data.get('execution_time') or 0):.1f}s"
        head = f"{self.elapsed(event)} {place:>7} {status[:5]:<5} "
        room = WIDTH - len(head) - len(took) - 1
        name = name if len(name) <= room else name[: room - 1] + "…"
        return f"{head}{name:<{room}} {took}"

    def line_for(self, event: dict[str, Any]) -> str | None:
        name, level = event["info"]["name"], event["info"]["level"]
        data = event["data"]
        node = data.get("node_info") or {}
        if name in NODE_RESULTS:
            label = (node.get("node_name") or data.get("statement") or "?").replace("cdc_lakehouse-", "")
            message = clean(str(data.get("status", "")))
            if node.get("node_status", "success") != "success":
                return self.node_line(event, str(node.get("node_status")).upper(), label)
            if message not in ("OK", "success", ""):
                label = f"{label} ({message})"  # a materialization's own message: no new changes
            return self.node_line(event, "OK", label)
        if name == "LogTestResult":
            if data.get("status") == "pass":
                self.tests_passed += 1
                # a long test is shown, so that a pause is explained
                if float(data.get("execution_time") or 0) < SHOWN_TEST_SECONDS:
                    return None
            return self.node_line(event, str(data.get("status", "")).upper(), data.get("name", "?"))
        if name in SUMMARY:
            if name == "FinishedRunningStats" and self.tests_passed:
                return wrapped(f"{self.tests_passed} data tests passed. {event['info']['msg']}")
            return wrapped(event["info"]["msg"])
        if name == "Note" and level == "info" and event["info"]["msg"].startswith("Nothing to do"):
            return wrapped(event["info"]["msg"])  # a run with nothing to do (python_udfs' dbt plugin)
        if level in ("warn", "error") and clean(event["info"]["msg"]):
            return wrapped(event["info"]["msg"], "  ")
        return None


def main() -> int:
    progress = Progress()
    for raw in sys.stdin:
        try:
            event = json.loads(raw)
            line = progress.line_for(event)
        except (ValueError, KeyError, TypeError):
            line = wrapped(raw)  # Spark's own lines, wrapped too, and what a macro prints
        if line is not None:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

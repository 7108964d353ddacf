"""bin/demo's progress lines (bin/dbt_progress.py over dbt's JSON log): a real dbt build of the
seed and its tests, shown in 80 columns, one line per finished node, with dbt's summary."""

from __future__ import annotations

import subprocess
import sys

from conftest import PROJECT_DIR, SAMPLE_LANDING, Dbt


def test_progress_lines_fit_80_columns_and_name_each_finished_node(dbt: Dbt) -> None:
    command, env = dbt.invocation(
        "--log-format",
        "json",
        "build",
        "--select",
        "cdc_outcome_reasons",
        "--indirect-selection",
        "cautious",
        schema="it_progress",
        landing_root=SAMPLE_LANDING,
    )
    build = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:]
    log = build.stdout
    shown = subprocess.run(
        [sys.executable, str(PROJECT_DIR / "bin" / "dbt_progress.py")],
        input=log,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert all(len(line) <= 80 for line in shown), [line for line in shown if len(line) > 80]
    seed_lines = [line for line in shown if " OK    cdc_outcome_reasons " in line]
    assert len(seed_lines) == 1 and seed_lines[0].endswith("s"), shown
    assert any(line.startswith("Done. PASS=") for line in shown), shown
    assert not any(line.lstrip().startswith("{") for line in shown), "no JSON event is shown raw"

"""bin/demo's progress lines (bin/dbt_progress.py over dbt's JSON log): a real dbt build of the
seed and its tests, shown in 80 columns, one line per finished node, with dbt's summary; run as
bin/demo runs it, through bin/dbt_sequence.py with a second dbt command after the build."""

from __future__ import annotations

import os
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
    dbt_vars = command[-2:]  # --vars, the same for both commands
    listing = ["ls", "--select", "cdc_outcome_reasons", "--resource-type", "seed", "--quiet", *dbt_vars]
    sequence = [sys.executable, str(PROJECT_DIR / "bin" / "dbt_sequence.py"), *command[1:], "--", *listing]
    build = subprocess.run(sequence, cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
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
    # the second command ran after the build, in the same process, and its output is shown as printed
    done = next(place for place, line in enumerate(shown) if line.startswith("Done. PASS="))
    assert "cdc_lakehouse.cdc_outcome_reasons" in shown[done + 1 :], shown[done:]


def test_a_sequence_stops_at_the_first_command_that_fails() -> None:
    listing = ["ls", "--select", "cdc_outcome_reasons", "--resource-type", "seed", "--quiet"]
    sequence = subprocess.run(
        [
            sys.executable,
            str(PROJECT_DIR / "bin" / "dbt_sequence.py"),
            "run-operation",
            "no_such_macro",
            "--",
            *listing,
        ],
        cwd=PROJECT_DIR,
        env=os.environ | {"DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles")},
        capture_output=True,
        text=True,
    )
    assert sequence.returncode == 2, sequence.stdout[-2000:]
    assert "no_such_macro" in sequence.stdout
    assert "cdc_lakehouse.cdc_outcome_reasons" not in sequence.stdout, (
        "the command after the failed one did not run"
    )

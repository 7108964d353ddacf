"""The dbt unit tests (one per parsing, routing, folding and history rule, in
models/**/_*__unit_tests.yml and tests/rule_models/), through the session's Spark Connect server,
on a schema of their own. `+test_type:unit` builds the models they read first (a rule model is
ephemeral: never built), with `--empty`: a unit test's fixtures take only their columns from
them (158 s -> 129 s for the whole run, 2026-11-25). Four threads: while Spark analyses one
test's query, dbt renders the next (the module alone took 238 s instead of 322 s with one
thread, 2026-11-27). They ran in a JVM of their own (Spark in the dbt process) until
2026-12-04: the server's JVM has already compiled Spark's planner for the other modules' builds,
where a new JVM compiles it again (docs/performance_log.md, 2026-12-04)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from conftest import SAMPLE_LANDING, Dbt


def test_every_unit_test_passes(dbt: Dbt, tmp_path: Path) -> None:
    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    result = dbt.run(
        "build",
        "--select",
        "+test_type:unit",
        "--exclude",
        "test_type:data",
        "--empty",
        "--threads",
        "4",
        schema="it_unit",
        landing_root=landing_root,
        extra_vars={"cdc_rule_models": True},
    )
    unit_tests_passed = re.findall(r"PASS (\S+)::\S+", result.stdout)
    assert len(unit_tests_passed) >= 61, result.stdout[-3000:]
    assert unit_tests_passed.count("history_of_staged_changes") == 7, result.stdout[-3000:]
    assert "ERROR=0" in result.stdout

"""The JIT of a run's JVM (dbt_cdc_udfs.small_runs): the first tier only when less than
SMALL_LANDING_BYTES landed since the last successful run started, the profile's otherwise, and
never over a choice made with CDC_SPARK_JAVA_OPTIONS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbt_cdc_udfs.small_runs import QUICK_JIT_OPTIONS, SMALL_LANDING_BYTES, with_jit_for_the_run
from dbt_cdc_udfs.unchanged_runs import RunInputs

PROFILE = {
    "spark.driver.extraJavaOptions": "-Dderby.system.home=.spark -XX:+UseSerialGC",
    "spark.sql.ansi.enabled": "true",
}
QUICK = {
    **PROFILE,
    "spark.driver.extraJavaOptions": f"{PROFILE['spark.driver.extraJavaOptions']} {QUICK_JIT_OPTIONS}",
}


@pytest.fixture(autouse=True)
def no_jit_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CDC_SPARK_JAVA_OPTIONS", raising=False)


def inputs(root: Path) -> RunInputs:
    return RunInputs(
        settings={"command": "build"},
        project_root=root,
        project_paths=(root / "models",),
        landing_root=root / "landing",
        warehouse=root / "state" / "warehouse",
        metastore=root / "state" / "metastore_db",
        record=root / "target" / "cdc_last_successful_run.json",
    )


def land(root: Path, name: str, size: int) -> None:
    path = root / "landing" / "debezium" / "json_lines" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        file.truncate(size)


def record_landed(root: Path, landed: int) -> None:
    (root / "target").mkdir(parents=True, exist_ok=True)
    (root / "target" / "cdc_last_successful_run.json").write_text(json.dumps({"landed_bytes": landed}))


def test_a_first_run_on_a_small_landing_gets_the_first_tier(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", 48_000)
    assert with_jit_for_the_run(PROFILE, inputs(tmp_path)) == QUICK


def test_a_first_run_on_a_large_landing_keeps_the_profile(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", SMALL_LANDING_BYTES)
    assert with_jit_for_the_run(PROFILE, inputs(tmp_path)) == PROFILE


def test_what_landed_since_the_last_successful_run_counts(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", 10 * SMALL_LANDING_BYTES)
    record_landed(tmp_path, 10 * SMALL_LANDING_BYTES)
    land(tmp_path, "batch-001.jsonl", SMALL_LANDING_BYTES - 1)
    assert with_jit_for_the_run(PROFILE, inputs(tmp_path)) == QUICK
    land(tmp_path, "batch-002.jsonl", 1)
    assert with_jit_for_the_run(PROFILE, inputs(tmp_path)) == PROFILE


def test_a_jit_chosen_by_who_runs_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    land(tmp_path, "batch-000.jsonl", 48_000)
    monkeypatch.setenv("CDC_SPARK_JAVA_OPTIONS", "")
    assert with_jit_for_the_run(PROFILE, inputs(tmp_path)) == PROFILE


def test_a_run_the_check_does_not_apply_to_keeps_the_profile() -> None:
    assert with_jit_for_the_run(PROFILE, None) == PROFILE

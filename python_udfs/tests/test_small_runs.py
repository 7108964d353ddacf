"""The JIT of a run's JVM (dbt_cdc_udfs.small_runs): the first tier only when less than
SMALL_LANDING_BYTES landed since the last successful run started (every landed byte on a full
refresh), Spark's generated classes on the first tier only otherwise, and never over a choice
made with CDC_SPARK_JAVA_OPTIONS. Interpreted expressions when less than TINY_LANDING_BYTES
landed, generated code otherwise or when the landing is not a local folder, and never over a
choice made with CDC_SPARK_CODEGEN or in the profile."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dbt_cdc_udfs.small_runs import (
    CODE_GENERATION_CHOICE_ENVIRONMENT,
    COMPILER_DIRECTIVES,
    GENERATED_CODE_ON_FIRST_TIER_OPTIONS,
    INTERPRETED_EXPRESSIONS,
    QUICK_JIT_OPTIONS,
    SMALL_LANDING_BYTES,
    TINY_LANDING_BYTES,
    as_connection_settings,
    code_generation_for_the_run,
    newly_landed_bytes,
    newly_landed_bytes_up_to,
    with_jit_for_the_run,
)
from dbt_cdc_udfs.unchanged_runs import RunInputs

PROJECT_DIR = Path(__file__).resolve().parents[2]

PROFILE = {
    "spark.driver.extraJavaOptions": "-Dderby.system.home=.spark -XX:+UseSerialGC",
    "spark.sql.ansi.enabled": "true",
}
QUICK = {
    **PROFILE,
    "spark.driver.extraJavaOptions": f"{PROFILE['spark.driver.extraJavaOptions']} {QUICK_JIT_OPTIONS}",
}
LARGE = {
    **PROFILE,
    "spark.driver.extraJavaOptions": (
        f"{PROFILE['spark.driver.extraJavaOptions']} {GENERATED_CODE_ON_FIRST_TIER_OPTIONS}"
    ),
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
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes(inputs(tmp_path))) == QUICK


def test_a_first_run_on_a_large_landing_gets_generated_code_on_the_first_tier(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", SMALL_LANDING_BYTES)
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes(inputs(tmp_path))) == LARGE


def test_what_landed_since_the_last_successful_run_counts(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", 10 * SMALL_LANDING_BYTES)
    record_landed(tmp_path, 10 * SMALL_LANDING_BYTES)
    land(tmp_path, "batch-001.jsonl", SMALL_LANDING_BYTES - 1)
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes(inputs(tmp_path))) == QUICK
    land(tmp_path, "batch-002.jsonl", 1)
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes(inputs(tmp_path))) == LARGE


def test_a_jit_chosen_by_who_runs_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    land(tmp_path, "batch-000.jsonl", 48_000)
    monkeypatch.setenv("CDC_SPARK_JAVA_OPTIONS", "")
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes(inputs(tmp_path))) == PROFILE


def test_a_landing_that_is_not_a_local_folder_counts_as_large() -> None:
    assert with_jit_for_the_run(PROFILE, None) == LARGE


def test_a_full_refresh_weighs_every_landed_byte(tmp_path: Path) -> None:
    """A full refresh keeps no record (inputs None) and stages every landed file again."""
    land(tmp_path, "batch-000.jsonl", SMALL_LANDING_BYTES)
    landed = newly_landed_bytes_up_to(tmp_path / "landing", None)
    assert with_jit_for_the_run(PROFILE, landed) == LARGE
    small = tmp_path / "small"
    land(small, "batch-000.jsonl", 48_000)
    assert with_jit_for_the_run(PROFILE, newly_landed_bytes_up_to(small / "landing", None)) == QUICK


def test_a_jvm_takes_the_compiler_directives() -> None:
    """The directives file is shipped with the package, by an absolute path, and is one a JVM
    reads: a file it cannot read stops it before Spark starts."""
    assert COMPILER_DIRECTIVES.is_absolute()
    java_home = subprocess.run(
        [str(PROJECT_DIR / "bin" / "java-home")], capture_output=True, text=True, check=True
    ).stdout.strip()
    started = subprocess.run(
        [f"{java_home}/bin/java", *GENERATED_CODE_ON_FIRST_TIER_OPTIONS.split(), "-version"],
        capture_output=True,
        text=True,
    )
    assert started.returncode == 0, started.stdout + started.stderr
    assert "1 compiler directives added" in started.stdout, started.stdout


INTERPRETED = INTERPRETED_EXPRESSIONS


@pytest.fixture(autouse=True)
def no_code_generation_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CODE_GENERATION_CHOICE_ENVIRONMENT, raising=False)


def test_a_tiny_landing_is_interpreted(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", TINY_LANDING_BYTES - 1)
    newly_landed = newly_landed_bytes_up_to(tmp_path / "landing", None)
    assert code_generation_for_the_run(PROFILE, newly_landed) == INTERPRETED


def test_a_landing_of_the_bound_or_more_gets_generated_code(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", TINY_LANDING_BYTES - 1)
    land(tmp_path, "batch-001.jsonl", 1)
    newly_landed = newly_landed_bytes_up_to(tmp_path / "landing", None)
    assert newly_landed == TINY_LANDING_BYTES
    assert code_generation_for_the_run(PROFILE, newly_landed) == {}


def test_with_a_record_only_what_landed_since_counts(tmp_path: Path) -> None:
    land(tmp_path, "batch-000.jsonl", 10 * TINY_LANDING_BYTES)
    record_landed(tmp_path, 10 * TINY_LANDING_BYTES)
    land(tmp_path, "batch-001.jsonl", 1_000)
    newly_landed = newly_landed_bytes_up_to(tmp_path / "landing", inputs(tmp_path))
    assert code_generation_for_the_run(PROFILE, newly_landed) == INTERPRETED
    # without the record (a full refresh, a Connect or Thrift target) every landed byte counts
    assert code_generation_for_the_run(PROFILE, newly_landed_bytes_up_to(tmp_path / "landing", None)) == {}


def test_a_landing_that_is_not_a_local_folder_gets_generated_code(tmp_path: Path) -> None:
    assert newly_landed_bytes_up_to(tmp_path / "not-here", None) is None
    assert newly_landed_bytes_up_to(None, None) is None
    assert code_generation_for_the_run(PROFILE, None) == {}


def test_the_choice_of_who_runs_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CODE_GENERATION_CHOICE_ENVIRONMENT, "generated")
    assert code_generation_for_the_run(PROFILE, 0) == {}
    monkeypatch.setenv(CODE_GENERATION_CHOICE_ENVIRONMENT, "Interpreted")
    assert code_generation_for_the_run(PROFILE, 10 * TINY_LANDING_BYTES) == INTERPRETED
    assert code_generation_for_the_run(PROFILE, None) == INTERPRETED


def test_a_profile_that_sets_code_generation_keeps_it() -> None:
    profile = {**PROFILE, "spark.sql.codegen.wholeStage": "true"}
    assert code_generation_for_the_run(profile, 0) == {}
    thrift_profile = {"set:hiveconf:spark.sql.codegen.factoryMode": "FALLBACK"}
    assert code_generation_for_the_run(thrift_profile, 0) == {}


def test_a_thrift_server_is_given_the_settings_as_hive_session_settings() -> None:
    assert as_connection_settings(INTERPRETED, "session") == INTERPRETED
    assert as_connection_settings(INTERPRETED, "thrift") == {
        "set:hiveconf:spark.sql.codegen.wholeStage": "false",
        "set:hiveconf:spark.sql.codegen.factoryMode": "NO_CODEGEN",
    }


def test_a_wrong_choice_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CODE_GENERATION_CHOICE_ENVIRONMENT, "codegen")
    with pytest.raises(
        ValueError, match=r"CDC_SPARK_CODEGEN is 'codegen': set it to generated or interpreted"
    ):
        code_generation_for_the_run(PROFILE, 0)

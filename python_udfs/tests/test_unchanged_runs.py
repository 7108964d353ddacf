"""The fingerprint of a run's inputs (dbt_cdc_udfs.unchanged_runs): the same files and settings
give the same fingerprint in any process; a file landed, touched or removed in the landing, the
project, the warehouse or the metastore changes that part, and only that part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbt_cdc_udfs.unchanged_runs import (
    WRITTEN_PARTS,
    RunInputs,
    _derby_folder,
    _local_path,
    _project_environment,
    _without_tuning,
    covered_by_run,
)


def inputs(root: Path, **settings: object) -> RunInputs:
    return RunInputs(
        settings={"command": "build", **settings},
        project_root=root,
        project_paths=(root / "models", root / "dbt_project.yml"),
        landing_root=root / "landing",
        warehouse=root / "state" / "warehouse",
        metastore=root / "state" / "metastore_db",
        record=root / "target" / "cdc_last_successful_run.json",
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for path, text in {
        "models/a.sql": "select 1",
        "dbt_project.yml": "name: x",
        "landing/debezium/json_lines/batch-000.jsonl": "{}\n",
        "state/warehouse/cdc_marts.db/t/part-0.parquet": "x",
        "state/metastore_db/seg0/c10.dat": "x",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def differing(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(part for part in before if before[part] != after[part])


def test_the_same_inputs_give_the_same_fingerprint(root: Path) -> None:
    assert inputs(root).fingerprint() == inputs(root).fingerprint()


def test_the_landing_is_listed_once_for_a_run_as_it_starts(root: Path) -> None:
    """A run's inputs list the landing once, for its size and its fingerprint: a file that lands
    later is in neither, so the next run sees the landing changed and stages it."""
    as_it_started = inputs(root)
    size = as_it_started.landed_bytes()
    before = as_it_started.fingerprint()
    (root / "landing/debezium/json_lines/batch-001.jsonl").write_text("{}\n{}\n")
    assert as_it_started.landed_bytes() == size == 3
    assert as_it_started.fingerprint() == before
    assert inputs(root).landed_bytes() == 9
    assert differing(before, inputs(root).fingerprint()) == ["landing"]


@pytest.mark.parametrize(
    ("path", "part"),
    [
        ("landing/debezium/json_lines/batch-001.jsonl", "landing"),
        ("models/b.sql", "project"),
        ("state/warehouse/cdc_marts.db/t/part-1.parquet", "warehouse"),
        ("state/metastore_db/seg0/c20.dat", "metastore"),
    ],
)
def test_a_new_file_changes_its_part_only(root: Path, path: str, part: str) -> None:
    before = inputs(root).fingerprint()
    (root / path).write_text("new")
    assert differing(before, inputs(root).fingerprint()) == [part]


def test_a_file_touched_or_removed_changes_the_fingerprint(root: Path) -> None:
    landed = root / "landing/debezium/json_lines/batch-000.jsonl"
    before = inputs(root).fingerprint()
    stat = landed.stat()
    os.utime(landed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    touched = inputs(root).fingerprint()
    assert differing(before, touched) == ["landing"]
    (root / "state/warehouse/cdc_marts.db/t/part-0.parquet").unlink()
    assert differing(touched, inputs(root).fingerprint()) == ["warehouse"]


def test_a_run_covers_the_files_it_read_as_they_were_when_it_started(root: Path) -> None:
    at_start = inputs(root).fingerprint()
    (root / "landing/debezium/json_lines/batch-001.jsonl").write_text("landed during the run")
    (root / "state/warehouse/cdc_marts.db/t/part-1.parquet").write_text("written by the run")
    covered = covered_by_run(at_start, inputs(root).fingerprint(WRITTEN_PARTS))
    assert differing(covered, inputs(root).fingerprint()) == ["landing"], (
        "the file landed during the run makes the next run run"
    )
    assert covered["warehouse"] != at_start["warehouse"], "what the run wrote is covered as it left it"


def test_other_settings_change_the_settings_part(root: Path) -> None:
    before = inputs(root, select=None).fingerprint()
    assert differing(before, inputs(root, select=("stg_debezium__records",)).fingerprint()) == ["settings"]


def test_jvm_tuning_is_not_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Heap, GC, JIT, class sharing and the JVM's logging are not settings; a system property is.
    (tests/e2e/test_runs_with_nothing_to_do.py checks bin/spark-class-archive's own options.)"""
    monkeypatch.setattr(
        os,
        "environ",
        {
            "CDC_SPARK_CLASS_SHARING": "-XX:SharedArchiveFile=.venv/spark-classes.jsa -Xshare:auto",
            "CDC_SPARK_JAVA_OPTIONS": "-XX:TieredStopAtLevel=1",
            "CDC_SPARK_DRIVER_MEMORY": "2g",
            "CDC_SCHEMA": "cdc",
            "HOME": "/root",
        },
    )
    assert _project_environment() == {"CDC_SCHEMA": "cdc"}
    first, second = (
        {
            "spark.driver.memory": memory,
            "spark.driver.extraJavaOptions": f"-Dderby.system.home=.spark -XX:+UseSerialGC {sharing} -Xmn384m",
            "spark.sql.session.timeZone": "UTC",
        }
        for memory, sharing in (
            ("4g", "-XX:ArchiveClassesAtExit=.venv/spark-classes.jsa.recording -Xlog:cds*=off"),
            ("2g", "-XX:SharedArchiveFile=.venv/spark-classes.jsa -Xshare:auto -Xmx3g -Xss4m"),
        )
    )
    assert (
        _without_tuning(first)
        == _without_tuning(second)
        == {
            "spark.driver.extraJavaOptions": "-Dderby.system.home=.spark",
            "spark.sql.session.timeZone": "UTC",
        }
    )
    # a system property can change results (a time zone): it stays
    assert _without_tuning({"spark.driver.extraJavaOptions": "-Duser.timezone=UTC"}) != _without_tuning(
        {"spark.driver.extraJavaOptions": "-Duser.timezone=Asia/Shanghai"}
    )


def test_a_missing_folder_is_part_of_the_fingerprint(root: Path) -> None:
    (root / "landing/debezium/json_lines/batch-000.jsonl").unlink()
    (root / "landing/debezium/json_lines").rmdir()
    before = inputs(root).fingerprint()
    (root / "landing/debezium/json_lines").mkdir()
    assert before == inputs(root).fingerprint(), "an empty folder holds no file"
    (root / "state/metastore_db/seg0/c10.dat").unlink()
    (root / "state/metastore_db/seg0").rmdir()
    (root / "state/metastore_db").rmdir()
    assert differing(before, inputs(root).fingerprint()) == ["metastore"]


def test_only_local_folders_and_an_embedded_metastore_are_fingerprinted(tmp_path: Path) -> None:
    assert _local_path(".spark/warehouse", tmp_path) == tmp_path / ".spark/warehouse"
    assert _local_path("file:///data/warehouse", tmp_path) == Path("/data/warehouse")
    assert _local_path("s3a://bucket/warehouse", tmp_path) is None
    assert _derby_folder("jdbc:derby:;databaseName=.spark/metastore_db;create=true", tmp_path) == (
        tmp_path / ".spark/metastore_db"
    )
    assert _derby_folder("jdbc:postgresql://db/metastore", tmp_path) is None

"""A killed run leaves nothing half done: `kill -9` of the dbt process tree (dbt and the Spark
it runs in-process) at several points of an incremental run, then a plain rerun, gives the
tables, logs and counts of a run that was never interrupted. Whether a kill lands between a
write's files and their registration in the metastore is a matter of timing, so the test also
leaves such files itself, where the rerun writes next."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlparse

from pyspark.sql import SparkSession

from conftest import (
    PROJECT_DIR,
    SAMPLE_LANDING,
    Dbt,
    current_state_tables,
    history_tables,
    project_build,
    rows_as_text,
    staging_models,
    table_partitions,
)

# (model whose start the kill waits for, seconds after it): staging, the checked changes, a mart.
# The mart keeps history: its run writes the changes, the versions and the state in turn.
KILL_POINTS = [
    ("stg_debezium__records", 1.5),
    ("int_changes_checked", 1.5),
    ("payments__transactions", 2.0),
]
SECOND_RUN_FILES = [
    "orders-0002.jsonl",
    "orders-0003-bad.jsonl",
    "dbserver1.shop.customers+0+0000000008.parquet",
    "realtime-0002.csv",
    "nation-0002.jsonl",
    # hour 10's late file: its changes land in the middle of payments' history
    "part-00002-0d4e7b92-31a8-4f5c-8e16-c2a97b5d1402-c000.snappy.parquet",
]
# Models and the seed only: no tests.
MODELS = project_build()
COMPARED = {
    "staging": staging_models(),
    "intermediate": ["int_quarantined_records_logged", "int_control_records_logged", "int_changes_checked"],
    "marts": sorted(current_state_tables()) + sorted(f"{table}_history" for table in history_tables()),
}


def compared_rows(spark: SparkSession, schema: str) -> dict[str, list[str]]:
    """Every COMPARED table of `schema`, as sorted rows of Spark's own text casts: staging's
    outcome and images, the intermediate logs and the current-state and history tables, without
    what differs between runs (when and from which folder a record was staged)."""
    record = "element_at(split(raw_record_id, '/'), -1) as raw_record"
    columns = {
        "staging": f"{record}, row_index, record_outcome, outcome_reason, operation, to_json(after_image) as after_image",
        "intermediate": f"{record}, *",
        "marts": "* except (_cdc)",
    }
    tables = {}
    for layer, names in COMPARED.items():
        for name in names:
            relation = f"{schema}_{layer}.{name}"
            kept = [
                f"`{column}`"
                for column in spark.sql(f"select {columns[layer]} from {relation}").columns
                if column not in ("raw_record_id", "landing_file", "loaded_at")
            ]
            query = f"select {', '.join(kept)} from (select {columns[layer]} from {relation}) as compared"
            tables[f"{layer}.{name}"] = sorted(json.dumps(list(row)) for row in rows_as_text(spark, query))
    return tables


def table_folder(spark: SparkSession, relation: str) -> Path:
    """The folder of a table's files (its Location)."""
    rows = spark.sql(f"describe table extended {relation}").collect()
    location = next(row.data_type for row in rows if row.col_name == "Location")
    return Path(urlparse(location).path)


def leave_unregistered_files(spark: SparkSession, relation: str, partition: str) -> None:
    """What a write killed after its files but before Spark registered their partition leaves:
    the folder `partition` (as Spark names it) of `relation`, holding a copy of one of the
    table's files, which no metastore partition points at. Spark would show its rows, beside
    the rerun's own, if the rerun added its files there instead of replacing the folder."""
    folder = table_folder(spark, relation)
    written = sorted(folder.glob("*=*/*.parquet"))
    assert written, f"{relation} has files to copy"
    (folder / partition).mkdir(exist_ok=True)
    shutil.copyfile(written[-1], folder / partition / "part-99999-left-by-a-killed-write.c000.snappy.parquet")


def leave_killed_writes(spark: SparkSession, schema: str) -> list[str]:
    """Unregistered files (leave_unregistered_files) in every partition the rerun writes next:
    the checked changes' partitions of the runs staged since the log's newest, and the next
    batch of every current-state table's state and of a history table's changes and versions.
    Their folders, for the test's message."""
    checked = f"{schema}_intermediate.int_changes_checked"
    staged = " union ".join(
        f"select distinct loaded_at from {schema}_staging.{model}" for model in staging_models()
    )
    unchecked = spark.sql(
        f"select cast(loaded_at as string) as loaded_at from ({staged}) as staged_runs"
        f" where loaded_at > (select max(loaded_at) from {checked})"
    ).collect()
    left = []
    for row in unchecked:
        partition = "loaded_at=" + row.loaded_at.replace(":", "%3A")
        leave_unregistered_files(spark, checked, partition)
        left.append(f"{checked}/{partition}")
    for table in sorted(current_state_tables()):
        suffixes = ["__cdc_state"] + (["__cdc_changes", "__cdc_history"] if table in history_tables() else [])
        for suffix in suffixes:
            relation = f"{schema}_marts.{table}{suffix}"
            batches = [int(partition.split("=")[1]) for partition in table_partitions(spark, relation)]
            partition = f"_cdc_batch={max(batches, default=0) + 1}"
            leave_unregistered_files(spark, relation, partition)
            left.append(f"{relation}/{partition}")
    return left


def land(landing_root: Path, second_run: bool) -> None:
    """The sample landing data: all but SECOND_RUN_FILES for the first run, all for the second."""
    for file in sorted(SAMPLE_LANDING.rglob("*")):
        if not file.is_file() or file.name.startswith(".") or ((file.name in SECOND_RUN_FILES) != second_run):
            continue
        target = landing_root / file.parent.relative_to(SAMPLE_LANDING)
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, target / file.name)


def run_killed(dbt: Dbt, schema: str, landing_root: Path, model: str, delay: float) -> str:
    """Starts dbt with Spark in its process, on the Connect server's warehouse and metastore
    service, and kills its process tree `delay` seconds after `model` starts; its output."""
    command, env = dbt.invocation(
        *MODELS, schema=schema, landing_root=landing_root, in_process_beside_server=True
    )
    process = subprocess.Popen(
        command,
        cwd=PROJECT_DIR,
        env=env | {"PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    output: list[str] = []
    killer: threading.Timer | None = None
    for line in process.stdout:
        output.append(line)
        if killer is None and " START " in line and f".{model} " in line:
            killer = threading.Timer(delay, os.killpg, (process.pid, signal.SIGKILL))
            killer.start()
    process.wait()
    assert killer is not None, f"dbt never started {model}:\n" + "".join(output[-40:])
    killer.join()
    return "".join(output)


def test_reruns_after_kill_9_equal_an_uninterrupted_run(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    """Every run but the killed ones goes through the session's Spark Connect server: the
    uninterrupted reference's two runs, the first run of the schema that is killed, and the
    plain rerun after the kills. The killed runs run Spark in the dbt process, which kill -9
    takes down with its Spark, on the server's warehouse and Hive metastore service (a cold
    JVM per run costs minutes of a two-core machine; the kills need one each)."""
    reference, killed = "it_kill_reference", "it_kill_rerun"
    for second_run in (False, True):
        land(tmp_path / reference, second_run=second_run)
        dbt.run(*MODELS, schema=reference, landing_root=tmp_path / reference)
    land(tmp_path / killed, second_run=False)
    dbt.run(*MODELS, schema=killed, landing_root=tmp_path / killed)
    land(tmp_path / killed, second_run=True)

    left: list[str] = []
    for model, delay in KILL_POINTS:
        output = run_killed(dbt, killed, tmp_path / killed, model, delay)
        assert "Completed successfully" not in output, f"the run killed at {model} finished first"
        if model == "int_changes_checked":
            # staging is done and no current-state table has run: the files of writes killed later
            left = leave_killed_writes(spark, killed)
    dbt.run(*MODELS, schema=killed, landing_root=tmp_path / killed)
    after_kills = compared_rows(spark, killed)
    uninterrupted = compared_rows(spark, reference)
    for table, rows in uninterrupted.items():
        assert rows, f"{table} holds rows in the uninterrupted run"
        assert after_kills[table] == rows, f"{table} after kills and a rerun (files left in {left})"

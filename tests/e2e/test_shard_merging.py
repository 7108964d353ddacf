"""Shard merging: several source tables into one current-state table.

Paimon's KafkaCanalSyncTableActionITCase.testCDCOperations syncs its four Canal event files
(tables event, schema_evolution_1 and schema_evolution_2 of paimon_sync_table) into one table
keyed by _id, in the order row, insert, update, delete. Landed here as Kafka records in that
order, into a target that lists `event` and names the two others by a pattern
(paimon_sync_table__cdc_operations), the current state is the one that test asserts (with
deletes applied). Keys 1 and 2 come from two source tables each: decided by version, and
reported by the cdc_keys_from_one_source test as a warning.

The same four files with their database renamed paimon_shards feed a target with the source
table in its key (paimon_shards__by_source): each source table keeps its own rows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from conftest import SHARED_DIR, Dbt, corpus_messages, land_kafka_records, table_rows

SCHEMA = "it_shards"
CANAL_CORPUS = SHARED_DIR / "corpus" / "canal-json"
EVENT_FILES = [
    "paimon-canal-event-row.txt",
    "paimon-canal-event-insert.txt",
    "paimon-canal-event-update.txt",
    "paimon-canal-event-delete.txt",
]
COLUMNS = ["pt", "_id", "v1", "v2", "v3", "hex(v4)", "v5"]


@pytest.fixture(scope="module")
def shards_build(dbt: Dbt, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    landing_root = Path(tmp_path_factory.mktemp("shards")) / "landing"
    messages = [message for file_name in EVENT_FILES for message in corpus_messages(CANAL_CORPUS / file_name)]
    renamed = [
        message.replace('"database":"paimon_sync_table"', '"database":"paimon_shards"')
        for message in messages
    ]
    assert all('"database":"paimon_shards"' in message for message in renamed)
    land_kafka_records(
        landing_root,
        "canal_json/kafka_records",
        "paimon_events.parquet",
        "paimon_events",
        [(None, message) for message in messages + renamed],
    )
    result = dbt.run(
        "build",
        "--exclude",
        "test_type:unit",
        schema=SCHEMA,
        landing_root=landing_root,
        extra_vars={"cdc_shard_targets": True},
    )
    return SCHEMA, result.stdout


def test_merged_shards_decided_by_version(spark: SparkSession, shards_build: tuple[str, str]) -> None:
    schema, _ = shards_build
    # testCDCOperations (ignore-delete = false) after event-delete.txt
    assert table_rows(spark, schema, "paimon_sync_table__cdc_operations", COLUMNS, ["_id"]) == [
        ("1", "2", "second", None, None, None, None),
        ("2", "4", "four", None, None, None, None),
        ("1", "9", "nine", "90000000000", "99999.999", b"nine.bin".hex().upper(), "9.9"),
    ]


def test_keys_from_two_sources_are_reported(shards_build: tuple[str, str]) -> None:
    _, stdout = shards_build
    # _id 1: inserted by event, deleted by schema_evolution_1; _id 2: inserted by event, updated by schema_evolution_2
    warnings = [line for line in stdout.splitlines() if " WARN " in line]
    assert any(
        "WARN 2 cdc_keys_from_one_source_paimon_sync_table__cdc_operations_" in line for line in warnings
    ), warnings


def test_source_in_key_keeps_each_shard_apart(spark: SparkSession, shards_build: tuple[str, str]) -> None:
    schema, _ = shards_build
    columns = ["_cdc_source_table", "pt", "_id", "v1"]
    assert table_rows(spark, schema, "paimon_shards__by_source", columns, ["_cdc_source_table", "_id"]) == [
        ("paimon_shards.event", "1", "1", "one"),
        ("paimon_shards.event", "1", "2", "two"),
        ("paimon_shards.event", "2", "4", "four"),
        ("paimon_shards.schema_evolution_1", "1", "9", "nine"),
        ("paimon_shards.schema_evolution_2", "1", "2", "second"),
    ]

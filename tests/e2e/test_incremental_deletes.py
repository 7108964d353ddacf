"""Deletes in a later run: rows that an earlier run made current disappear from the
current-state table (a delta of tombstones over the base), an older insert arriving later
stays deleted, and a later insert comes back on its own."""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import SparkSession

from conftest import CORPUS_TARGETS, Dbt, land_debezium_lines, mysql_change, table_rows

SCHEMA = "it_deletes"
MODELS = ["run", "--select", "+test__test"]


def change(op: str, row_id: int, position: int, value: str | None = None) -> str:
    """A bare Debezium MySQL change of test.test."""
    return json.dumps(mysql_change(op, "test", "test", {"id": row_id, "value": value}, position))


def test_rows_deleted_by_a_later_run_leave_the_current_state(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"

    land_debezium_lines(
        landing_root, "run-1.jsonl", [change("c", row_id, 10 * row_id, f"v{row_id}") for row_id in (1, 2, 3)]
    )
    dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == [
        ("1", "v1"),
        ("2", "v2"),
        ("3", "v3"),
    ]

    land_debezium_lines(
        landing_root, "run-2.jsonl", [change("d", row_id, 100 + row_id) for row_id in (1, 2, 3)]
    )
    dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == []

    land_debezium_lines(
        landing_root, "run-3.jsonl", [change("c", 4, 200, "v4"), change("c", 1, 5, "too old")]
    )
    dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == [("4", "v4")]

"""A source table name that two databases share: test.test is a current-state table's,
other.test is no table's. Their changes share a staging partition (the table name), and each
run's staging notes which source tables it staged (cdc_note_staged_sources), so that the
table plans its run from that note instead of probing the partition. A run's truncation of
test.test is applied; a later run that staged only other.test's changes leaves the table as it
was ("no new changes"); every change of other.test is logged as unknown_table."""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import SparkSession

from conftest import CORPUS_TARGETS, Dbt, land_debezium_lines, mysql_change, rows_as_text, table_rows

SCHEMA = "it_shared_names"
MODELS = ["run", "--select", "+test__test", "+int_change_rejections_logged"]


def change(op: str, database: str, row_id: int, position: int) -> str:
    """A bare Debezium MySQL change of <database>.test."""
    return json.dumps(mysql_change(op, database, "test", {"id": row_id, "value": f"v{row_id}"}, position))


def truncation(database: str, position: int) -> str:
    """A Debezium MySQL truncation of <database>.test: no row image."""
    message = mysql_change("c", database, "test", {}, position)
    return json.dumps(message | {"op": "t", "after": None})


def table_output_line(stdout: str) -> str:
    return next(
        line
        for line in stdout.splitlines()
        if "model " + SCHEMA + "_marts.test__test " in line and " OK " in line
    )


def test_changes_of_another_database_leave_the_table_alone(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"

    land_debezium_lines(
        landing_root,
        "run-1.jsonl",
        [change("c", "test", 1, 10), change("c", "test", 2, 20), change("c", "other", 7, 30)],
    )
    dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == [("1", "v1"), ("2", "v2")]

    # the table plans from staging's note: the truncation there is the table's own, and removes
    # the rows before it, those of this run's changes too
    land_debezium_lines(
        landing_root,
        "run-2.jsonl",
        [
            change("c", "test", 4, 35),
            truncation("test", 40),
            change("c", "test", 3, 50),
            change("c", "other", 8, 60),
        ],
    )
    dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == [("3", "v3")]

    # staging's note holds only other.test: the table has nothing new
    land_debezium_lines(landing_root, "run-3.jsonl", [change("c", "other", 9, 70)])
    third = dbt.run(*MODELS, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    assert "no new changes" in table_output_line(third.stdout)
    assert table_rows(spark, SCHEMA, "test__test", ["id", "value"], ["id"]) == [("3", "v3")]

    spark.sql(f"refresh table {SCHEMA}_intermediate.int_changes_checked")
    assert rows_as_text(
        spark,
        f"select source_database, rejection_reason, count(*) as changes"
        f" from {SCHEMA}_intermediate.int_change_rejections_logged group by 1, 2 order by 1, 2",
    ) == [("other", "unknown_table", "3")]

"""A staging table whose columns are no longer the staging contract's (here one column more,
as a table staged by another version of the project might have) stops the staging model's
next run before it writes anything, and says what differs and how to rebuild the table."""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import SparkSession

from conftest import Dbt, land_debezium_lines, mysql_change

SCHEMA = "it_contract_drift"
STAGING = f"{SCHEMA}_staging.stg_debezium__records"


def land(landing_root: Path, name: str, row_id: int) -> None:
    change = mysql_change("c", "shop", "items", {"id": row_id}, 10 * row_id)
    land_debezium_lines(landing_root, name, [json.dumps(change)])


def test_a_staging_table_with_other_columns_stops_the_run(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"
    land(landing_root, "run-1.jsonl", 1)
    dbt.run("run", "--select", "stg_debezium__records", schema=SCHEMA, landing_root=landing_root)

    spark.sql(f"alter table {STAGING} add columns (staged_by_another_version string)")
    land(landing_root, "run-2.jsonl", 2)
    result = dbt.run(
        "run", "--select", "stg_debezium__records", schema=SCHEMA, landing_root=landing_root, check=False
    )

    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"table {STAGING} no longer has the columns of model stg_debezium__records" in output
    assert "staged_by_another_version (string in the table, none in the model)" in output
    assert "Rebuild it: dbt run --full-refresh --select stg_debezium__records" in output
    spark.sql(f"refresh table {STAGING}")
    assert spark.sql(f"select count(*) from {STAGING}").first()[0] == 1

"""Declared names are never SQL text: a current-state table whose columns (its key too) are
named with a space, a dash, a quote, a backtick and a semicolon builds, folds and passes its
tests. The table is declared in a copy of the project, so no fixture lives in models/.

Its double and decimal columns also carry a schemaless VariableScaleDecimal ({scale, value}),
as Debezium writes a Postgres numeric without a schema: both the table and the log of checked
changes decode it (one that read the object as text would find no number in it:
uncastable_value)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from conftest import Dbt, copy_project, mysql_change, rows_as_text

SCHEMA = "it_odd_names"
ODD_NAMES = ["order id", "unit-price", "it's", "back`tick", "semi;colon", "drop table x; --", "var-scale"]

MART_YAML = {
    "version": 2,
    "models": [
        {
            "name": "odd__names",
            "description": "A table whose column names need quoting.",
            "data_tests": ["cdc_one_row_per_key"],
            "config": {
                "meta": {"cdc": {"source": {"database": "odd", "table": "names"}, "keys": ["order id"]}}
            },
            "columns": [
                {"name": "order id", "data_type": "int"},
                {"name": "unit-price", "data_type": "decimal(10,2)"},
                {"name": "it's", "data_type": "string"},
                {"name": "back`tick", "data_type": "string"},
                {"name": "semi;colon", "data_type": "string"},
                {"name": "drop table x; --", "data_type": "string"},
                {"name": "var-scale", "data_type": "double"},
                {"name": "_cdc"},
            ],
        }
    ],
}


def change(op: str, key: int, position: int, values: dict[str, object] | None) -> str:
    return json.dumps(mysql_change(op, "odd", "names", {"order id": key, **(values or {})}, position))


@pytest.fixture(scope="module")
def odd_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with one more current-state table, declared with odd names."""
    project = copy_project(tmp_path_factory.mktemp("odd_names") / "project")
    marts = project / "models" / "marts" / "odd"
    marts.mkdir(parents=True)
    (marts / "_odd__models.yml").write_text(json.dumps(MART_YAML))
    (marts / "odd__names.sql").write_text("{{ cdc_current_state() }}\n")
    return project


def test_odd_names_build_fold_and_pass_their_tests(
    dbt: Dbt, spark: SparkSession, odd_project: Path, tmp_path: Path
) -> None:
    landing = tmp_path / "landing"
    folder = landing / "debezium" / "json_lines"
    folder.mkdir(parents=True)
    first = {
        "unit-price": 12.5,
        "it's": "a'b",
        "back`tick": "c`d",
        "semi;colon": "e;f",
        "drop table x; --": "g",
        # 12345 (base64 MDk=, two bytes) at scale 2, as Debezium writes a Postgres numeric without a schema
        "var-scale": {"scale": 2, "value": "MDk="},
    }
    (folder / "odd-0001.jsonl").write_text(
        "\n".join(
            [
                change("c", 1, 10, first),
                change("c", 2, 20, {**first, "it's": "two"}),
                # 725 at scale 2, schemaless, in a decimal column
                change("u", 1, 30, {"unit-price": {"scale": 2, "value": "AtU="}, "it's": "updated"}),
                change("d", 2, 40, None),
            ]
        )
        + "\n"
    )
    selection = [
        "build",
        "--select",
        "+odd__names",
        "+int_quarantined_records_logged",
        "--exclude",
        "test_type:unit",
        "same_sequence_changes_agree",
    ]
    dbt.run(*selection, schema=SCHEMA, landing_root=landing, project_dir=odd_project)

    columns = ", ".join(f"`{name.replace('`', '``')}`" for name in ODD_NAMES)
    spark.sql(f"refresh table {SCHEMA}_marts.odd__names")
    assert rows_as_text(spark, f"select {columns} from {SCHEMA}_marts.odd__names") == [
        ("1", "7.25", "updated", "c`d", "e;f", "g", "123.45")
    ], "key 2 deleted; key 1 updated in the two columns its image carries, the others kept"
    assert spark.sql(f"select * from {SCHEMA}_intermediate.int_change_rejections_logged").collect() == [], (
        "the log of checked changes typed the schemaless decimal as the table did"
    )

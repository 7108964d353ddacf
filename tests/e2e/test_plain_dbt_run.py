"""The main job as the README's users run it: a plain `dbt run` (which loads no seeds) on a
fresh state, again with nothing new, then `dbt seed`. The reference data that the logs join is
loaded by the run's own hook, from the seed's CSV, exactly as `dbt seed` loads it. A seed loaded
from the same CSV is not loaded again; one whose recorded CSV differs is."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

from pyspark.sql import SparkSession

from conftest import PROJECT_DIR, SAMPLE_LANDING, Dbt, rows_as_text

SCHEMA = "it_plain_run"
REASONS_CSV = PROJECT_DIR / "seeds" / "cdc_outcome_reasons.csv"


# the current-state tables of the sample (models/marts)
CURRENT_STATE = [
    "billing__mio_log",
    "cdl__ct_pg2hudi",
    "crm__contacts",
    "hr__employees",
    "payments__transactions",
    "shop__cart_items",
    "shop__customers",
    "shop__orders",
    "shop__products",
    "tpch__nation",
    "tpch__region",
]


def queries_and_messages(json_log: str) -> tuple[Counter[str], dict[str, str]]:
    """From dbt's JSON log at debug level: the SQL statements each model ran, and the message of its result."""
    queries: Counter[str] = Counter()
    messages: dict[str, str] = {}
    for line in json_log.splitlines():
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        node = event["data"].get("node_info") or {}
        name = node.get("unique_id", "").split(".")[-1]
        if event["info"]["name"] == "SQLQuery" and node.get("resource_type") == "model":
            queries[name] += 1
        if event["info"]["name"] == "LogModelResult":
            messages[name] = event["data"]["status"]
    return queries, messages


def seed_result(json_log: str) -> str:
    """From dbt's JSON log: the result message of the run's one seed (INSERT 31, unchanged)."""
    messages = [
        event["data"]["result_message"]
        for event in (json.loads(line) for line in json_log.splitlines() if line.startswith("{"))
        if event["info"]["name"] == "LogSeedResult"
    ]
    assert len(messages) == 1, messages
    return messages[0]


def loaded_reasons(spark: SparkSession) -> list[tuple[str | None, ...]]:
    spark.sql(f"refresh table {SCHEMA}_reference.cdc_outcome_reasons")
    return sorted(rows_as_text(spark, f"select * from {SCHEMA}_reference.cdc_outcome_reasons"), key=str)


def test_plain_dbt_run_on_a_fresh_state_loads_the_reference_data(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    schemas = [row[0] for row in spark.sql("show schemas").collect() if row[0].startswith(SCHEMA)]
    assert schemas == [], f"the state is not fresh: {schemas}"
    with REASONS_CSV.open(newline="") as file:
        _, *rows = list(csv.reader(file))
    expected = sorted((tuple(row) for row in rows), key=str)

    dbt.run("run", schema=SCHEMA, landing_root=landing_root)
    assert loaded_reasons(spark) == expected, "the seed is loaded, every field exact"
    assert rows_as_text(
        spark,
        f"select reason_code, count(*), count(reason_description)"
        f" from {SCHEMA}_intermediate.int_quarantined_records_logged"
        " where reason_code = 'invalid_cursor' group by reason_code",
    ) == [("invalid_cursor", "4", "4")], "the quarantine log joins the reference data"

    dbt.run("run", schema=SCHEMA, landing_root=landing_root)
    before = {
        table: sorted(rows_as_text(spark, f"select * from {SCHEMA}_marts.{table}"), key=str)
        for table in CURRENT_STATE
    }

    # nothing landed, and every table has recorded what it has seen: no model runs a query
    third = dbt.run(
        "--log-format", "json", "--log-level", "debug", "run", schema=SCHEMA, landing_root=landing_root
    )
    queries, messages = queries_and_messages(third.stdout)
    assert queries["int_control_records_logged"] >= 1, (
        "the control log's view is made again: queries are counted"
    )
    idle = [
        name
        for name in messages
        if name.startswith("stg_") or name in CURRENT_STATE or name == "int_changes_checked"
    ]
    assert len(idle) == 9 + len(CURRENT_STATE) + 1, f"every staging model and table ran: {sorted(messages)}"
    assert {name: queries[name] for name in idle if queries[name]} == {}, (
        "a model with nothing new ran no query"
    )
    assert {
        name: messages[name] for name in idle if messages[name] not in ("nothing new", "no new changes")
    } == {}
    for table in CURRENT_STATE:
        assert (
            sorted(rows_as_text(spark, f"select * from {SCHEMA}_marts.{table}"), key=str) == before[table]
        ), table

    seeded = dbt.run("--log-format", "json", "seed", schema=SCHEMA, landing_root=landing_root)
    assert seed_result(seeded.stdout) == f"INSERT {len(expected)}", (
        "dbt seed replaces the table the hook made"
    )
    assert loaded_reasons(spark) == expected

    # loaded from this CSV: left as it is; recorded as loaded from another: loaded again
    again = dbt.run("--log-format", "json", "seed", schema=SCHEMA, landing_root=landing_root)
    assert seed_result(again.stdout) == "unchanged"
    reasons = f"{SCHEMA}_reference.cdc_outcome_reasons"
    spark.sql(f"alter table {reasons} set tblproperties ('cdc.seed_md5' = 'an older csv')")
    spark.sql(f"insert into {reasons} values ('not_a_reason', 'control', 'x', 'y')")
    changed = dbt.run("--log-format", "json", "seed", schema=SCHEMA, landing_root=landing_root)
    assert seed_result(changed.stdout) == f"INSERT {len(expected)}"
    assert loaded_reasons(spark) == expected, "the reload replaces every row"

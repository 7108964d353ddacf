"""The main job: `dbt build` (models and data tests; the unit tests run in test_dbt_unit_tests)
over the bundled sample landing data of every flavour, then the current state, quarantine and
control log row by row. The expected rows are worked out in sample_data/README.md. Then the
lineage site over that build, and the same project on a standalone cluster (bin/cluster): its
build through the `cluster` profile against the embedded one, Spark Connect on it, and the
python_udfs helpers through its Thrift server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from cdc_udfs.registration import register_helpers
from dbt_cdc_udfs.small_runs import QUICK_JIT_OPTIONS

from conftest import (
    PROJECT_DIR,
    SAMPLE_LANDING,
    Dbt,
    classic_spark_environment,
    history_tables,
    project_build,
    rows_as_text,
    staging_models,
    table_rows,
    target_dir,
    text_cast_query,
)

SCHEMA = "it_sample"
CDC = ["_cdc.operation", "_cdc.change_sequence", "_cdc.commit_timestamp"]


@pytest.fixture(scope="module")
def sample_build(dbt: Dbt, tmp_path_factory: pytest.TempPathFactory) -> str:
    landing_root = tmp_path_factory.mktemp("sample") / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    result = dbt.run("build", "--exclude", "test_type:unit", schema=SCHEMA, landing_root=Path(landing_root))
    assert "WARN 19 cdc_quarantine_is_small" in result.stdout, "the 19 bad sample records warn"
    assert "WARN 1 cdc_columns_declared_payments__transactions" in result.stdout, (
        "the column the Parquet export added (channel), which the YAML does not declare, is reported"
    )
    assert (
        "Current-state table shop__orders: 1 change(s) of this run rejected (uncastable_value,"
        " in int_change_rejections_logged): customer_id (string, declared int)."
        in " ".join(result.stdout.split())
    ), "the run names the table whose YAML may need a new type"
    return SCHEMA


def test_customers_apply_binlog_order_across_files_and_ignore_the_late_event(
    spark: SparkSession, sample_build: str
) -> None:
    columns = ["id", "email", "full_name", "tier", "credit_limit", "created_at", "birth_date", *CDC]
    assert table_rows(spark, sample_build, "shop__customers", columns, ["id"]) == [
        (
            "1",
            "alice.martin-lopez@example.com",
            "Alice Martin-Lopez",
            "silver",
            "2500.00",
            "2022-11-07 08:15:30",
            "1988-04-12",
            "update",
            "[10, 154, 0]",
            "2024-03-01 10:02:15",
        ),
        (
            "2",
            "bob.chen@example.com",
            "Bob Chen",
            "gold",
            "5000.00",
            "2023-02-14 17:42:05",
            "1991-09-23",
            "update",
            "[9, 3000, 0]",
            "2024-03-01 09:25:00",
        ),
        (
            "4",
            "dmitri.ivanov@example.com",
            "Dmitri Ivanov",
            "bronze",
            "-12.50",
            "2024-03-01 09:12:44",
            "1979-07-30",
            "update",
            "[9, 3500, 0]",
            "2024-03-01 09:31:10",
        ),
    ]


def test_orders_decode_decimals_timestamps_and_keep_unavailable_values(
    spark: SparkSession, sample_build: str
) -> None:
    columns = ["id", "customer_id", "amount", "status", "note", "ordered_at", "updated_at", *CDC]
    assert table_rows(spark, sample_build, "shop__orders", columns, ["id"]) == [
        (
            "1002",
            "2",
            "89.50",
            "paid",
            "Gift wrap please. Card text: Happy birthday, Mei! Love from all of us at the Lisbon office."
            " Deliver between 9:00 and 12:00; the reception closes for lunch.",
            "2024-02-29 11:05:33.00025",
            "2024-03-01 09:15:00.25",
            "update",
            "[24023600, 24023752]",
            "2024-03-01 09:15:00.25",
        ),
        (
            "1003",
            "4",
            "123456789012345678.99",
            "shipped",
            "Bulk order: quote Q-2024-0117, net 60 terms.",
            "2024-03-01 09:14:01.884512",
            "2024-03-01 10:05:47.93",
            "update",
            "[24024240, 24024304]",
            "2024-03-01 10:05:47.93",
        ),
        (
            "1004",
            "2",
            "-45.10",
            "refunded",
            "Credit note for the damaged gift box of order 1002.",
            "2024-03-01 09:20:11.402",
            "2024-03-01 09:20:11.402",
            "insert",
            "[24024000, 24024136]",
            "2024-03-01 09:20:11.402",
        ),
    ]


def test_truncate_removes_older_rows_of_the_table(spark: SparkSession, sample_build: str) -> None:
    columns = ["cart_id", "sku", "quantity", *CDC]
    assert table_rows(spark, sample_build, "shop__cart_items", columns, ["cart_id", "sku"]) == [
        ("2", "C", "5", "insert", "[24031800, 24031936]", "2024-03-01 09:47:30"),
    ]


def test_arcion_snapshot_updates_deletes_and_key_update(spark: SparkSession, sample_build: str) -> None:
    columns = ["r_regionkey", "r_name", *CDC]
    assert table_rows(spark, sample_build, "tpch__region", columns, ["r_regionkey"]) == [
        ("0", "AFRICA", "snapshot", "[0, 0, 0]", None),
        ("1", "AMERICA", "update", "[13, 53709, 1]", "2024-03-01 09:22:40"),
        ("3", "EUROPE", "snapshot", "[0, 0, 0]", None),
        ("10", "OCEANIA", "insert", "[13, 30407, 1]", "2024-03-01 09:10:05"),
        ("40", "MIDDLE EAST", "insert", "[13, 61822, 1]", "2024-03-01 09:48:02"),
    ]
    comments = table_rows(spark, sample_build, "tpch__region", ["r_comment"], ["r_regionkey"])
    assert comments[1] == ("north, central and south america",)


def test_mrs_cdl_both_versions_and_key_change(spark: SparkSession, sample_build: str) -> None:
    columns = ["count1", "id", "time1", "decimalNum", *CDC]
    assert table_rows(spark, sample_build, "cdl__ct_pg2hudi", columns, ["id"]) == [
        (
            "15",
            "36",
            "2024-02-04 12:14:51.235",
            "3.14",
            "update",
            "[163955587456, 163955587456]",
            "2024-02-04 12:18:22.514",
        ),
        ("13", "340", None, None, "update", "[163955222560, 163955222560]", "2024-02-04 12:07:35.902"),
    ]


def test_dts_canal_products_by_operation_id(spark: SparkSession, sample_build: str) -> None:
    """Multi-row messages, a key change (4 -> 5), a delete, a redelivered and a late message
    (ordered by DTS's operation id), each value typed from Canal's text."""
    columns = ["id", "sku", "name", "price", "stock", "active", "updated_at", "hex(thumbnail)", *CDC]
    assert table_rows(spark, sample_build, "shop__products", columns, ["id"]) == [
        (
            "1",
            "PEN-1",
            "Pen",
            "1.75",
            "120",
            "true",
            "2026-11-03 08:00:00",
            "FFD8",
            "update",
            "[102]",
            "2026-11-03 08:00:00",
        ),
        (
            "3",
            "PAD-3",
            "Notebook",
            "2.00",
            "40",
            "true",
            "2026-11-02 10:15:30.25",
            None,
            "update",
            "[102]",
            "2026-11-03 08:00:00",
        ),
        (
            "5",
            "CLIP-4",
            "Clips",
            "0.99",
            "500",
            "false",
            "2026-11-02 10:15:30.25",
            None,
            "update",
            "[103]",
            "2026-11-03 08:05:00",
        ),
    ]


def test_dts_shareplex_partial_updates_key_change_and_truncate(
    spark: SparkSession, sample_build: str
) -> None:
    """Updates carry only the columns they change; a key change (32539738 -> 32539740) moves
    the whole row; the truncate removes the older 32539736; a delete, a redelivered and a late
    message; (scn, trans, seq) orders, trans parts as numbers (7.10 after 7.9); UPDATE BEFORE is
    logged and UPDATE AFTER applied."""
    columns = [
        "MIO_LOG_ID",
        "PLNMIO_REC_ID",
        "POL_CODE",
        "CNTR_TYPE",
        "CNTR_NO",
        "MIO_AMNT",
        "MIO_DATE",
        "CG_NO",
        *CDC,
    ]
    assert table_rows(spark, sample_build, "billing__mio_log", columns, ["MIO_LOG_ID"]) == [
        (
            "32539737",
            "31557806",
            "P-10",
            "A",
            "1171201606",
            "1200.00",
            "2024-05-06 09:30:00",
            None,
            "update",
            "[14589063119000, 7, 10, 411561, 1]",
            "2024-05-06 10:30:00",
        ),
        (
            "32539740",
            "31557806",
            "P-1",
            "B",
            "1171201606syui26",
            "275.50",
            "2024-05-06 09:31:00",
            None,
            "update",
            "[14589063119100, 7, 11, 411570, 2]",
            "2024-05-06 11:00:00",
        ),
        (
            "32539741",
            "31557808",
            "P-3",
            "C",
            "1171201608",
            "-19.99",
            "2024-05-07 10:00:00.5",
            None,
            "insert",
            "[14589063119200, 7, 12, 411580, 1]",
            "2024-05-07 10:00:01",
        ),
    ]


def test_dts_avro_contacts_every_union_branch_charsets_and_a_key_change(
    spark: SparkSession, sample_build: str
) -> None:
    """DTS Avro from Kafka records and an SDK binary file: each union branch typed to its
    declared column (gbk and latin1 text, an unsigned BIGINT, a zoned timestamp in UTC, MySQL
    geometry as GeoJSON); an EmptyObject NONE leaves nickname as it was (1 keeps 'ally'; the key
    change 2 -> 20 moves the whole row with it), EmptyObject NULL makes bio null; 4 is inserted
    then deleted; the redelivered record 105 changes nothing; the record id orders."""
    columns = [
        "id",
        "full_name",
        "name_gbk",
        "city",
        "balance",
        "score",
        "created_at",
        "birth_date",
        "wake_time",
        "updated_at",
        "signup_year",
        "last_login_at",
        "photo",
        "bio",
        "home_wkt",
        "home",
        "nickname",
        "visits",
        *CDC,
    ]
    same_in_both = (
        "0.1",
        "2024-03-01 08:00:00.123456",
        "1990-02-28",
        "06:30:05.250000",
        "2024-03-01 08:59:59.999999",
        "2019",
        "2024-03-01 09:00:00",
        "000102FEFF",
    )
    home = ("POINT(8.54 47.37)", '{"coordinates":[8.54,47.37],"type":"Point","srid":4326}')
    rows = table_rows(spark, sample_build, "crm__contacts", columns, ["id"])
    assert rows == [
        (
            "1",
            "Zoë Lefèvre 1",
            "张伟",
            "Zürich",
            "250.75",
            *same_in_both,
            None,
            *home,
            "ally",
            "18446744073709551615",
            "update",
            "[105]",
            "2024-03-01 09:00:05",
        ),
        (
            "20",
            "Zoë Lefèvre 20",
            "张伟",
            "Göteborg",
            "100.50",
            *same_in_both,
            'Likes "quotes", commas, and\nnew lines',
            *home,
            "bobby",
            "18446744073709551615",
            "update",
            "[108]",
            "2024-03-01 09:00:08",
        ),
    ]


def test_arcion_internal_csv_snapshot_partial_updates_key_change_and_quoting(
    spark: SparkSession, sample_build: str
) -> None:
    """Arcion internal CSV: snapshot rows (one file with a header in another column order, one
    CRLF file without) then realtime triplets. An update carries only its SET columns (1's dept,
    4's null note), the late salary update of 1 loses to the newer one, 2 -> 20 moves the whole
    row, 3 is deleted then inserted again, the redelivered line changes nothing; quoted commas,
    quotes, line breaks and the text "NULL" come out exactly (5's name and note)."""
    columns = ["emp_id", "full_name", "dept", "salary", "hired_on", "note", *CDC]
    assert table_rows(spark, sample_build, "hr__employees", columns, ["emp_id"]) == [
        (
            "1",
            "Ada Lovelace",
            "Finance",
            "5600.00",
            "2019-04-01",
            'Prefers "Ada", not "Augusta"',
            "update",
            "[1, 1709545873905, 40, 1]",
            "2024-03-04 14:02:10",
        ),
        (
            "3",
            "Alan Turing",
            "Research",
            "6000.00",
            "2024-03-11",
            "Rehired, keeps badge 118",
            "insert",
            "[1, 1709545873905, 80, 1]",
            "2024-03-04 14:30:00",
        ),
        (
            "4",
            "Katherine Johnson",
            "Research",
            "4900.00",
            "2021-06-14",
            None,
            "update",
            "[1, 1709545873904, 1200, 1]",
            "2024-03-04 10:20:00",
        ),
        (
            "5",
            "NULL",
            "Operations",
            "4500.50",
            None,
            "NULL",
            "update",
            "[1, 1709545873905, 120, 1]",
            "2024-03-04 15:00:00",
        ),
        (
            "6",
            "Barbara Liskov",
            "Engineering",
            "5900.00",
            "2024-03-04",
            "Starts Monday, badge pending",
            "insert",
            "[1, 1709545873904, 1000, 1]",
            "2024-03-04 10:05:00.25",
        ),
        (
            "20",
            "Hopper, Grace",
            "Engineering",
            "6100.00",
            "2018-09-17",
            "Mentor for new hires.\nAsk her about COBOL.",
            "update",
            "[1, 1709545873904, 1300, 1]",
            "2024-03-04 10:31:15.125",
        ),
    ]


def test_arcion_internal_json_exists_flags_and_binlog_rollover(
    spark: SparkSession, sample_build: str
) -> None:
    """Arcion internal JSON: columns flagged 0 keep their values, "null" flagged 1 is a null (3's
    comment), 4 -> 40 moves the whole row, 1 is deleted, the late update of 2 in log-bin.000009
    loses to log-bin.000010 whatever its position, the redelivered line changes nothing."""
    columns = ["n_nationkey", "n_name", "n_regionkey", "n_comment", *CDC]
    assert table_rows(spark, sample_build, "tpch__nation", columns, ["n_nationkey"]) == [
        (
            "2",
            "BRAZIL",
            "1",
            "pending deposits cleared by the new Sao Paulo trade desk",
            "update",
            "[1, 10, 154, 1]",
            "2024-03-05 08:31:40",
        ),
        ("3", "CANADA", "1", None, "update", "[1, 10, 612, 1]", "2024-03-05 08:45:12"),
        (
            "40",
            "EGYPT",
            "4",
            "y above the carefully unusual theodolites. final dugouts are quickly across the furiously regular d",
            "update",
            "[1, 10, 1038, 1]",
            "2024-03-05 09:02:27",
        ),
    ]


def test_parquet_export_hours_late_files_and_column_drift(spark: SparkSession, sample_build: str) -> None:
    """Hourly Parquet export: 5 exists from its first event, an UPDATE; 3 is deleted by a row null
    but for its id; duplicates (same content, same or new sequence) change nothing; memo, gone
    from hour 11's file, keeps its value for 1 (absent, not null) and is null for 6, inserted
    there; the late hour-10 file updates 2, and its older update of 4 loses; the amount "twelve"
    of hour 12 is rejected (4 keeps its state) while "7.25" as text types (6)."""
    columns = ["id", "account", "amount", "currency", "status", "memo", "updated_at", *CDC]
    assert table_rows(spark, sample_build, "payments__transactions", columns, ["id"]) == [
        (
            "1",
            "ACC-1001",
            "250.00",
            "EUR",
            "settled",
            "Invoice 2024-0117",
            "2024-03-01 11:15:00",
            "update",
            "[0, 0, 4310201]",
            "2024-03-01 11:15:00.25",
        ),
        (
            "2",
            "ACC-1002",
            "1150.50",
            "USD",
            "authorized",
            "Rent, March (corrected)",
            "2024-03-01 10:40:00",
            "update",
            "[0, 0, 4310150]",
            "2024-03-01 10:40:00.25",
        ),
        (
            "4",
            "ACC-1004",
            "-19.99",
            "GBP",
            "pending",
            "Refund for order 5531",
            "2024-03-01 09:31:55",
            "update",
            "[0, 0, 4310104]",
            "2024-03-01 10:30:00.25",
        ),
        (
            "5",
            "ACC-1005",
            "9.99",
            "EUR",
            "settled",
            "Card top-up",
            "2024-03-01 09:47:30",
            "update",
            "[0, 0, 4310005]",
            "2024-03-01 09:47:30.25",
        ),
        (
            "6",
            "ACC-1006",
            "7.25",
            "EUR",
            "authorized",
            None,
            "2024-03-01 12:10:00",
            "update",
            "[0, 0, 4310302]",
            "2024-03-01 12:10:00.25",
        ),
    ]


VERSION = ["valid_from", "valid_to", "is_current", "_cdc.operation", "_cdc.change_sequence"]


def history_rows(
    spark: SparkSession, schema: str, table: str, columns: list[str], keys: list[str]
) -> list[tuple[str | None, ...]]:
    """Selected columns of a table's history (<table>_history), as text, in key and version order."""
    return rows_as_text(
        spark,
        f"select {', '.join(columns + VERSION)} from {schema}_marts.{table}_history"
        f" order by {', '.join(keys)}, valid_from, valid_to nulls last",
    )


def test_history_keeps_every_version(spark: SparkSession, sample_build: str) -> None:
    """meta.cdc.history: true. Payments: the late hour-10 file's update of 4 (sequence 4310050)
    lands between two versions it arrived after, and its update of 2 closes the version before;
    3's delete closes its only version; duplicates with the same or a new sequence open none.
    Products: an update before the insert (sequence 99) opens the first version of 3; 2 is
    deleted; the key change 4 -> 5 closes 4 and opens 5; the redelivered message adds nothing.
    Cart items: the truncation at 09:45 closes every open version; (2, C) comes after it."""
    assert history_rows(
        spark, sample_build, "payments__transactions", ["id", "status", "amount", "memo"], ["id"]
    ) == [
        (
            "1",
            "pending",
            "250.00",
            "Invoice 2024-0117",
            "2024-03-01 09:05:12.25",
            "2024-03-01 10:02:00.25",
            "false",
            "insert",
            "[0, 0, 4310001]",
        ),
        (
            "1",
            "authorized",
            "250.00",
            "Invoice 2024-0117",
            "2024-03-01 10:02:00.25",
            "2024-03-01 11:15:00.25",
            "false",
            "update",
            "[0, 0, 4310101]",
        ),
        (
            "1",
            "settled",
            "250.00",
            "Invoice 2024-0117",
            "2024-03-01 11:15:00.25",
            None,
            "true",
            "update",
            "[0, 0, 4310201]",
        ),
        (
            "2",
            "pending",
            "1200.50",
            "Rent, March",
            "2024-03-01 09:12:40.25",
            "2024-03-01 10:10:00.25",
            "false",
            "insert",
            "[0, 0, 4310002]",
        ),
        (
            "2",
            "pending",
            "1150.50",
            "Rent, March",
            "2024-03-01 10:10:00.25",
            "2024-03-01 10:40:00.25",
            "false",
            "update",
            "[0, 0, 4310102]",
        ),
        (
            "2",
            "authorized",
            "1150.50",
            "Rent, March (corrected)",
            "2024-03-01 10:40:00.25",
            None,
            "true",
            "update",
            "[0, 0, 4310150]",
        ),
        (
            "3",
            "pending",
            "75.00",
            None,
            "2024-03-01 09:20:03.25",
            "2024-03-01 10:20:00.25",
            "false",
            "insert",
            "[0, 0, 4310003]",
        ),
        (
            "4",
            "pending",
            "-19.99",
            "Refund for order 5531",
            "2024-03-01 09:31:55.25",
            "2024-03-01 10:00:30.25",
            "false",
            "insert",
            "[0, 0, 4310004]",
        ),
        (
            "4",
            "on_hold",
            "-19.99",
            "Refund for order 5531",
            "2024-03-01 10:00:30.25",
            "2024-03-01 10:30:00.25",
            "false",
            "update",
            "[0, 0, 4310050]",
        ),
        (
            "4",
            "pending",
            "-19.99",
            "Refund for order 5531",
            "2024-03-01 10:30:00.25",
            None,
            "true",
            "update",
            "[0, 0, 4310104]",
        ),
        (
            "5",
            "settled",
            "9.99",
            "Card top-up",
            "2024-03-01 09:47:30.25",
            None,
            "true",
            "update",
            "[0, 0, 4310005]",
        ),
        (
            "6",
            "pending",
            "7.00",
            None,
            "2024-03-01 11:42:10.25",
            "2024-03-01 12:10:00.25",
            "false",
            "insert",
            "[0, 0, 4310202]",
        ),
        (
            "6",
            "authorized",
            "7.25",
            None,
            "2024-03-01 12:10:00.25",
            None,
            "true",
            "update",
            "[0, 0, 4310302]",
        ),
    ]
    assert history_rows(spark, sample_build, "shop__products", ["id", "name", "price"], ["id"]) == [
        ("1", "Pen", "1.50", "2026-11-01 09:00:00", "2026-11-03 08:00:00", "false", "snapshot", "[100]"),
        ("1", "Pen", "1.75", "2026-11-03 08:00:00", None, "true", "update", "[102]"),
        ("2", "Ink", "4.25", "2026-11-01 09:00:00", "2026-11-03 08:20:00", "false", "snapshot", "[100]"),
        ("3", "Old pad", "2.00", "2026-11-02 10:00:00", "2026-11-02 10:15:30", "false", "update", "[99]"),
        ("3", "Notepad", "2.00", "2026-11-02 10:15:30", "2026-11-03 08:00:00", "false", "insert", "[101]"),
        ("3", "Notebook", "2.00", "2026-11-03 08:00:00", None, "true", "update", "[102]"),
        ("4", "Clips", "0.99", "2026-11-02 10:15:30", "2026-11-03 08:05:00", "false", "insert", "[101]"),
        ("5", "Clips", "0.99", "2026-11-03 08:05:00", None, "true", "update", "[103]"),
    ]
    assert history_rows(
        spark, sample_build, "shop__cart_items", ["cart_id", "sku", "quantity"], ["cart_id", "sku"]
    ) == [
        (
            "1",
            "A",
            "2",
            "2024-03-01 09:30:00",
            "2024-03-01 09:45:00",
            "false",
            "insert",
            "[24030920, 24031016]",
        ),
        (
            "1",
            "B",
            "1",
            "2024-03-01 09:30:00",
            "2024-03-01 09:45:00",
            "false",
            "insert",
            "[24030920, 24031184]",
        ),
        (
            "2",
            "A",
            "3",
            "2024-03-01 09:31:12",
            "2024-03-01 09:45:00",
            "false",
            "insert",
            "[24031300, 24031432]",
        ),
        ("2", "C", "5", "2024-03-01 09:47:30", None, "true", "insert", "[24031800, 24031936]"),
    ]


def test_quarantine_says_why(spark: SparkSession, sample_build: str) -> None:
    assert rows_as_text(
        spark,
        f"select reason_code, quarantined_at, reason_detail, element_at(split(landing_file, '/'), -1),"
        f" landing_position from {sample_build}_intermediate.int_quarantined_records_logged"
        " order by flavour, landing_file, landing_position",
    ) == [
        ("wrong_field_count", "staging", None, "realtime-0003-bad.csv", "1"),
        ("invalid_cursor", "staging", None, "realtime-0003-bad.csv", "2"),
        ("invalid_cursor", "staging", None, "realtime-0003-bad.csv", "3"),
        ("unknown_operation", "staging", None, "realtime-0003-bad.csv", "4"),
        ("invalid_csv", "staging", None, "realtime-0003-bad.csv", "5"),
        ("invalid_json", "staging", None, "nation-0002.jsonl", "3"),
        ("invalid_cursor", "staging", None, "nation-0002.jsonl", "4"),
        ("invalid_cursor", "staging", None, "nation-0002.jsonl", "5"),
        ("missing_source_table", "staging", None, "nation-0002.jsonl", "6"),
        ("unknown_operation", "staging", None, "nation-0002.jsonl", "7"),
        ("invalid_json", "staging", None, "orders-0003-bad.jsonl", "1"),
        ("unknown_operation", "staging", None, "orders-0003-bad.jsonl", "2"),
        ("unknown_table", "routing", "shop.public.audit_log", "orders-0003-bad.jsonl", "3"),
        ("uncastable_value", "routing", "customer_id (string, declared int)", "orders-0003-bad.jsonl", "4"),
        (
            "invalid_avro",
            "staging",
            "not a DTS Avro Record at byte 3053: EOFError: Expected 15 bytes, read 12"
            " (the record from byte 2779; the 274 bytes from there are kept)",
            "crm-0001.dtsavro",
            "5",
        ),
        (
            "invalid_avro",
            "staging",
            "Kafka schema: not a DTS Avro Record at byte 27: EOFError: Expected -56 bytes, read 23;"
            " SDK schema: not a DTS Avro Record at byte 27: EOFError: Expected -56 bytes, read 23",
            "dts.crm+0+0000000000.parquet",
            "7",
        ),
        (
            "undecodable_value",
            "staging",
            "column name_gbk: bytes are not gbk text (illegal multibyte sequence at byte 0)",
            "dts.crm+0+0000000000.parquet",
            "9",
        ),
        (
            "invalid_parquet",
            "staging",
            "Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file.",
            "part-00000-6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c1201-c000.snappy.parquet",
            "1",
        ),
        (
            "uncastable_value",
            "routing",
            "amount (string, declared decimal(12,2))",
            "part-00001-6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c1201-c000.snappy.parquet",
            "1",
        ),
    ]


def test_control_records_are_logged_not_applied(spark: SparkSession, sample_build: str) -> None:
    assert rows_as_text(
        spark,
        f"select control_kind, flavour, count(*) from {sample_build}_intermediate.int_control_records_logged"
        " group by control_kind, flavour order by control_kind, flavour",
    ) == [
        ("header_line", "arcion_internal_csv", "2"),
        ("heartbeat", "dts_avro", "1"),
        ("heartbeat", "mrs_cdl", "1"),
        ("schema_change", "canal_json", "1"),
        ("schema_change", "dts_avro", "1"),
        ("schema_change", "shareplex_json", "1"),
        ("tombstone", "arcion_kafka", "2"),
        ("tombstone", "debezium", "1"),
        ("transaction_boundary", "debezium", "2"),
        ("transaction_boundary", "dts_avro", "2"),
        ("update_before_image", "shareplex_json", "1"),
    ]
    assert rows_as_text(
        spark,
        f"select get_json_object(raw_value, '$.imagesText') from {sample_build}_intermediate.int_control_records_logged"
        " where flavour = 'dts_avro' and control_kind = 'schema_change'",
    ) == [("ALTER TABLE `crm`.`contacts` ADD COLUMN `referrer` varchar(64) NULL",)], (
        "DDL is logged with its text"
    )


def test_every_raw_record_is_accounted_for(spark: SparkSession, sample_build: str) -> None:
    outcomes = rows_as_text(
        spark,
        "select flavour, record_outcome, count(distinct raw_record_id) from ("
        + " union all ".join(
            f"select flavour, record_outcome, raw_record_id"
            f" from {sample_build}_staging.stg_{flavour}__records"
            for flavour in (
                "debezium",
                "arcion_kafka",
                "mrs_cdl",
                "canal_json",
                "shareplex_json",
                "dts_avro",
                "arcion_internal_csv",
                "arcion_internal_json",
                "parquet_export",
            )
        )
        + ") group by flavour, record_outcome order by flavour, record_outcome",
    )
    assert outcomes == [
        ("arcion_internal_csv", "change", "15"),
        ("arcion_internal_csv", "control", "2"),
        ("arcion_internal_csv", "quarantined", "5"),
        ("arcion_internal_json", "change", "11"),
        ("arcion_internal_json", "quarantined", "5"),
        ("arcion_kafka", "change", "10"),
        ("arcion_kafka", "control", "2"),
        ("canal_json", "change", "7"),
        ("canal_json", "control", "1"),
        ("debezium", "change", "23"),
        ("debezium", "control", "3"),
        ("debezium", "quarantined", "2"),
        ("dts_avro", "change", "7"),
        ("dts_avro", "control", "4"),
        ("dts_avro", "quarantined", "3"),
        ("mrs_cdl", "change", "7"),
        ("mrs_cdl", "control", "1"),
        ("parquet_export", "change", "16"),
        ("parquet_export", "quarantined", "1"),
        ("shareplex_json", "change", "15"),
        ("shareplex_json", "control", "2"),
    ]
    assert sum(int(count or 0) for *_, count in outcomes) == 142, (
        "142 raw records landed (14 of them DTS Avro, 22 Arcion internal CSV, 16 Arcion internal JSON, 17 Parquet rows and files)"
    )


def test_a_staged_record_that_breaks_the_contract_fails_its_data_test(
    spark: SparkSession, dbt: Dbt, sample_build: str, tmp_path: Path
) -> None:
    """cdc_change_records_valid (tests/dbt/generic) over a staging table of one valid change of
    the sample, one broken copy of it per rule in its latest run and one more in an earlier run:
    it fails on the four of the latest run (an earlier run's records were checked by that run's
    build) and names the rule each breaks. A parser that writes such a record is a bug; this is
    what catches it."""
    schema, model = "it_contract", "stg_debezium__records"
    staged, copy = f"{sample_build}_staging.{model}", f"{schema}_staging.{model}"
    spark.sql(f"create database if not exists {schema}_staging")
    spark.sql(f"drop table if exists {copy}")
    # the smallest table that shows the rules: one valid change of the sample, then the broken ones
    template = f"(select * from {staged} where record_outcome = 'change' order by raw_record_id limit 1)"
    spark.sql(f"create table {copy} using parquet as select * from {template}")
    rules = {
        "raw_record_id": ("cast(null as string)", "raw_record_id is null"),
        "record_outcome": ("'applied'", "record_outcome is not one of change, control, quarantined"),
        "operation": ("'upsert'", "operation is not one of insert, update, delete, snapshot, truncate"),
        "outcome_reason": (
            "'no_such_reason'",
            "outcome_reason is not a reason_code of seed cdc_outcome_reasons",
        ),
    }
    broken = [(column, value, "loaded_at") for column, (value, _) in rules.items()]
    broken.append(("operation", "'upsert'", "loaded_at - interval 1 day"))  # an earlier run's
    columns = spark.table(staged).columns
    for broken_column, value, loaded_at in broken:
        replaced = {broken_column: value, "loaded_at": loaded_at}
        select_list = ", ".join(f"{replaced.get(column, column)} as {column}" for column in columns)
        spark.sql(f"insert into {copy} select {select_list} from {template}")

    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    latest_run = dbt.run(
        "test",
        "--select",
        f"test_name:cdc_change_records_valid,{model}",
        "--store-failures",
        schema=schema,
        landing_root=landing_root,
        check=False,
    )
    assert latest_run.returncode == 1 and "FAIL 4 cdc_change_records_valid" in latest_run.stdout, (
        latest_run.stdout
    )
    failures = spark.sql(
        f"show tables in {schema}_dbt_test__audit like 'cdc_change_records_valid*'"
    ).collect()
    assert len(failures) == 1, failures
    assert sorted(
        row[0]
        for row in spark.sql(f"select broken_rule from {schema}_dbt_test__audit.{failures[0][1]}").collect()
    ) == sorted(rule for _, rule in rules.values()), "the earlier run's record is not checked again"


def test_declared_column_types_are_the_query_types(spark: SparkSession, sample_build: str) -> None:
    """An incremental table is created from declared types, without asking Spark to analyse its
    query first (_cdc_create_table_then_insert in macros/materializations/incremental.sql): a
    staging table from the staging contract's (cdc_record_column_types), a model whose YAML
    gives every column a data_type (the checked log among them) from those. For each such model
    of the build, the query its build ran must give the same columns, in name and type, or its
    declared types have drifted."""
    manifest = json.loads((target_dir(sample_build) / "manifest.json").read_text())
    declared_models = [
        node
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and node["config"]["materialized"] == "incremental"
        and (
            node["name"] in staging_models()
            or (node["columns"] and all(column.get("data_type") for column in node["columns"].values()))
        )
    ]
    assert {"int_changes_checked", *staging_models()} <= {node["name"] for node in declared_models}
    register_helpers(spark)  # the DTS Avro and Parquet export staging queries call them
    for node in declared_models:
        table = spark.table(f"{node['schema']}.{node['alias']}").schema
        declared = {field.name: field.dataType.simpleString() for field in table.fields}
        produced = {
            field.name: field.dataType.simpleString() for field in spark.sql(node["compiled_code"]).schema
        }
        assert declared == produced, node["name"]


def test_lineage_site_opens_on_the_project_in_a_real_browser(
    dbt: Dbt, sample_build: str, tmp_path: Path
) -> None:
    """dbt docs generate over the sample build, the graph set to open on the pipeline
    (bin/docs_site.py patch, as bin/docs does), then headless Chromium: the project's overview
    with no console error, the graph with every model and no test, a model's page with its
    columns (bin/docs_site.py check). The screenshot is what docs/lineage_graph.png shows."""
    dbt.run("docs", "generate", schema=sample_build, landing_root=SAMPLE_LANDING)
    site = target_dir(sample_build)
    docs_site = [sys.executable, str(PROJECT_DIR / "bin" / "docs_site.py")]
    subprocess.run([*docs_site, "patch", str(site)], check=True)
    screenshot = tmp_path / "lineage_graph.png"
    check = subprocess.run(
        [*docs_site, "check", str(site), "--screenshot", str(screenshot)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "FAIL" not in check.stdout and check.stdout.count("ok   ") == 5, check.stdout
    assert screenshot.stat().st_size > 20_000, "the graph was drawn"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """bin/cluster up --connect: a standalone master, one worker, the Thrift server (with the
    python_udfs helpers) and a Spark Connect server on 127.0.0.1; down when the module is done.
    Its settings (CDC_THRIFT_PORT, CDC_SPARK_MASTER, SPARK_REMOTE).

    One worker with four slots, so that each application has two: with bin/cluster's default
    (two workers of one core) each application had one slot on one executor, the Thrift
    server's build ran its tasks one at a time, and every statement's generated code was
    compiled again in each executor that ran it. The sample is small, so the cluster's JVMs run
    with the JIT's first tier only, as the tests' in-process runs do (README, "Small runs")."""
    state = tmp_path_factory.mktemp("cluster")
    env = classic_spark_environment()
    env.setdefault("CDC_SPARK_JAVA_OPTIONS", QUICK_JIT_OPTIONS)
    command = [str(PROJECT_DIR / "bin" / "cluster")]
    started = subprocess.run(
        [
            *command,
            "up",
            "--connect",
            "--workers",
            "1",
            "--worker-cores",
            "4",
            "--worker-memory",
            "4g",
            "--state-dir",
            str(state),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        assert started.returncode == 0, f"bin/cluster up failed:\n{started.stdout}\n{started.stderr}"
        settings = dict(
            line.removeprefix("export ").split("=", 1)
            for line in started.stdout.splitlines()
            if line.startswith("export ")
        )
        assert settings["CDC_SPARK_MASTER"].startswith("spark://127.0.0.1:"), started.stdout
        settings["SPARK_REMOTE"] = started.stdout.split("SPARK_REMOTE=")[1].split()[0]
        yield settings
    finally:
        subprocess.run([*command, "down", "--state-dir", str(state)], env=env, check=False)


CONNECT_QUERY = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print(spark.conf.get("spark.master"), spark.range(0, 1000, numPartitions=4).selectExpr("sum(id)").first()[0])
"""


def test_spark_connect_runs_on_the_same_cluster(cluster: dict[str, str]) -> None:
    env = classic_spark_environment()
    shown = subprocess.run(
        [sys.executable, "-c", CONNECT_QUERY, cluster["SPARK_REMOTE"]],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split()[-2:] == [cluster["CDC_SPARK_MASTER"], "499500"], shown.stdout


def test_the_same_project_on_a_standalone_cluster(
    dbt: Dbt, spark: SparkSession, sample_build: str, cluster: dict[str, str], tmp_path: Path
) -> None:
    """The sample landing through the `cluster` profile (dbt-spark's thrift method, PyHive) on a
    Spark standalone cluster gives every current-state and history table the embedded run gave,
    value for value (the DTS Avro and Parquet export records decoded by the helpers in the
    workers' Python), and the same quarantine. The build is the project's models and seed and
    the quarantine's test: the other data tests ran on the same SQL in the embedded build, and
    the corpus targets (tests/corpus_targets) have nothing to hold from the sample; on the
    cluster they took about 40 % of the build's time (2026-11-25)."""
    from pyhive import hive

    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    result = dbt.run(
        *project_build("test_name:cdc_quarantine_is_small"),
        schema="it_cluster",
        landing_root=landing_root,
        thrift_port=int(cluster["CDC_THRIFT_PORT"]),
    )
    assert "WARN 19 cdc_quarantine_is_small" in result.stdout, (
        "the 19 bad sample records warn on the cluster too"
    )

    # the project's current-state and history tables: every one, none of the corpus targets
    project_tables = {path.stem for path in (PROJECT_DIR / "models" / "marts").rglob("*.sql")}
    views = [
        row.viewName
        for row in spark.sql(f"show views in {sample_build}_marts").collect()
        if "__cdc_" not in row.viewName and row.viewName.removesuffix("_history") in project_tables
    ]
    expected = project_tables | {f"{table}_history" for table in history_tables()}
    assert sorted(views) == sorted(expected), ("every table and every history", views)
    queries = {
        view: f"select * except (_cdc), _cdc.operation, _cdc.change_sequence, _cdc.commit_timestamp"
        f" from {{schema}}_marts.{view}"
        for view in views
    }
    queries["quarantine"] = (
        "select reason_code, count(*) from {schema}_intermediate.int_quarantined_records_logged group by reason_code"
    )
    compared_rows: dict[str, int] = {}
    connection = hive.connect("127.0.0.1", port=int(cluster["CDC_THRIFT_PORT"]), username="dbt")
    try:
        cursor = connection.cursor()
        for name, query in queries.items():
            embedded = sorted(rows_as_text(spark, query.format(schema=sample_build)), key=str)
            # the same text casts, built from the embedded table's schema, run on the cluster
            cursor.execute(
                text_cast_query(spark, query.format(schema=sample_build)).replace(sample_build, "it_cluster")
            )
            on_cluster = sorted((tuple(row) for row in cursor.fetchall()), key=str)
            assert on_cluster == embedded, f"{name} on the cluster"
            compared_rows[name] = len(embedded)
    finally:
        connection.close()
    # the corpus targets (tests/corpus_targets) stay empty: the sample lands no corpus file
    assert sum(1 for rows in compared_rows.values() if rows) >= 15, compared_rows


# The python_udfs helpers on the `cluster` profile, through the Thrift server of the cluster
# above: a server that dbt does not create, so dbt's plugin cannot register them; the server
# that `python -m cdc_udfs.thrift_server` starts has them registered in its one shared session,
# so a plain dbt command through dbt-spark's thrift method calls them, and a plain `dbt run`
# stages the sample's DTS Avro landings through it.

THRIFT_SCHEMA = "it_thrift"
# a DTS Avro DDL record (Kafka schema) whose statement is ALTER TABLE t ADD c INT
DDL_RECORD_HEX = (
    "0204dce28cde0c0c3430303240330c3430303240330c74782d2d3235000c382e302e333606020a63726d2e7400021274"
    "68726561645f69640237000000022e414c544552205441424c45207420414444206320494e54dce28cde0c"
)


def shown_rows(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    """The rows of `dbt show --output json` (the JSON document that ends its output)."""
    text = result.stdout[result.stdout.index('{\n  "show"') :]
    return json.loads(text)["show"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def thrift_port(cluster: dict[str, str]) -> int:
    """The port of the cluster's Thrift server."""
    return int(cluster["CDC_THRIFT_PORT"])


def test_dbt_on_the_thrift_profile_calls_the_helpers(dbt: Dbt, thrift_port: int, tmp_path: Path) -> None:
    result = dbt.run(
        "show",
        "--inline",
        f"select get_json_object(cdc_dts_avro_record_json(unhex('{DDL_RECORD_HEX}')), '$.imagesText') as ddl",
        "--output",
        "json",
        schema=THRIFT_SCHEMA,
        landing_root=tmp_path,
        thrift_port=thrift_port,
    )
    assert shown_rows(result) == [{"ddl": "ALTER TABLE t ADD c INT"}]


def test_a_plain_dbt_run_stages_dts_avro_through_the_thrift_server(
    dbt: Dbt, thrift_port: int, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / "dts_avro", landing_root / "dts_avro")
    dbt.run(
        "run",
        "--select",
        "stg_dts_avro__records",
        schema=THRIFT_SCHEMA,
        landing_root=landing_root,
        thrift_port=thrift_port,
    )
    result = dbt.run(
        "show",
        "--inline",
        f"select record_outcome, count(*) as records from {THRIFT_SCHEMA}_staging.stg_dts_avro__records"
        " group by record_outcome order by record_outcome",
        "--output",
        "json",
        schema=THRIFT_SCHEMA,
        landing_root=landing_root,
        thrift_port=thrift_port,
    )
    assert shown_rows(result) == [
        {"record_outcome": "change", "records": 7},
        {"record_outcome": "control", "records": 4},
        {"record_outcome": "quarantined", "records": 3},
    ]

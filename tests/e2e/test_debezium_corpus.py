"""Every file of ../shared/corpus/debezium-json/ (real messages from the Flink and Paimon test
suites) landed as JSON lines, and the Paimon null-value pair also as Kafka records with a
tombstone between them; the current state is checked row by row.

How the expected rows follow from the messages:
- inventory.products (MySQL): three files carry the same events (schema include / exclude /
  Paimon's copy of line 1): duplicate deliveries change nothing. Ordered by binlog position,
  the snapshot inserts 101..109, updates 106, 107, 110, 111 and the delete of 111 leave 101..110.
- postgres.inventory.products: the same history by LSN from three files. The
  REPLICA IDENTITY file's delete has neither before image nor key: quarantined (missing_key);
  the same delete in the other two files carries the key, so 111 is gone.
- test.product (Paimon schema evolution): every message has file '' and pos 0, so all
  sequences are equal and arrival decides: files in path order, then lines. The
  `schema-schemaevolution` files sort before the `schemaevolution` ones. 101 ends deleted
  (schemaevolution-3 line 19); 105 ends as schemaevolution-3's insert (14oz, 0.875, Shanghai,
  no age) updated to Beijing by its line 20; age arrives as int and as the string "24".
- test.test: 1 A and 2 B; the tombstone between them is a control record.
- paimon_sync_table.all_types_table: one snapshot read with every MySQL type.
- The 17-line licence comment of each of the 12 Paimon files: 204 invalid_json records.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from conftest import SHARED_DIR, Dbt, land_files, land_kafka_records, rows_as_text, table_rows

SCHEMA = "it_corpus"
CORPUS = SHARED_DIR / "corpus" / "debezium-json"
CDC = ["_cdc.operation", "_cdc.change_sequence"]


def _payload_line(file_name: str) -> str:
    """The one JSON message of a Paimon null-value file (after its licence comment)."""
    return next(line for line in (CORPUS / file_name).read_text().splitlines() if line.startswith("{"))


@pytest.fixture(scope="module")
def corpus_build(dbt: Dbt, tmp_path_factory: pytest.TempPathFactory) -> str:
    landing_root = Path(tmp_path_factory.mktemp("corpus")) / "landing"
    land_files(landing_root, "debezium/json_lines", sorted(CORPUS.glob("*.txt")))
    key = '{"id": %d}'
    land_kafka_records(
        landing_root,
        "debezium/kafka_records",
        "mysql_binlog_source.test.test+0+0000000000.parquet",
        "mysql_binlog_source.test.test",
        [
            (key % 1, _payload_line("paimon-debezium-nullvalue-debezium-data-1.txt")),
            (key % 1, None),
            (key % 2, _payload_line("paimon-debezium-nullvalue-debezium-data-2.txt")),
        ],
    )
    result = dbt.run("build", "--exclude", "test_type:unit", schema=SCHEMA, landing_root=landing_root)
    assert "WARN 2 same_sequence_changes_agree" in result.stdout, "test.product 101 and 105 conflict"
    return SCHEMA


PRODUCTS_MYSQL = [
    ("101", "scooter", "Small 2-wheel scooter", "3.140000104904175"),
    ("102", "car battery", "12V car battery", "8.100000381469727"),
    (
        "103",
        "12-pack drill bits",
        "12-pack of drill bits with sizes ranging from #40 to #3",
        "0.800000011920929",
    ),
    ("104", "hammer", "12oz carpenter's hammer", "0.75"),
    ("105", "hammer", "14oz carpenter's hammer", "0.875"),
    ("106", "hammer", "18oz carpenter hammer", "1.0"),
    ("107", "rocks", "box of assorted rocks", "5.099999904632568"),
    ("108", "jacket", "water resistent black wind breaker", "0.10000000149011612"),
    ("109", "spare tire", "24 inch spare tire", "22.200000762939453"),
    ("110", "jacket", "new water resistent white wind breaker", "0.5"),
]


def test_mysql_products_from_three_deliveries(spark: SparkSession, corpus_build: str) -> None:
    columns = ["id", "name", "description", "weight"]
    assert table_rows(spark, corpus_build, "inventory__products", columns, ["id"]) == PRODUCTS_MYSQL
    assert table_rows(spark, corpus_build, "inventory__products", ["id", *CDC], ["id"])[-1] == (
        "110",
        "update",
        "[3, 1707, 0]",
    )


def test_postgres_products_by_lsn(spark: SparkSession, corpus_build: str) -> None:
    columns = ["id", "name", "description", "weight"]
    assert table_rows(spark, corpus_build, "postgres_inventory__products", columns, ["id"]) == [
        ("101", "scooter", "Small 2-wheel scooter", "3.14"),
        ("102", "car battery", "12V car battery", "8.1"),
        ("103", "12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3", "0.8"),
        ("104", "hammer", "12oz carpenter's hammer", "0.75"),
        ("105", "hammer", "14oz carpenter's hammer", "0.875"),
        ("106", "hammer", "18oz carpenter hammer", "1.0"),
        ("107", "rocks", "box of assorted rocks", "5.1"),
        ("108", "jacket", "water resistent black wind breaker", "0.1"),
        ("109", "spare tire", "24 inch spare tire", "22.2"),
        ("110", "jacket", "new water resistent white wind breaker", "0.5"),
    ]
    assert table_rows(spark, corpus_build, "postgres_inventory__products", ["id", *CDC], ["id"])[0] == (
        "101",
        "snapshot",
        "[34078720, 34078720]",
    )


def test_paimon_schema_evolution_resolved_by_arrival(spark: SparkSession, corpus_build: str) -> None:
    columns = ["id", "name", "description", "weight", "age", "address"]
    assert table_rows(spark, corpus_build, "test__product", columns, ["id"]) == [
        ("102", "car battery", "12V car battery", "8.1", None, None),
        (
            "103",
            "12-pack drill bits",
            "12-pack of drill bits with sizes ranging from #40 to #3",
            "0.8",
            "18",
            None,
        ),
        ("104", "hammer", "12oz carpenter's hammer", "0.75", "24", None),
        ("105", "hammer", "14oz carpenter's hammer", "0.875", None, "Beijing"),
        ("107", "rocks", "box of assorted rocks", "5.3", None, None),
    ]


def test_null_value_tombstone_is_control(spark: SparkSession, corpus_build: str) -> None:
    assert table_rows(spark, corpus_build, "test__test", ["id", "value"], ["id"]) == [("1", "A"), ("2", "B")]
    assert rows_as_text(
        spark,
        f"select control_kind, kafka_offset from {corpus_build}_intermediate.int_control_records_logged",
    ) == [("tombstone", "1")]


def test_all_types_decoded_exactly(spark: SparkSession, corpus_build: str) -> None:
    columns = [
        "_id",
        "pt",
        "_bit1",
        "hex(_bit)",
        "_tinyint1",
        "_bigint_unsigned",
        "_float",
        "_numeric",
        "_fixed",
        "_decimal",
        "_big_decimal",
        "_date",
        "_datetime",
        "_datetime3",
        "_datetime6",
        "_datetime_p2",
        "_timestamp",
        "_timestamp0",
        "decode(_bin, 'UTF-8')",
        "decode(_longblob, 'UTF-8')",
        "_json",
        "_enum",
        "_year",
        "_time",
        "get_json_object(_point, '$.wkb')",
        "_set",
    ]
    assert table_rows(spark, corpus_build, "paimon_sync_table__all_types_table", columns, ["_id"]) == [
        (
            "1",
            "1.1",
            "true",
            "C707000000000000",
            "1",
            "20000000000",
            "1.5",
            "12345.110",
            "123456789876543212345678987654321.110",
            "11111",
            "2222222222222222300000001111.1234567890",
            "2023-03-23",
            "2023-03-23 14:30:05",
            "2023-03-23 14:30:05.123",
            "2023-03-23 14:30:05.123456",
            "2023-03-24 14:30:05.12",
            "2023-03-23 22:00:10.123456",
            "2023-03-23 07:10:00",
            "bytes\x00\x00\x00\x00\x00",
            "LONGBLOB  bytes test data",
            '{"a": "b"}',
            "value1",
            "2023",
            "10:13:23.000000",
            "AQEAAAAAAAAAAADwPwAAAAAAAPA/",
            "a,b",
        )
    ]


def test_unusable_records_are_quarantined_with_reasons(spark: SparkSession, corpus_build: str) -> None:
    assert rows_as_text(
        spark,
        f"select reason_code, reason_detail, count(*) from {corpus_build}_intermediate.int_quarantined_records_logged"
        " group by reason_code, reason_detail order by reason_code",
    ) == [("invalid_json", None, "204"), ("missing_key", "id", "1")]
    missing_key_file = rows_as_text(
        spark,
        f"select element_at(split(landing_file, '/'), -1), landing_position"
        f" from {corpus_build}_intermediate.int_quarantined_records_logged where reason_code = 'missing_key'",
    )
    assert missing_key_file == [("flink-debezium-postgres-data-replica-identity.txt", "16")]

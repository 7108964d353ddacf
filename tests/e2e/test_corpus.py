"""Every file of ../shared/corpus/ (real messages from the Flink and Paimon test suites), in one
build: debezium-json/ landed as JSON lines, and the Paimon null-value pair also as Kafka
records with a tombstone between them; canal-json/ landed as Kafka records of open-source
Canal, one per line, on one topic in file-name order. The current state is checked row by row.

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

Canal JSON (the states Flink's CanalJsonSerDeSchemaTest and Paimon's
KafkaCanalSyncTableActionITCase assert, per source table; their `id` and `es` repeat and go
backwards, so the landing order decides):
- inventory.products2: canal-data and canal-data-with-init carry the same history (INIT is
  an insert of the initial load); 102, 103 and 111 end deleted, 101 updated to 5.17.
- mydb.product: the same history; mydb.orders keeps 10001 (quantity 3), 10003, 10004;
  mydb.project keeps A101..A109 (text ids, declared string).
- paimon_sync_table.schema_evolution_1 / _2: merged into one table keyed by (pt, _id), named
  by a pattern, as Paimon's testSchemaEvolution syncs them: its final table, row for row.
  Updates carry only some declared columns, so the others keep their values. No key comes
  from both shards, so cdc_keys_from_one_source passes. event holds the rows of
  testCDCOperations' insert file (that test's own order is in test_shard_merging.py).
- 20 DDL messages are control records; the licence comments of the 9 Paimon files are 153
  invalid_json records.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from conftest import (
    CORPUS_TARGETS,
    SHARED_DIR,
    Dbt,
    corpus_messages,
    land_files,
    land_kafka_records,
    rows_as_text,
    table_rows,
)

SCHEMA = "it_corpus"
CORPUS = SHARED_DIR / "corpus" / "debezium-json"
CANAL_CORPUS = SHARED_DIR / "corpus" / "canal-json"
CDC = ["_cdc.operation", "_cdc.change_sequence"]


def _payload_line(file_name: str) -> str:
    """The one JSON message of a Paimon null-value file (after its licence comment)."""
    return corpus_messages(CORPUS / file_name)[0]


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
    offset = 0
    for path in sorted(CANAL_CORPUS.glob("*.txt")):
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        land_kafka_records(
            landing_root,
            "canal_json/kafka_records",
            f"{path.stem}.parquet",
            "canal_corpus",
            [(None, line) for line in lines],
            first_offset=offset,
        )
        offset += len(lines)
    # The project's own marts (models/marts) are left out: no corpus message is theirs (each
    # found "no staged changes"), and with their data tests they were about a sixth of this
    # build's node time (2026-12-04). The checked log still types against every declared table.
    result = dbt.run(
        "build",
        "--exclude",
        "test_type:unit path:models/marts",
        schema=SCHEMA,
        landing_root=landing_root,
        extra_vars=CORPUS_TARGETS,
    )
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


# The same history as exact text (Postgres sends the weights as doubles, Canal as text).
PRODUCTS = [
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
    assert table_rows(spark, corpus_build, "postgres_inventory__products", columns, ["id"]) == PRODUCTS
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
        f"select control_kind, kafka_offset from {corpus_build}_intermediate.int_control_records_logged"
        " where flavour = 'debezium'",
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
        "_point",
        "_geometry",
        "_linestring",
        "_polygon",
        "_multipoint",
        "_multiline",
        "_multipolygon",
        "_geometrycollection",
        "_set",
    ]
    assert table_rows(spark, corpus_build, "paimon_sync_table__all_types_table", columns, ["_id"]) == [
        (
            "1",
            "1.1",
            "true",
            "00000000000007C7",  # BIT(64) b'11111000111', big-endian as MySQL and Paimon show it
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
            # geometry as GeoJSON, as Flink CDC's MySQL connector documents these values
            '{"coordinates":[1,1],"type":"Point","srid":0}',
            '{"coordinates":[[[1,1],[2,1],[2,2],[1,2],[1,1]]],"type":"Polygon","srid":0}',
            '{"coordinates":[[3,0],[3,3],[3,5]],"type":"LineString","srid":0}',
            '{"coordinates":[[[1,1],[2,1],[2,2],[1,2],[1,1]]],"type":"Polygon","srid":0}',
            '{"coordinates":[[1,1],[2,2]],"type":"MultiPoint","srid":0}',
            '{"coordinates":[[[1,1],[2,2],[3,3]],[[4,4],[5,5]]],"type":"MultiLineString","srid":0}',
            '{"coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]]],[[[5,5],[7,5],[7,7],[5,7],[5,5]]]],'
            '"type":"MultiPolygon","srid":0}',
            '{"geometries":[{"type":"Point","coordinates":[10,10]},{"type":"Point","coordinates":[30,30]},'
            '{"type":"LineString","coordinates":[[15,15],[20,20]]}],"type":"GeometryCollection","srid":0}',
            "a,b",
        )
    ]


def test_unusable_records_are_quarantined_with_reasons(spark: SparkSession, corpus_build: str) -> None:
    assert rows_as_text(
        spark,
        f"select flavour, reason_code, reason_detail, count(*)"
        f" from {corpus_build}_intermediate.int_quarantined_records_logged"
        " group by flavour, reason_code, reason_detail order by flavour, reason_code",
    ) == [
        ("canal_json", "invalid_json", None, "153"),
        ("debezium", "invalid_json", None, "204"),
        ("debezium", "missing_key", "id", "1"),
    ]
    missing_key_file = rows_as_text(
        spark,
        f"select element_at(split(landing_file, '/'), -1), landing_position"
        f" from {corpus_build}_intermediate.int_quarantined_records_logged where reason_code = 'missing_key'",
    )
    assert missing_key_file == [("flink-debezium-postgres-data-replica-identity.txt", "16")]


# Flink's Canal history ends with 101 at 5.17, and 102, 103 and 111 deleted.
CANAL_PRODUCTS = [("101", "scooter", "Small 2-wheel scooter", "5.17"), *PRODUCTS[3:]]


def test_canal_flink_products_multi_row_messages(spark: SparkSession, corpus_build: str) -> None:
    columns = ["id", "name", "description", "weight"]
    assert table_rows(spark, corpus_build, "inventory__products2", columns, ["id"]) == CANAL_PRODUCTS
    assert table_rows(spark, corpus_build, "mydb__product", columns, ["id"]) == CANAL_PRODUCTS
    # open-source Canal: no change sequence, the landing order decides
    assert table_rows(spark, corpus_build, "mydb__product", ["id", *CDC], ["id"])[0] == (
        "101",
        "update",
        None,
    )


def test_canal_flink_tables_of_one_stream(spark: SparkSession, corpus_build: str) -> None:
    assert table_rows(
        spark,
        corpus_build,
        "mydb__orders",
        ["order_number", "order_date", "purchaser", "quantity", "product_id"],
        ["order_number"],
    ) == [
        ("10001", "2016-01-16", "1001", "3", "102"),
        ("10003", "2016-02-19", "1002", "2", "106"),
        ("10004", "2016-02-21", "1003", "1", "107"),
    ]
    projects = table_rows(spark, corpus_build, "mydb__project", ["id", "weight"], ["id"])
    assert projects[0] == ("A101", "3.14")
    assert [project_id for project_id, _ in projects] == [f"A10{n}" for n in range(1, 10)]


def test_canal_paimon_schema_evolution(spark: SparkSession, corpus_build: str) -> None:
    columns = ["pt", "_id", "v1", "v2", "v3", "hex(v4)", "v5"]
    # Paimon's KafkaCanalSyncTableActionITCase.testSchemaEvolution, after canal-data-5
    assert table_rows(spark, corpus_build, "paimon_sync_table__schema_evolution", columns, ["_id"]) == [
        ("1", "1", "one", None, None, None, None),
        ("1", "2", "second", None, None, None, None),
        ("2", "3", "three", "30000000000", None, None, None),
        ("2", "4", "four", None, None, b"four.bin.long".hex().upper(), "4.00000000004"),
        ("1", "6", "six", "60", None, None, None),
        ("2", "7", "seven", "70000000000", None, None, None),
        ("2", "8", "very long string", "80000000000", None, None, None),
        ("1", "9", "nine", "90000000000", "99999.999", b"nine.bin.long".hex().upper(), "9.00000000009"),
    ]
    assert table_rows(spark, corpus_build, "paimon_sync_table__event", ["pt", "_id", "v1"], ["_id"]) == [
        ("1", "1", "one"),
        ("1", "2", "two"),
        ("2", "4", "four"),
    ]


def test_canal_ddl_is_logged_not_applied(spark: SparkSession, corpus_build: str) -> None:
    assert rows_as_text(
        spark,
        f"select control_kind, count(*) from {corpus_build}_intermediate.int_control_records_logged"
        " where flavour = 'canal_json' group by control_kind",
    ) == [("schema_change", "20")]

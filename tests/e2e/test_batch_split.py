"""The result must not depend on how the landed data was split into runs: the same files
processed in three runs as they land (the last batch holding older events than those already
applied), then in one run (--full-refresh of the same schema rebuilds every table from all the
landed files at once), give identical current-state tables, row state (tombstones included)
and history. The three runs interpret Spark's expressions, the one run generates code for them
(dbt_cdc_udfs.small_runs): neither mode may change a result."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dbt_cdc_udfs.small_runs import TINY_LANDING_BYTES
from dbt_cdc_udfs.unchanged_runs import landed_bytes

from conftest import (
    CORPUS_TARGETS,
    SAMPLE_LANDING,
    SHARED_DIR,
    Dbt,
    client_session,
    current_state_tables,
    history_tables,
    land_files,
    rows_as_text,
    staging_models,
    table_partitions,
    target_dir,
)

CORPUS = SHARED_DIR / "corpus" / "debezium-json"
EMPLOYEES = "arcion_internal_csv/csv_files/hr/employees"
NATIONS = "arcion_internal_json/json_lines"
# tables that get changes in each of the three runs, so that the third run compacts them
COMPACTED_TABLES = [
    "shop__orders__cdc_state",
    "payments__transactions__cdc_state",
    "payments__transactions__cdc_changes",
    "payments__transactions__cdc_history",
]


def export_hour(hour: str) -> str:
    """The landing folder of one hour of the Parquet export's transactions table."""
    return f"parquet_export/binary_files/transactions/year=2024/month=03/day=01/hour={hour}"


def export_files(hour: str, *parts: str) -> list[Path]:
    """Sample Parquet export files of one hour whose names start with the given parts."""
    return sorted(
        file for file in (SAMPLE_LANDING / export_hour(hour)).iterdir() if file.name.startswith(parts)
    )


# (landing folder, files) per batch. Batch 1 holds newer events of several keys (the later
# customers file with a binlog rotation and a late update, orders updates, the last Paimon file);
# batch 3 lands last with older events: snapshots, inserts that precede applied updates, deletes.
BATCHES: list[list[tuple[str, list[Path]]]] = [
    [
        (
            "debezium/kafka_records",
            [SAMPLE_LANDING / "debezium/kafka_records/dbserver1.shop.customers+0+0000000008.parquet"],
        ),
        (
            "arcion_kafka/kafka_records",
            [SAMPLE_LANDING / "arcion_kafka/kafka_records/arcion.tpch.region+0+0000000000.parquet"],
        ),
        ("dts_avro/kafka_records", [SAMPLE_LANDING / "dts_avro/kafka_records/dts.crm+0+0000000000.parquet"]),
        (
            "debezium/json_lines",
            [
                SAMPLE_LANDING / "debezium/json_lines/orders-0002.jsonl",
                CORPUS / "paimon-debezium-schemaevolution-debezium-data-3.txt",
                CORPUS / "flink-debezium-data-schema-include.txt",
            ],
        ),
        # the snapshot and the first realtime file (the key change 2 -> 20 carries only the key,
        # so the row it moves must be stored first)
        (
            EMPLOYEES,
            [
                SAMPLE_LANDING / EMPLOYEES / name
                for name in ("snapshot-0001.csv", "snapshot-0002.csv", "realtime-0001.csv")
            ],
        ),
        (NATIONS, [SAMPLE_LANDING / NATIONS / "nation-0001.jsonl"]),
        (export_hour("09"), export_files("09", "part-")),
        (export_hour("10"), export_files("10", "part-00000", "part-00001")),
    ],
    [
        (
            "debezium/json_lines",
            [
                SAMPLE_LANDING / "debezium/json_lines/cart_items-0001.jsonl",
                SAMPLE_LANDING / "debezium/json_lines/orders-0003-bad.jsonl",
                CORPUS / "flink-debezium-postgres-data-schema-include.txt",
            ],
        ),
        ("mrs_cdl/json_lines", [SAMPLE_LANDING / "mrs_cdl/json_lines/ct_pg2hudi-0001.jsonl"]),
        ("canal_json/json_lines", [SAMPLE_LANDING / "canal_json/json_lines/products-0001.jsonl"]),
        ("shareplex_json/json_lines", [SAMPLE_LANDING / "shareplex_json/json_lines/mio_log-0001.jsonl"]),
        (EMPLOYEES, [SAMPLE_LANDING / EMPLOYEES / "realtime-0002.csv"]),
        (NATIONS, [SAMPLE_LANDING / NATIONS / "nation-0002.jsonl"]),
        (export_hour("11"), export_files("11", "part-")),
        (export_hour("12"), export_files("12", "part-")),
    ],
    [
        (
            "debezium/kafka_records",
            [
                SAMPLE_LANDING / "debezium/kafka_records/dbserver1.shop.customers+0+0000000000.parquet",
                SAMPLE_LANDING / "debezium/kafka_records/dbserver1.transaction+0+0000000000.parquet",
            ],
        ),
        (
            "debezium/json_lines",
            [
                SAMPLE_LANDING / "debezium/json_lines/orders-0001.jsonl",
                CORPUS / "paimon-debezium-schemaevolution-debezium-data-1.txt",
                CORPUS / "paimon-debezium-schemaevolution-debezium-data-2.txt",
                CORPUS / "flink-debezium-data-schema-exclude.txt",
                CORPUS / "flink-debezium-postgres-data-replica-identity.txt",
            ],
        ),
        # a key change carried by a partial image, whose old key's row was stored by batch 2
        ("shareplex_json/json_lines", [SAMPLE_LANDING / "shareplex_json/json_lines/mio_log-0002.jsonl"]),
        # DTS Avro's SDK file: a key change 2 -> 20 whose after image leaves nickname out (the
        # row it moves was stored by batch 1), an insert and its delete, and a redelivery of an
        # update that batch 1 applied (the old key's history landing after its move is a
        # documented limit: docs/change_event_contract.md)
        ("dts_avro/binary_files", [SAMPLE_LANDING / "dts_avro/binary_files/crm-0001.dtsavro"]),
        # a Parquet file of hour 10 that arrives after hour 12 was applied: picked up by the next
        # run with no manual step, its changes placed by their sequence
        (export_hour("10"), export_files("10", "part-00002")),
        (EMPLOYEES, [SAMPLE_LANDING / EMPLOYEES / "realtime-0003-bad.csv"]),
    ],
]

CURRENT_STATE_TABLES = [
    "shop__customers",
    "shop__orders",
    "shop__cart_items",
    "tpch__region",
    "cdl__ct_pg2hudi",
    "inventory__products",
    "postgres_inventory__products",
    "test__product",
    "shop__products",
    "billing__mio_log",
    "crm__contacts",
    "hr__employees",
    "tpch__nation",
    "payments__transactions",
]
# the tables that keep history (meta.cdc.history: true, read from the marts' YAML): the late
# hour-10 Parquet file lands in the middle of payments' versions, shop's cart items are truncated
HISTORY_TABLES = sorted(history_tables())
# The project's models and seed, and of the corpus targets (tests/corpus_targets) only those
# compared: the others would add their tables to every one of the five builds (about a fifth
# of a build's node time, 2026-11-27), and none of them is read.
COMPARED_CORPUS_TARGETS = sorted(set(CURRENT_STATE_TABLES) - current_state_tables())
BUILD_MODELS = [
    "build",
    "--select",
    " ".join(["path:models", "resource_type:seed", *COMPARED_CORPUS_TARGETS]),
    "--exclude",
    "test_type:unit test_type:data",
]
# {flavour: staging model}, each model in models/staging/<flavour>/
STAGING_MODELS = {model.removeprefix("stg_").removesuffix("__records"): model for model in staging_models()}
SCHEMA = "it_split_batches"
STAGING_SQL = target_dir(SCHEMA) / "compiled" / "cdc_lakehouse" / "models" / "staging"
# the staging SQL of the first run as it lands, per flavour (filled by as_it_lands)
FIRST_RUN_STAGING_SQL: dict[str, str] = {}


def land(landing_root: Path, batch: list[tuple[str, list[Path]]]) -> None:
    for folder, files in batch:
        land_files(landing_root, folder, files)


def current_state(spark: SparkSession, schema: str) -> dict[str, list[tuple[str | None, ...]]]:
    """Every current-state table, all columns but when it was loaded, as sorted text rows."""
    return mart_rows(spark, schema, CURRENT_STATE_TABLES)


def history(spark: SparkSession, schema: str) -> dict[str, list[tuple[str | None, ...]]]:
    """Every history table's versions, all columns but when they were loaded, as sorted text rows."""
    return mart_rows(spark, schema, [f"{table}_history" for table in HISTORY_TABLES])


def mart_rows(spark: SparkSession, schema: str, views: list[str]) -> dict[str, list[tuple[str | None, ...]]]:
    return {
        view: sorted(
            rows_as_text(
                spark,
                f"select * except (_cdc), _cdc.operation, _cdc.change_sequence,"
                f" _cdc.commit_timestamp from {schema}_marts.{view}",
            ),
            key=str,
        )
        for view in views
    }


def row_state(spark: SparkSession, schema: str) -> dict[str, list[tuple[str | None, ...]]]:
    """Every table's folded row states, tombstones included (<table>__cdc_rows), with versions
    compared by their sequences (arrival streams name the landing folder, which differs)."""
    return {
        table: sorted(
            rows_as_text(
                spark,
                "select * except (_cdc_reset, _cdc_column_versions, _cdc_last_change, _cdc_loaded_at,"
                " _cdc_truncated_before), _cdc_reset.version.sequence as reset_sequence,"
                " _cdc_reset.is_delete as reset_is_delete,"
                ' regexp_replace(to_json(_cdc_column_versions), \'"arrival_stream":"[^"]*"\', \'\')'
                " as column_versions,"
                " _cdc_truncated_before.sequence as truncated_before,"
                " _cdc_last_change.version.sequence as last_sequence, _cdc_last_change.operation as last_operation"
                f" from {schema}_marts.{table}__cdc_rows",
            ),
            key=str,
        )
        for table in CURRENT_STATE_TABLES
    }


# what must not depend on the split, by part (current state, row state, history), then by table
State = dict[str, dict[str, list[tuple[str | None, ...]]]]


def landed_state(spark: SparkSession, schema: str) -> State:
    """What must not depend on the split: the current state, the row states and the history."""
    return {
        "current state": current_state(spark, schema),
        "row state": row_state(spark, schema),
        "history": history(spark, schema),
    }


def staged(spark: SparkSession, schema: str) -> list[tuple[str | None, ...]]:
    """Per staging model: its records and its loads (runs that staged something)."""
    return rows_as_text(
        spark,
        " union all ".join(
            f"select '{model}', count(*), count(distinct loaded_at) from {schema}_staging.{model}"
            for model in STAGING_MODELS.values()
        ),
    )


@dataclass
class Split:
    """The batches built in three runs as they land (the last one late), read before anything
    else runs on the schema."""

    schema: str
    landing_root: Path
    state: State
    debezium_loads: list[tuple[str | None, ...]]
    index_parts: list[tuple[str | None, ...]]
    compacted_batches: dict[str, list[str]]


@pytest.fixture(scope="module")
def as_it_lands(dbt: Dbt, spark_remote: str, tmp_path_factory: pytest.TempPathFactory) -> Split:
    schema = SCHEMA
    landing_root = Path(tmp_path_factory.mktemp("split_batches")) / "landing"
    for batch in BATCHES:
        land(landing_root, batch)
        # compaction after more than 2 batches: the third run folds its delta into the base
        dbt.run(
            *BUILD_MODELS,
            schema=schema,
            landing_root=landing_root,
            extra_vars=CORPUS_TARGETS | {"cdc_compact_after_batches": 2},
        )
        if not FIRST_RUN_STAGING_SQL:
            FIRST_RUN_STAGING_SQL.update(
                (flavour, (STAGING_SQL / flavour / f"{model}.sql").read_text())
                for flavour, model in STAGING_MODELS.items()
            )
    with client_session(spark_remote) as spark:
        loads = rows_as_text(
            spark,
            f"select count(distinct loaded_at), count(distinct landing_file), count(*) - count(distinct raw_record_id)"
            f" from {schema}_staging.stg_debezium__records",
        )
        compacted = {table: table_partitions(spark, f"{schema}_marts.{table}") for table in COMPACTED_TABLES}
        return Split(
            schema, landing_root, landed_state(spark, schema), loads, index_parts(spark, schema), compacted
        )


@pytest.fixture(scope="module")
def in_one_run(dbt: Dbt, spark_remote: str, as_it_lands: Split) -> State:
    """The same files in one run: a full refresh of the split's schema rebuilds every table
    from all the landed files at once. With generated code, as a large landing runs: the three
    runs as they land are interpreted (their landing is small, dbt_cdc_udfs.small_runs), so the
    comparison also holds each mode to the other's result, on every flavour."""
    dbt.run(
        *BUILD_MODELS,
        "--full-refresh",
        schema=as_it_lands.schema,
        landing_root=as_it_lands.landing_root,
        extra_vars=CORPUS_TARGETS,
        code_generation="generated",
    )
    with client_session(spark_remote) as spark:
        return landed_state(spark, as_it_lands.schema)


def test_three_landings_with_a_late_batch_equal_one_run(as_it_lands: Split, in_one_run: State) -> None:
    assert landed_bytes(as_it_lands.landing_root) < TINY_LANDING_BYTES, (
        "the runs as they land were interpreted"
    )
    expected = in_one_run["current state"]
    assert sum(len(rows) for rows in expected.values()) == 61, "every table has rows to compare"
    versions = in_one_run["history"]
    assert all(len(versions[f"{table}_history"]) > len(expected[table]) for table in HISTORY_TABLES), (
        "tables with past versions"
    )
    for part, rows in in_one_run.items():
        assert as_it_lands.state[part] == rows, part


def test_a_compaction_writes_a_new_base_above_the_batches_it_replaces(as_it_lands: Split) -> None:
    # the third run's compaction: one batch left, numbered above the three it folded (0, 1, 2),
    # so that no file of the old base was deleted before the new base was registered
    assert as_it_lands.compacted_batches == {table: ["_cdc_batch=3"] for table in COMPACTED_TABLES}


def test_each_run_reads_only_new_files(as_it_lands: Split) -> None:
    assert as_it_lands.debezium_loads == [("3", "14", "0")], (
        "three loads, each file once, no raw record twice"
    )


def test_a_first_run_plans_no_parser_for_a_flavour_with_nothing_landed(as_it_lands: Split) -> None:
    # the first batch lands nothing for these three; their tables are created in the staging
    # contract's shape, and the second run appends to them (test_three_landings_... compares)
    for flavour in ("mrs_cdl", "canal_json", "shareplex_json"):
        sql = FIRST_RUN_STAGING_SQL[flavour]
        assert "where false" in sql and "from_json" not in sql, f"{flavour} planned its parser: {sql[:300]}"
    assert "from_json" in FIRST_RUN_STAGING_SQL["debezium"], "a flavour with files parses them"


def test_a_run_with_nothing_landed_stages_and_parses_nothing(
    dbt: Dbt,
    spark: SparkSession,
    as_it_lands: Split,
    in_one_run: State,
) -> None:
    schema = as_it_lands.schema
    before = staged(spark, schema)
    dbt.run(*BUILD_MODELS, schema=schema, landing_root=as_it_lands.landing_root, extra_vars=CORPUS_TARGETS)
    assert staged(spark, schema) == before, "no record staged twice, no empty run recorded"
    for flavour, model in STAGING_MODELS.items():
        sql = (STAGING_SQL / flavour / f"{model}.sql").read_text()
        assert "where false" in sql and "from_json" not in sql, f"{model} planned its parser: {sql[:300]}"
    assert current_state(spark, schema) == in_one_run["current state"]


def index_parts(spark: SparkSession, schema: str) -> list[tuple[str | None, ...]]:
    """Per staging model in the index of ingested files: its files (of Parquet) and staging times."""
    spark.sql(f"refresh table {schema}_staging.cdc_ingested_landing_files")
    return sorted(
        rows_as_text(
            spark,
            "select staging_model, count(distinct file_path), count(distinct loaded_at) from (select"
            " staging_model, loaded_at, _metadata.file_path as file_path"
            f" from {schema}_staging.cdc_ingested_landing_files) as indexed group by staging_model",
        ),
        key=str,
    )


def ingested_files(spark: SparkSession, schema: str) -> list[tuple[str | None, ...]]:
    """The index of ingested landing files: (staging model, landing file, staging time), sorted."""
    spark.sql(f"refresh table {schema}_staging.cdc_ingested_landing_files")
    return sorted(
        rows_as_text(
            spark,
            f"select staging_model, landing_file, loaded_at from {schema}_staging.cdc_ingested_landing_files",
        ),
        key=str,
    )


def test_the_index_of_ingested_files_is_rebuilt_from_staging(
    dbt: Dbt,
    spark: SparkSession,
    as_it_lands: Split,
    in_one_run: State,
) -> None:
    """The index of ingested files holds one file per staging model, however many runs wrote
    to it (its read must not grow with the runs), and it is derived from the staging tables: a
    model's part lost (a run killed while rewriting it) is rebuilt by the next run's start,
    and no landing file is staged twice."""
    # after the split's three runs: one file per model, holding the files of every run
    assert ("stg_debezium__records", "1", "3") in as_it_lands.index_parts, as_it_lands.index_parts
    assert all(files == "1" for _, files, _ in as_it_lands.index_parts), as_it_lands.index_parts
    schema = as_it_lands.schema
    index = f"{schema}_staging.cdc_ingested_landing_files"
    indexed = ingested_files(spark, schema)
    expected = sorted(
        rows_as_text(
            spark,
            " union all ".join(
                f"select distinct '{model}', landing_file, loaded_at from {schema}_staging.{model}"
                for model in STAGING_MODELS.values()
            ),
        ),
        key=str,
    )
    assert indexed == expected, "every staged file, once, with the staging time that read it"
    parts = index_parts(spark, schema)
    assert len(parts) >= 5 and all(files == "1" for _, files, _ in parts), (
        f"one file per staging model: {parts}"
    )
    before = staged(spark, schema)
    spark.sql(f"alter table {index} drop partition (staging_model = 'stg_debezium__records')")
    dbt.run(*BUILD_MODELS, schema=schema, landing_root=as_it_lands.landing_root, extra_vars=CORPUS_TARGETS)
    assert staged(spark, schema) == before, "no landing file staged twice"
    assert ingested_files(spark, schema) == indexed, "the lost part rebuilt from the staging table"

"""Seeded fuzz tests of bad input, for every flavour and both landing shapes.

Each flavour lands valid changes and, at positions drawn from a seeded generator, every kind
of bad record whose answer is known (quarantined with a reason, or applied), plus records
with one random character changed (any answer, but exactly one). Landing file names hold
`:`; a second run lands a file whose modification time is years old. The run must finish,
every raw record must have exactly one outcome, the known kinds their known answer, and the
current state exactly the applied changes. CDC_FUZZ_SEED replays another draw.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from conftest import CORPUS_TARGETS, KAFKA_RECORD_SCHEMA, Dbt, mysql_change, rows_as_text, table_rows

SCHEMA = "it_fuzz"
SEED = int(os.environ.get("CDC_FUZZ_SEED", "20261123"))
LONG_MAX = 2**63 - 1
# Records whose answer is known have keys in this range; records with a random change have
# keys of six digits from 110,000, which no one-character change turns into a key of this
# range (a leading 1 replaced by a blank leaves 10,100 or more).
KNOWN_KEYS = range(100, 10_000)
RANDOM_KEYS_FROM = 110_000


@dataclass(frozen=True)
class Flavour:
    """How one flavour writes a change of the one table the test folds for it."""

    folder: str
    mart: str
    key_column: str
    value_column: str
    # (key, value, position, commit epoch millis) -> the message as a JSON-ready dict;
    # the after image must be the dict under "after" (or "data" for CDL 1.0).
    message: Callable[[int, str | None, int, int], dict[str, object]]
    image_field: str = "after"
    # where the row image's fields start in the message text (Canal's rows are in an array)
    image_prefix: str = '"after":{"'
    # an insert with no image is applied with the key from the Kafka key; for a flavour
    # that never reads the Kafka key, this is its answer instead
    without_image: tuple[str, str] | None = None


def debezium(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    return mysql_change("c", "test", "test", {"id": key, "value": value}, position, ts_ms)


def arcion(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    return {
        "before": {},
        "after": {"r_regionkey": key, "r_name": value, "r_comment": None},
        "source": {
            "connector": "MYSQL",
            "name": "arcion",
            "db": "tpch",
            "table": "region",
            "file": "mysql-bin.000007",
            "pos": position,
            "row": 0,
            "ts_ms": ts_ms,
        },
        "op": "c",
        "ts_ms": ts_ms,
    }


def mrs_cdl_v2(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    return {
        "before": None,
        "after": {"count1": 1, "id": key, "time1": None, "decimalNum": value},
        "source": {
            "connector": "postgresql",
            "name": "cdl",
            "db": "cdl",
            "schema": "public",
            "table": "ct_pg2hudi",
            "lsn": position,
            "ts_ms": ts_ms,
        },
        "op": "c",
        "ts_ms": ts_ms,
        "message_version": "2.0",
    }


def mrs_cdl_v1(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    return {
        "DATA_STORE": "POSTGRESQL",
        "SEG_OWNER": "public",
        "TABLE_NAME": "ct_pg2hudi",
        "TIMESTAMP": ts_ms,
        "OPERATION": "INSERT",
        "transaction": {"properties": [{"name": "lsn", "value": position}]},
        "unique": {"id": key},
        "data": {"count1": 1, "id": key, "time1": None, "decimalNum": value},
        "before": None,
        "message_version": "1.0",
    }


def canal(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    return {
        "data": [{"id": str(key), "value": value}],
        "database": "test",
        "es": ts_ms,
        "id": position,
        "isDdl": False,
        "mysqlType": {"id": "int(11)", "value": "varchar(255)"},
        "old": None,
        "pkNames": ["id"],
        "sql": "",
        "sqlType": {"id": 4, "value": 12},
        "table": "test",
        "ts": ts_ms,
        "type": "INSERT",
    }


def shareplex(key: int, value: str | None, position: int, ts_ms: int) -> dict[str, object]:
    try:
        time = datetime.fromtimestamp(ts_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    except (OverflowError, ValueError, OSError):
        time = f"{ts_ms}-01-01T00:00:00"  # beyond any calendar: no commit time
    return {
        "meta": {
            "time": time,
            "op": "ins",
            "scn": str(position),
            "trans": "7.0.1",
            "seq": 1,
            "table": "CL_BIZ1.MIO_LOG",
        },
        "data": {"MIO_LOG_ID": str(key), "CNTR_NO": value},
    }


FLAVOURS = [
    Flavour("debezium", "test__test", "id", "value", debezium),
    Flavour("arcion_kafka", "tpch__region", "r_regionkey", "r_name", arcion),
    Flavour("mrs_cdl", "cdl__ct_pg2hudi", "id", "decimalNum", mrs_cdl_v2),
    Flavour("mrs_cdl", "cdl__ct_pg2hudi", "id", "decimalNum", mrs_cdl_v1, "data", '"data":{"'),
    Flavour(
        "canal_json",
        "test__test",
        "id",
        "value",
        canal,
        "data",
        '"data":[{"',
        without_image=("quarantined", "missing_row_image"),
    ),
    Flavour(
        "shareplex_json",
        "billing__mio_log",
        "MIO_LOG_ID",
        "CNTR_NO",
        shareplex,
        "data",
        '"data":{"',
        without_image=("quarantined", "missing_row_image"),
    ),
]


@dataclass
class Record:
    key: bytes | None
    value: bytes
    # the answer: ("applied", value) or ("quarantined", reason) or None (any one answer)
    expected: tuple[str, str | None] | None
    row_key: int


def deep_array(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def bad_kinds(flavour: Flavour, shape: str) -> dict[str, Callable[[int, int], Record]]:
    """Every kind of record with a known answer: key, position -> the record."""

    def text(key: int, value: str | None, position: int, ts_ms: int = 1_700_000_000_000) -> str:
        return json.dumps(
            flavour.message(key, value, position, ts_ms), separators=(",", ":"), ensure_ascii=False
        )

    def kafka_key(key: int) -> bytes:
        return json.dumps({flavour.key_column: key}).encode()

    def image_prefix(key: int) -> str:
        """The start of the message's image text, to splice fields into."""
        return flavour.image_prefix

    def valid(key: int, position: int) -> Record:
        return Record(kafka_key(key), text(key, f"v{key}", position).encode(), ("applied", f"v{key}"), key)

    def truncated(key: int, position: int) -> Record:
        whole = text(key, f"v{key}", position)
        return Record(kafka_key(key), whole[: len(whole) // 2].encode(), ("quarantined", "invalid_json"), key)

    def invalid_utf8(key: int, position: int) -> Record:
        raw = text(key, "caf\u00e9", position).encode().replace("é".encode(), b"\xe9")
        return Record(kafka_key(key), raw, ("quarantined", "invalid_utf8"), key)

    def nesting_too_deep(key: int, position: int) -> Record:
        # An undeclared column nested 990 levels deep: once enough to kill the Spark JVM.
        whole = text(key, f"v{key}", position)
        prefix = image_prefix(key)
        spliced = whole.replace(prefix, prefix[:-1] + f'"extra":{deep_array(990)},"', 1)
        return Record(kafka_key(key), spliced.encode(), ("quarantined", "nesting_too_deep"), key)

    def deep_but_allowed(key: int, position: int) -> Record:
        # An undeclared column nested 400 levels deep (under cdc_max_json_depth): ignored.
        whole = text(key, f"v{key}", position)
        prefix = image_prefix(key)
        spliced = whole.replace(prefix, prefix[:-1] + f'"extra":{deep_array(400)},"', 1)
        return Record(kafka_key(key), spliced.encode(), ("applied", f"v{key}"), key)

    def duplicate_name(key: int, position: int) -> Record:
        whole = text(key, "first", position)
        prefix = image_prefix(key)
        spliced = whole.replace(prefix, prefix[:-1] + f'"{flavour.value_column}":"second","', 1)
        return Record(kafka_key(key), spliced.encode(), ("quarantined", "duplicate_field_name"), key)

    def commit_time_overflow(key: int, position: int) -> Record:
        # A commit time at the edge of long: no commit time, and the change applies by its sequence.
        raw = text(key, f"v{key}", position, ts_ms=LONG_MAX).encode()
        return Record(kafka_key(key), raw, ("applied", f"v{key}"), key)

    def key_only_in_kafka_key(key: int, position: int) -> Record:
        # An insert with no image: a Kafka record's key names the row, a JSON line has no key.
        message = flavour.message(key, None, position, 1_700_000_000_000)
        message[flavour.image_field] = None
        if "unique" in message:
            message["unique"] = None
        expected = ("applied", None) if shape == "kafka_records" else ("quarantined", "missing_key")
        if flavour.without_image:
            expected = flavour.without_image
        return Record(kafka_key(key), json.dumps(message).encode(), expected, key)

    kinds = {
        "valid": valid,
        "key_only_in_kafka_key": key_only_in_kafka_key,
        "truncated": truncated,
        "invalid_utf8": invalid_utf8,
        "nesting_too_deep": nesting_too_deep,
        "deep_but_allowed": deep_but_allowed,
        "duplicate_name": duplicate_name,
        "commit_time_overflow": commit_time_overflow,
    }
    if flavour.folder == "canal_json":
        kinds |= canal_bad_kinds(flavour, text, kafka_key)
    if flavour.folder == "shareplex_json":
        kinds |= shareplex_bad_kinds(flavour, kafka_key)
    return kinds


def canal_bad_kinds(
    flavour: Flavour, text: Callable[..., str], kafka_key: Callable[[int], bytes]
) -> dict[str, Callable[[int, int], Record]]:
    """The bad records only a Canal message can be."""

    def changed(key: int, position: int, change: Callable[[dict[str, object]], None]) -> bytes:
        message = flavour.message(key, f"v{key}", position, 1_700_000_000_000)
        change(message)
        return json.dumps(message).encode()

    def quarantined(reason: str, change: Callable[[dict[str, object]], None]) -> Callable[[int, int], Record]:
        return lambda key, position: Record(
            kafka_key(key), changed(key, position, change), ("quarantined", reason), key
        )

    def without_type(message: dict[str, object]) -> None:
        del message["type"]

    return {
        "data_not_an_array": quarantined("invalid_json", lambda m: m.update(data={"id": "1", "value": "x"})),
        "no_type": quarantined("unrecognized_message", without_type),
        "unknown_type": quarantined("unknown_operation", lambda m: m.update(type="UPSERT")),
        "old_longer_than_data": quarantined(
            "mismatched_old_image", lambda m: m.update(type="UPDATE", old=[{"value": "a"}, {"value": "b"}])
        ),
        "no_key_column": quarantined("missing_key", lambda m: m.update(data=[{"value": "x"}])),
        "no_rows": quarantined("missing_row_image", lambda m: m.update(data=[])),
    }


def shareplex_bad_kinds(
    flavour: Flavour, kafka_key: Callable[[int], bytes]
) -> dict[str, Callable[[int, int], Record]]:
    """The bad records only a Shareplex message can be."""

    def quarantined(reason: str, change: Callable[[dict[str, Any]], None]) -> Callable[[int, int], Record]:
        def record(key: int, position: int) -> Record:
            message = flavour.message(key, f"v{key}", position, 1_700_000_000_000)
            change(message)
            return Record(kafka_key(key), json.dumps(message).encode(), ("quarantined", reason), key)

        return record

    return {
        "data_not_an_object": quarantined("invalid_json", lambda m: m.update(data=[m["data"]])),
        "no_op": quarantined("unrecognized_message", lambda m: m["meta"].pop("op")),
        "unknown_op": quarantined("unknown_operation", lambda m: m["meta"].update(op="merge")),
        "trans_of_two_parts": quarantined("invalid_change_sequence", lambda m: m["meta"].update(trans="7.0")),
        "scn_not_a_number": quarantined("invalid_change_sequence", lambda m: m["meta"].update(scn="0x1F")),
        "no_table": quarantined("missing_source_table", lambda m: m["meta"].pop("table")),
        "no_key_column": quarantined("missing_key", lambda m: m.update(data={"CNTR_NO": "x"})),
    }


def flip_one_character(record: Record, rng: random.Random) -> Record:
    """The record with one character replaced by a printable ASCII one: any answer, but one."""
    raw = bytearray(record.value)
    raw[rng.randrange(len(raw))] = rng.randrange(0x20, 0x7F)
    return Record(record.key, bytes(raw), None, record.row_key)


def draw_records(
    flavour: Flavour, shape: str, rng: random.Random, first_key: int, first_random_key: int
) -> list[Record]:
    """Every known kind twice plus valid records, and mutated valid records, in seeded order."""
    kinds = bad_kinds(flavour, shape)
    names = [name for name in kinds for _ in range(2)] + ["valid"] * 6
    rng.shuffle(names)
    records = [kinds[name](first_key + index, 10 * (first_key + index)) for index, name in enumerate(names)]
    for index in range(8):
        key = first_random_key + index
        records.append(flip_one_character(kinds["valid"](key, 10 * key), rng))
    rng.shuffle(records)
    return records


def write_json_lines(path: Path, records: list[Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(record.value + b"\n" for record in records))


def write_kafka_records(path: Path, topic: str, records: list[Record], first_offset: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "key": record.key,
            "value": record.value,
            "topic": topic,
            "partition": 0,
            "offset": first_offset + index,
            "timestamp": None,
            "timestampType": 0,
        }
        for index, record in enumerate(records)
    ]
    pq.write_table(pa.Table.from_pylist(rows, schema=KAFKA_RECORD_SCHEMA), path)


@dataclass
class Landed:
    """What was landed, by (file name, position): the expected answers."""

    answers: dict[tuple[str, int], tuple[str, str | None] | None]
    state: dict[str, dict[int, str | None]]
    raw_values: dict[tuple[str, int], bytes]


def land_run(landing_root: Path, rng: random.Random, run: int, landed: Landed, late: bool) -> None:
    """Lands, for each flavour, one JSON-lines file and one Kafka-records file."""
    for flavour_index, flavour in enumerate(FLAVOURS):
        for shape_index, shape in enumerate(("json_lines", "kafka_records")):
            first_key = KNOWN_KEYS.start + ((run * len(FLAVOURS) + flavour_index) * 2 + shape_index) * 40
            records = draw_records(flavour, shape, rng, first_key, RANDOM_KEYS_FROM + first_key)
            stamp = f"2026-11-23T10:0{run}:00"
            name = f"{flavour.mart}-{flavour_index}-{stamp}.{'jsonl' if shape == 'json_lines' else 'parquet'}"
            path = landing_root / flavour.folder / shape / name
            if shape == "json_lines":
                write_json_lines(path, records)
            else:
                write_kafka_records(path, f"fuzz.{flavour.mart}", records, first_offset=1000 * run)
            if late:
                old = 978_307_200  # 2001-01-01: a copy that kept its times, or a backfill
                os.utime(path, (old, old))
            for position, record in enumerate(records, start=1):
                landed.answers[(name, position)] = record.expected
                landed.raw_values[(name, position)] = record.value
                if record.expected is not None and record.expected[0] == "applied":
                    landed.state.setdefault(flavour.mart, {})[record.row_key] = record.expected[1]


@pytest.fixture(scope="module")
def fuzz_build(dbt: Dbt, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Landed]:
    landing_root = tmp_path_factory.mktemp("fuzz") / "landing"
    rng = random.Random(SEED)
    landed = Landed({}, {}, {})
    # The data tests check every record is accounted for; the unit tests and the
    # same-sequence check have nothing to say about bad records.
    models = [
        "build",
        "--exclude",
        "test_type:unit",
        "same_sequence_changes_agree",
        "--select",
        "+test__test",
        "+tpch__region",
        "+cdl__ct_pg2hudi",
        "+billing__mio_log",
        "+int_quarantined_records_logged",
    ]
    land_run(landing_root, rng, 0, landed, late=False)
    dbt.run(*models, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    land_run(landing_root, rng, 1, landed, late=True)
    dbt.run(*models, schema=SCHEMA, landing_root=landing_root, extra_vars=CORPUS_TARGETS)
    return SCHEMA, landed


def file_name(path_column: str) -> str:
    return f"element_at(split({path_column}, '/'), -1)"


def test_every_raw_record_has_exactly_one_outcome(
    spark: SparkSession, fuzz_build: tuple[str, Landed]
) -> None:
    schema, landed = fuzz_build
    staged = rows_as_text(
        spark,
        " union all ".join(
            f"select {file_name('landing_file')} as file, landing_position, record_outcome, raw_record_id"
            f" from {schema}_staging.stg_{folder}__records"
            for folder in sorted({flavour.folder for flavour in FLAVOURS})
        ),
    )
    outcomes: dict[tuple[str, int], set[str]] = {}
    for file, position, outcome, _ in staged:
        outcomes.setdefault((file, int(position)), set()).add(outcome)
    assert set(outcomes) == set(landed.answers), "every landed record is staged, and nothing else"
    assert all(len(kinds) == 1 for kinds in outcomes.values())


def test_known_bad_records_get_their_answer(spark: SparkSession, fuzz_build: tuple[str, Landed]) -> None:
    schema, landed = fuzz_build
    quarantined = {
        (file, int(position)): reason
        for file, position, reason in rows_as_text(
            spark,
            f"select {file_name('landing_file')}, landing_position, reason_code"
            f" from {schema}_intermediate.int_quarantined_records_logged",
        )
    }
    expected = {
        place: answer[1] for place, answer in landed.answers.items() if answer and answer[0] == "quarantined"
    }
    assert {place: quarantined.get(place) for place in expected} == expected
    applied = {place for place, answer in landed.answers.items() if answer and answer[0] == "applied"}
    assert not applied & set(quarantined), "records with a known good answer are not quarantined"


def test_current_state_is_exactly_the_applied_changes(
    spark: SparkSession, fuzz_build: tuple[str, Landed]
) -> None:
    schema, landed = fuzz_build
    for flavour in {flavour.mart: flavour for flavour in FLAVOURS}.values():
        rows = table_rows(
            spark, schema, flavour.mart, [flavour.key_column, flavour.value_column], [flavour.key_column]
        )
        assert all(key is not None for key, _ in rows), "a current-state table never holds a null key"
        known = [(key, value) for key, value in rows if int(key) in KNOWN_KEYS]
        expected = sorted(landed.state[flavour.mart].items())
        assert known == [(str(key), value) for key, value in expected], flavour.mart


def test_bytes_that_are_not_utf8_are_kept_as_landed(
    spark: SparkSession, fuzz_build: tuple[str, Landed]
) -> None:
    """A Kafka record's value that is not UTF-8 is quarantined with its bytes unchanged."""
    schema, landed = fuzz_build
    kept = rows_as_text(
        spark,
        f"select {file_name('landing_file')}, landing_position, hex(cast(raw_value as binary))"
        f" from {schema}_intermediate.int_quarantined_records_logged"
        " where reason_code = 'invalid_utf8' and kafka_offset is not null",
    )
    assert kept, "the draw holds Kafka records that are not UTF-8"
    for file, position, value_hex in kept:
        assert bytes.fromhex(value_hex) == landed.raw_values[(file, int(position))]

"""DTS Avro decoding: every union branch of an image value, both writer schemas, SDK files
split record by record, and every kind of bad record (kept, with the Avro error)."""

from __future__ import annotations

import base64
import io
import json
import struct
from typing import Any

import pytest
from fastavro import schemaless_writer

from cdc_udfs.dts_avro import (
    KAFKA_SCHEMA_FILE,
    SDK_SCHEMA_FILE,
    file_records_json,
    record_json,
    record_schema,
)

NS = "com.alibaba.dts.formats.avro."
EMPTY_DATE_TIME = dict.fromkeys(("year", "month", "day", "hour", "minute", "second", "millis"))


def record(
    after: list[Any] | str | None, names: list[str] | None, *, record_id: int = 7, sdk: bool = False
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "version": 1,
        "id": record_id,
        "sourceTimestamp": 1709283600,
        "sourcePosition": "1@3",
        "safeSourcePosition": "",
        "sourceTxid": "tx",
        "source": {"sourceType": "MySQL", "version": "8.0"},
        "operation": "INSERT" if isinstance(after, list) else "DDL",
        "objectName": "crm.contacts",
        "processTimestamps": None,
        "tags": {},
        "fields": None if names is None else [{"name": name, "dataTypeNumber": 253} for name in names],
        "beforeImages": None,
        "afterImages": after,
    }
    if not sdk:
        document["bornTimestamp"] = 0
    return document


def avro(document: dict[str, Any], schema_file: str = KAFKA_SCHEMA_FILE) -> bytes:
    buffer = io.BytesIO()
    schemaless_writer(buffer, record_schema(schema_file), document)
    return buffer.getvalue()


def decoded_values(values: list[Any]) -> list[Any]:
    names = [f"c{position}" for position in range(len(values))]
    text = record_json(avro(record(values, names)))
    assert text is not None
    return json.loads(text)["afterImages"]  # type: ignore[no-any-return]


def test_every_union_branch_keeps_its_fields_named_by_branch() -> None:
    point = struct.pack("<BIdd", 1, 1, 1.0, 2.0)
    values = [
        None,
        (NS + "Integer", {"precision": 20, "value": "18446744073709551615"}),
        (NS + "Character", {"charset": "utf8mb4", "value": "Zoë".encode()}),
        (NS + "Decimal", {"value": "-12.50", "precision": 10, "scale": 2}),
        (NS + "Float", {"value": 0.1, "precision": 22, "scale": 31}),
        (NS + "Float", {"value": float("nan"), "precision": 22, "scale": 31}),
        (NS + "Timestamp", {"timestamp": 1709280000, "millis": 123456}),
        (NS + "DateTime", {**EMPTY_DATE_TIME, "year": 1990, "month": 2, "day": 28}),
        (
            NS + "TimestampWithTimeZone",
            {"value": {**EMPTY_DATE_TIME, "year": 2024, "month": 3, "hour": 17}, "timezone": "Asia/Shanghai"},
        ),
        (NS + "BinaryGeometry", {"type": "POINT", "value": point}),
        (NS + "BinaryGeometry", {"type": "POINT", "value": struct.pack("<I", 4326) + point}),
        (NS + "BinaryGeometry", {"type": "POINT", "value": b"\x07\x07"}),
        (NS + "TextGeometry", {"type": "POINT", "value": "POINT(1 2)"}),
        (NS + "BinaryObject", {"type": "BLOB", "value": b"\x00\xff"}),
        (NS + "TextObject", {"type": "JSON", "value": '{"a": 1}'}),
        (NS + "EmptyObject", "NULL"),
        (NS + "EmptyObject", "NONE"),
    ]
    assert decoded_values(values) == [
        None,
        {"branch": "Integer", "precision": 20, "value": "18446744073709551615"},
        {"branch": "Character", "charset": "utf8mb4", "value": "Zoë"},
        {"branch": "Decimal", "value": "-12.50", "precision": 10, "scale": 2},
        {"branch": "Float", "value": "0.1", "precision": 22, "scale": 31},
        {"branch": "Float", "value": "nan", "precision": 22, "scale": 31},
        {"branch": "Timestamp", "timestamp": 1709280000, "millis": 123456},
        {"branch": "DateTime", **EMPTY_DATE_TIME, "year": 1990, "month": 2, "day": 28},
        {
            "branch": "TimestampWithTimeZone",
            **EMPTY_DATE_TIME,
            "year": 2024,
            "month": 3,
            "hour": 17,
            "timezone": "Asia/Shanghai",
        },
        {
            "branch": "BinaryGeometry",
            "type": "POINT",
            "value": '{"coordinates":[1,2],"type":"Point","srid":0}',
        },
        {
            "branch": "BinaryGeometry",
            "type": "POINT",
            "value": '{"coordinates":[1,2],"type":"Point","srid":4326}',
        },
        {"branch": "BinaryGeometry", "type": "POINT", "value": "Bwc="},
        {"branch": "TextGeometry", "type": "POINT", "value": "POINT(1 2)"},
        {"branch": "BinaryObject", "type": "BLOB", "value": "AP8="},
        {"branch": "TextObject", "type": "JSON", "value": '{"a": 1}'},
        {"branch": "EmptyObject", "value": "NULL"},
        {"branch": "EmptyObject", "value": "NONE"},
    ]


@pytest.mark.parametrize(
    ("charset", "data", "text"),
    [
        ("gbk", "张伟".encode("gbk"), "张伟"),
        ("latin1", "Zürich".encode("cp1252"), "Zürich"),
        ("latin1", b"\x80", "€"),  # MySQL's latin1 is Windows-1252
        ("utf8", "naïve".encode(), "naïve"),
        ("big5", "臺北".encode("big5"), "臺北"),
        ("binary", b"\x00\x01", "AAE="),
    ],
)
def test_character_text_is_decoded_with_its_charset(charset: str, data: bytes, text: str) -> None:
    values = decoded_values([(NS + "Character", {"charset": charset, "value": data})])
    assert values[0]["value"] == text


def test_a_ddl_record_keeps_its_statement() -> None:
    text = record_json(avro(record("ALTER TABLE t ADD c INT", None)))
    assert text is not None
    document = json.loads(text)
    assert (document["operation"], document["imagesText"], document["afterImages"]) == (
        "DDL",
        "ALTER TABLE t ADD c INT",
        None,
    )


def test_a_kafka_value_in_the_sdk_schema_is_read_too() -> None:
    text = record_json(avro(record([None], ["c"], sdk=True), SDK_SCHEMA_FILE))
    assert text is not None
    assert json.loads(text)["id"] == 7


def error_of(text: str | None) -> dict[str, Any]:
    assert text is not None
    document = json.loads(text)
    assert set(document) == {"error_kind", "error", "bytes_base64"}
    return document  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"\x02\x00garbage\xff\xff\xff\xff\xff", "not a DTS Avro Record"),
        (avro(record([None], ["c"]))[:-9], "not a DTS Avro Record"),
        (avro(record([None], ["c"])) + b"\x00\x00", "the record ends at byte"),
        (b"", "not a DTS Avro Record"),
    ],
    ids=["corrupt", "truncated", "trailing bytes", "empty"],
)
def test_bytes_that_are_not_one_record_are_kept_with_the_avro_error(value: bytes, message: str) -> None:
    error = error_of(record_json(value))
    assert error["error_kind"] == "avro"
    assert message in error["error"]
    assert base64.b64decode(error["bytes_base64"]) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((NS + "Character", {"charset": "gbk", "value": b"\xff\xfe"}), "column c0: bytes are not gbk text"),
        ((NS + "Character", {"charset": "klingon", "value": b"x"}), "column c0: charset 'klingon'"),
        (
            (NS + "TimestampWithTimeZone", {"value": EMPTY_DATE_TIME, "timezone": "Mars/Olympus"}),
            "column c0: time zone 'Mars/Olympus'",
        ),
    ],
    ids=["bad gbk bytes", "unknown charset", "unknown time zone"],
)
def test_a_value_that_does_not_decode_keeps_the_record_with_the_reason(value: Any, message: str) -> None:
    data = avro(record([value], ["c0"]))
    error = error_of(record_json(data))
    assert error["error_kind"] == "value"
    assert message in error["error"]
    assert base64.b64decode(error["bytes_base64"]) == data


def test_an_sdk_file_is_split_record_by_record_and_a_cut_record_keeps_the_rest() -> None:
    first = avro(record([None], ["c"], record_id=1, sdk=True), SDK_SCHEMA_FILE)
    bad_value = avro(
        record([(NS + "Character", {"charset": "gbk", "value": b"\xff\xfe"})], ["c"], record_id=2, sdk=True),
        SDK_SCHEMA_FILE,
    )
    third = avro(record([None], ["c"], record_id=3, sdk=True), SDK_SCHEMA_FILE)
    cut = third[:-4]
    texts = [json.loads(text) for text in file_records_json(first + bad_value + third + cut)]
    assert [text.get("id") for text in texts] == [1, None, 3, None]
    assert texts[1]["error_kind"] == "value"
    assert base64.b64decode(texts[1]["bytes_base64"]) == bad_value
    assert texts[3]["error_kind"] == "avro"
    assert base64.b64decode(texts[3]["bytes_base64"]) == cut
    assert file_records_json(b"") == []
    assert file_records_json(None) == []

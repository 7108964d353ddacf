"""DTS Avro sample records: MySQL table crm.contacts through Alibaba DTS, written with fastavro
from the real `Record` schema (python_udfs/src/cdc_udfs/dts_avro_schema/, from Alibaba's
aliyun-dts-subscribe-demo), landed both ways DTS delivers them:

    dts_avro/kafka_records/dts.crm+0+0000000000.parquet   Kafka records, one Record per value
                                                          (Kafka schema, with bornTimestamp)
    dts_avro/binary_files/crm-0001.dtsavro                 the DTS SDK's records one after
                                                          another (SDK schema), cut at the end

No public sample exists, so every union branch of an image value is here, with text in three
charsets (utf8mb4, gbk, latin1), a key change, a delete, a redelivered record, DDL and
control records, corrupt bytes, a value that does not decode and a truncated record.
Every record is validated against its schema and read back before it is written.
sample_data/README.md lists the records and the current state they must give.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from fastavro import schemaless_reader, schemaless_writer
from fastavro.validation import validate

from cdc_udfs.dts_avro import KAFKA_SCHEMA_FILE, MYSQL_CHARSETS, SDK_SCHEMA_FILE, record_schema

Json = dict[str, Any]
NS = "com.alibaba.dts.formats.avro."
BASE_SECONDS = 1709283600  # 2024-03-01 09:00:00 UTC

# (column, MySQL type number as DTS writes it in `fields`)
FIELDS = [
    ("id", 3),  # INT
    ("full_name", 253),  # VARCHAR utf8mb4
    ("name_gbk", 253),  # VARCHAR CHARACTER SET gbk
    ("city", 253),  # VARCHAR CHARACTER SET latin1
    ("balance", 246),  # DECIMAL(12,2)
    ("score", 5),  # DOUBLE
    ("created_at", 7),  # TIMESTAMP(6)
    ("birth_date", 10),  # DATE
    ("wake_time", 11),  # TIME(6)
    ("updated_at", 12),  # DATETIME(6)
    ("signup_year", 13),  # YEAR
    ("last_login_at", 7),  # a zoned timestamp (TimestampWithTimeZone)
    ("photo", 252),  # BLOB
    ("bio", 252),  # TEXT
    ("home_wkt", 253),  # geometry as WKT text
    ("home", 255),  # GEOMETRY (MySQL: 4-byte SRID, then WKB)
    ("nickname", 253),  # VARCHAR
    ("visits", 8),  # BIGINT UNSIGNED
]


def integer(value: int) -> tuple[str, Json]:
    return (NS + "Integer", {"precision": 20, "value": str(value)})


def character(text: str, charset: str) -> tuple[str, Json]:
    """A Character value: the text encoded as the decoder will read it (MySQL charset names)."""
    codec = MYSQL_CHARSETS.get(charset, charset)
    return (NS + "Character", {"charset": charset, "value": text.encode(codec)})


def contact(contact_id: int, **changes: Any) -> list[Any]:
    """A whole row image of crm.contacts in `FIELDS` order; changes replace values by column."""
    row: dict[str, Any] = {
        "id": integer(contact_id),
        "full_name": character(f"Zoë Lefèvre {contact_id}", "utf8mb4"),
        "name_gbk": character("张伟", "gbk"),
        "city": character("Zürich", "latin1"),
        "balance": (NS + "Decimal", {"value": "100.50", "precision": 12, "scale": 2}),
        "score": (NS + "Float", {"value": 0.1, "precision": 22, "scale": 31}),
        "created_at": (NS + "Timestamp", {"timestamp": 1709280000, "millis": 123456}),
        "birth_date": (NS + "DateTime", date_time(year=1990, month=2, day=28)),
        "wake_time": (NS + "DateTime", date_time(hour=6, minute=30, second=5, millis=250000)),
        "updated_at": (
            NS + "DateTime",
            date_time(year=2024, month=3, day=1, hour=8, minute=59, second=59, millis=999999),
        ),
        "signup_year": (NS + "DateTime", date_time(year=2019)),
        "last_login_at": (
            NS + "TimestampWithTimeZone",
            {
                "value": date_time(year=2024, month=3, day=1, hour=17, minute=0, second=0, millis=0),
                "timezone": "+08:00",
            },
        ),
        "photo": (NS + "BinaryObject", {"type": "BLOB", "value": bytes([0, 1, 2, 254, 255])}),
        "bio": (NS + "TextObject", {"type": "TEXT", "value": 'Likes "quotes", commas, and\nnew lines'}),
        "home_wkt": (NS + "TextGeometry", {"type": "POINT", "value": "POINT(8.54 47.37)"}),
        "home": (NS + "BinaryGeometry", {"type": "POINT", "value": mysql_point(8.54, 47.37)}),
        "nickname": None,
        "visits": integer(18446744073709551615),
    }
    row.update(changes)
    return [row[name] for name, _ in FIELDS]


def date_time(**parts: int) -> Json:
    """A DateTime with the parts it has; the others are null, as the schema's defaults."""
    return {name: parts.get(name) for name in ("year", "month", "day", "hour", "minute", "second", "millis")}


def mysql_point(x: float, y: float, srid: int = 4326) -> bytes:
    """MySQL's internal geometry: SRID (4 bytes, little-endian), then WKB."""
    return struct.pack("<I", srid) + struct.pack("<BIdd", 1, 1, x, y)


def record(
    record_id: int,
    operation: str,
    *,
    before: Any = None,
    after: Any = None,
    object_name: str | None = "crm.contacts",
    fields: Any = "columns",
    sdk: bool = False,
) -> Json:
    """One Record; `fields` is the column list unless given (None or a DDL text)."""
    document: Json = {
        "version": 1,
        "id": record_id,
        "sourceTimestamp": BASE_SECONDS + record_id - 100,
        "sourcePosition": f"{4000 + record_id}@3",
        "safeSourcePosition": f"{4000 + record_id}@3",
        "sourceTxid": f"tx-{(record_id - 100) // 4}",
        "source": {"sourceType": "MySQL", "version": "8.0.36"},
        "operation": operation,
        "objectName": object_name,
        "processTimestamps": None,
        "tags": {"thread_id": "7"},
        "fields": [{"name": name, "dataTypeNumber": number} for name, number in FIELDS]
        if fields == "columns"
        else fields,
        "beforeImages": before,
        "afterImages": after,
    }
    if not sdk:
        document["bornTimestamp"] = BASE_SECONDS + record_id - 100
    return document


def encoded(document: Json, schema_file: str) -> bytes:
    """The record's Avro bytes, validated against the schema and read back unchanged."""
    schema = record_schema(schema_file)
    validate(document, schema, raise_errors=True)
    buffer = io.BytesIO()
    schemaless_writer(buffer, schema, document)
    data = buffer.getvalue()
    read_back = schemaless_reader(
        io.BytesIO(data), schema, None, return_record_name=True, return_named_type=True
    )
    if _comparable(read_back) != _comparable(document):
        raise AssertionError(f"record {document['id']} does not read back as written")
    return data


def _comparable(value: Any) -> Any:
    """Tuples (union branches, as written) and lists (as read back) compare alike."""
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_comparable(item) for item in value]
    return value


def kafka_records() -> list[tuple[int, bytes | None, bytes]]:
    """(offset, key, value) of dts.crm partition 0: the first part of the stream."""
    first = contact(1, nickname=character("ally", "utf8mb4"))
    second = contact(2, nickname=character("bobby", "utf8mb4"), city=character("Göteborg", "latin1"))
    first_updated = contact(
        1,
        balance=(NS + "Decimal", {"value": "250.75", "precision": 12, "scale": 2}),
        nickname=(NS + "EmptyObject", "NONE"),  # absent: keeps 'ally'
        bio=(NS + "EmptyObject", "NULL"),  # present, null
    )
    undecodable = contact(3, name_gbk=(NS + "Character", {"charset": "gbk", "value": b"\xff\xfe"}))
    values = [
        encoded(record(100, "BEGIN", object_name=None, fields=None), KAFKA_SCHEMA_FILE),
        encoded(record(101, "INSERT", after=first), KAFKA_SCHEMA_FILE),
        encoded(record(102, "INSERT", after=second), KAFKA_SCHEMA_FILE),
        encoded(record(103, "COMMIT", object_name=None, fields=None), KAFKA_SCHEMA_FILE),
        encoded(
            record(
                104,
                "DDL",
                fields=None,
                after="ALTER TABLE `crm`.`contacts` ADD COLUMN `referrer` varchar(64) NULL",
            ),
            KAFKA_SCHEMA_FILE,
        ),
        encoded(record(105, "UPDATE", before=first, after=first_updated), KAFKA_SCHEMA_FILE),
        b"\x02\x00not avro at all \xff\xff\xff\xff\xff\xff\xff\xff\xff",
        encoded(record(106, "HEARTBEAT", object_name=None, fields=None), KAFKA_SCHEMA_FILE),
        encoded(record(107, "INSERT", after=undecodable), KAFKA_SCHEMA_FILE),
    ]
    return [(offset, f"crm.contacts:{offset}".encode(), value) for offset, value in enumerate(values)]


def sdk_file() -> bytes:
    """The DTS SDK's records one after another (SDK schema): a key change, an insert and its
    delete, a redelivered update, then a record cut in the middle."""
    first = contact(1, nickname=character("ally", "utf8mb4"))
    first_updated = contact(
        1,
        balance=(NS + "Decimal", {"value": "250.75", "precision": 12, "scale": 2}),
        nickname=(NS + "EmptyObject", "NONE"),
        bio=(NS + "EmptyObject", "NULL"),
    )
    second = contact(2, nickname=character("bobby", "utf8mb4"), city=character("Göteborg", "latin1"))
    moved = contact(20, nickname=(NS + "EmptyObject", "NONE"), city=character("Göteborg", "latin1"))
    fourth = contact(4, full_name=character("Short Lived", "utf8mb4"))
    records = [
        encoded(record(108, "UPDATE", before=second, after=moved, sdk=True), SDK_SCHEMA_FILE),
        encoded(record(109, "INSERT", after=fourth, sdk=True), SDK_SCHEMA_FILE),
        encoded(record(110, "DELETE", before=fourth, sdk=True), SDK_SCHEMA_FILE),
        encoded(record(105, "UPDATE", before=first, after=first_updated, sdk=True), SDK_SCHEMA_FILE),
    ]
    cut = encoded(record(111, "INSERT", after=contact(5), sdk=True), SDK_SCHEMA_FILE)
    return b"".join(records) + cut[: len(cut) // 2]


def write_dts_avro(landing: Path, kafka_record_schema: pa.Schema) -> None:
    """Writes both DTS Avro landings under `landing`/dts_avro/."""
    folder = landing / "dts_avro" / "kafka_records"
    folder.mkdir(parents=True, exist_ok=True)
    rows = kafka_records()
    table = pa.table(
        {
            "key": [key for _, key, _ in rows],
            "value": [value for _, _, value in rows],
            "topic": ["dts.crm"] * len(rows),
            "partition": [0] * len(rows),
            "offset": [offset for offset, _, _ in rows],
            "timestamp": [(BASE_SECONDS + offset) * 1_000_000 for offset, _, _ in rows],
            "timestampType": [0] * len(rows),
        },
        schema=kafka_record_schema,
    )
    pq.write_table(table, folder / "dts.crm+0+0000000000.parquet", compression="snappy")
    files_folder = landing / "dts_avro" / "binary_files"
    files_folder.mkdir(parents=True, exist_ok=True)
    (files_folder / "crm-0001.dtsavro").write_bytes(sdk_file())

"""Alibaba DTS Avro records (the `Record` schema of DTS's subscription and Kafka formats) as
JSON text that Spark SQL parses like any other flavour's message.

Python does only what Spark SQL cannot do here: read the Avro binary (no spark-avro jar
without a download), turn `Character` bytes into text with their MySQL charset (Spark 4 decodes
only a few charsets), and read `BinaryGeometry` bytes as GeoJSON (the same reader as Debezium's
geometry). Everything else stays as the record has it, one JSON object per record:

    {"id": 42, "operation": "UPDATE", "objectName": "crm.contacts", "sourceTimestamp": ...,
     "fields": [{"name": "id", "dataTypeNumber": 3}, ...],
     "beforeImages": [{"branch": "Integer", "precision": 11, "value": "7"}, null, ...],
     "afterImages": [...], "imagesText": null, ...}

Each image value keeps its union branch in `branch` and its fields as the schema names them
(`Timestamp` keeps `timestamp` and `millis`, `DateTime` its parts, `Float` its value as text so
that NaN and infinities survive JSON); the SQL of the flavour (macros/parsing/dts_avro.sql)
turns them into the canonical text that every flavour's typing reads. A union member that is a
string (`fields`, `beforeImages`, `afterImages`: DDL records carry their statement there) goes
to `fieldsText` / `imagesText`.

A record that cannot be used becomes {"error_kind": ..., "error": ..., "bytes_base64": ...}:
`avro` when the bytes are not one Record (corrupt, truncated, trailing bytes), `value` when a
value cannot be decoded (a charset nobody knows, bytes that are not text in it, a time zone
that is not one). The bytes are kept, so nothing is lost.

Two writer schemas exist: the Kafka format's (`com.alibaba.dts.formats.avro.Record.avsc`, with
`bornTimestamp` last) and the Java SDK's (`sdk.Record.avsc`, without it). A Kafka value is one
record: it is read with the Kafka schema, else with the SDK's, and must end exactly where the
record does. An SDK file is records one after another, with no framing: it is read with the
SDK's schema, record by record; after a record that does not decode, the rest of the file
cannot be framed and is kept as one error entry.
"""

from __future__ import annotations

import base64
import codecs
import io
import json
import re
import zoneinfo
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from typing import Any

from fastavro import schemaless_reader
from fastavro.schema import load_schema

from cdc_udfs.geometry import WkbError, geojson_from_wkb

SCHEMA_NAMESPACE = "com.alibaba.dts.formats.avro."
KAFKA_SCHEMA_FILE = "com.alibaba.dts.formats.avro.Record.avsc"
SDK_SCHEMA_FILE = "sdk.Record.avsc"

# MySQL charset names (SHOW CHARACTER SET) whose Python codec has another name.
MYSQL_CHARSETS = {
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "utf8mb4": "utf-8",
    "latin1": "cp1252",  # MySQL's latin1 is Windows-1252
    "latin2": "iso8859-2",
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "utf16le": "utf-16-le",
    "utf32": "utf-32-be",
    "sjis": "shift_jis",
    "ujis": "euc_jp",
    "eucjpms": "euc_jp",
    "euckr": "euc_kr",
    "koi8r": "koi8_r",
    "koi8u": "koi8_u",
    "greek": "iso8859-7",
    "hebrew": "iso8859-8",
    "latin5": "iso8859-9",
    "latin7": "iso8859-13",
    "armscii8": "armscii8",
    "tis620": "tis-620",
    "macroman": "mac_roman",
    "swe7": "ascii",
}
BYTES_CHARSETS = {"binary"}
UTC_OFFSET = re.compile(r"^(?:[+-]\d{2}:?\d{2}|Z|UTC|GMT)$")


class DtsAvroError(ValueError):
    """The bytes are not DTS Avro records (kind `avro`) or hold a value that cannot be decoded
    (kind `value`); the message says where and why."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@cache
def record_schema(file_name: str) -> dict[str, Any]:
    """The parsed writer schema of one of the bundled .avsc files (named types resolved from
    the files beside it)."""
    schema_folder = files("cdc_udfs") / "dts_avro_schema"
    return load_schema(str(schema_folder / file_name))  # type: ignore[no-any-return]


def _read_one(stream: io.BytesIO, file_name: str) -> dict[str, Any]:
    try:
        return schemaless_reader(  # type: ignore[no-any-return]
            stream, record_schema(file_name), None, return_record_name=True, return_named_type=True
        )
    except Exception as error:  # fastavro raises EOFError, ValueError, IndexError, UnicodeDecodeError...
        detail = str(error) or "the bytes end inside the record"
        raise DtsAvroError(
            "avro", f"not a DTS Avro Record at byte {stream.tell()}: {type(error).__name__}: {detail}"
        ) from error


def decode_record(value: bytes) -> dict[str, Any]:
    """One Kafka value: exactly one Record, Kafka schema first, then the SDK's."""
    failures = []
    for file_name in (KAFKA_SCHEMA_FILE, SDK_SCHEMA_FILE):
        stream = io.BytesIO(value)
        try:
            record = _read_one(stream, file_name)
        except DtsAvroError as error:
            failures.append(f"{_schema_label(file_name)}: {error}")
            continue
        if stream.tell() == len(value):
            return record
        failures.append(
            f"{_schema_label(file_name)}: the record ends at byte {stream.tell()} of {len(value)}"
        )
    raise DtsAvroError("avro", "; ".join(failures))


def decode_file(content: bytes) -> Iterator[tuple[int, int, dict[str, Any] | DtsAvroError]]:
    """(start, end, record) for each Record of one SDK file, in order (SDK schema). After a
    record that does not decode, one error for the rest of the file, which cannot be framed
    any more."""
    stream = io.BytesIO(content)
    while stream.tell() < len(content):
        start = stream.tell()
        try:
            record = _read_one(stream, SDK_SCHEMA_FILE)
        except DtsAvroError as error:
            message = f"{error} (the record from byte {start}; the {len(content) - start} bytes from there are kept)"
            yield start, len(content), DtsAvroError("avro", message)
            return
        yield start, stream.tell(), record


def record_json(value: bytes | None) -> str | None:
    """cdc_dts_avro_record_json: one Kafka value as the flavour's JSON text (null for null)."""
    if value is None:
        return None
    try:
        return _json(normalized_record(decode_record(value)))
    except DtsAvroError as error:
        return _error_json(error, value)


def file_records_json(content: bytes | None) -> list[str]:
    """cdc_dts_avro_file_records: the JSON text of every record of one SDK file, in order."""
    texts = []
    for start, end, decoded in decode_file(content or b""):
        try:
            if isinstance(decoded, DtsAvroError):
                raise decoded
            texts.append(_json(normalized_record(decoded)))
        except DtsAvroError as error:
            texts.append(_error_json(error, (content or b"")[start:end]))
    return texts


def normalized_record(record: dict[str, Any]) -> dict[str, Any]:
    """The decoded Record as plain JSON values: union branches named, bytes decoded."""
    fields = record.get("fields")
    object_name = record.get("objectName")
    images = {name: record.get(name) for name in ("beforeImages", "afterImages")}
    texts = [image for image in images.values() if isinstance(image, str)]
    return {
        "version": record.get("version"),
        "id": record.get("id"),
        "sourceTimestamp": record.get("sourceTimestamp"),
        "sourcePosition": record.get("sourcePosition"),
        "safeSourcePosition": record.get("safeSourcePosition"),
        "sourceTxid": record.get("sourceTxid"),
        "sourceType": (record.get("source") or {}).get("sourceType"),
        "operation": record.get("operation"),
        "objectName": object_name,
        "tags": record.get("tags"),
        "bornTimestamp": record.get("bornTimestamp"),
        "fields": fields if isinstance(fields, list) else None,
        "fieldsText": fields if isinstance(fields, str) else None,
        "beforeImages": _image(images["beforeImages"], fields),
        "afterImages": _image(images["afterImages"], fields),
        "imagesText": texts[-1] if texts else None,
    }


def _image(image: Any, fields: Any) -> list[dict[str, Any] | None] | None:
    if not isinstance(image, list):
        return None
    names = [field.get("name") for field in fields] if isinstance(fields, list) else []
    return [
        _image_value(item, names[position] if position < len(names) else f"#{position + 1}")
        for position, item in enumerate(image)
    ]


def _image_value(item: Any, column: str) -> dict[str, Any] | None:
    """One image value: None for the null branch, else {"branch": <union branch>, ...its fields}
    (several branches have a field named `type` of their own)."""
    if item is None:
        return None
    branch, value = item
    branch = branch.removeprefix(SCHEMA_NAMESPACE)
    if branch == "EmptyObject":
        return {"branch": branch, "value": value}
    fields = dict(value)
    if branch == "Character":
        fields["value"] = character_text(fields["value"], fields["charset"], column)
    elif branch == "Float":
        fields["value"] = repr(fields["value"])
    elif branch == "BinaryObject":
        fields["value"] = base64.b64encode(fields["value"]).decode("ascii")
    elif branch == "BinaryGeometry":
        fields["value"] = geometry_text(fields["value"])
    elif branch == "TimestampWithTimeZone":
        fields = {**fields.pop("value"), "timezone": time_zone(fields["timezone"], column)}
    return {"branch": branch, **fields}


def character_text(data: bytes, charset: str, column: str) -> str:
    """A Character value as text, decoded with its MySQL charset; base64 for `binary`."""
    name = (charset or "").strip().lower()
    if name in BYTES_CHARSETS:
        return base64.b64encode(data).decode("ascii")
    codec = MYSQL_CHARSETS.get(name, name)
    try:
        codecs.lookup(codec)
    except LookupError as error:
        raise DtsAvroError(
            "value", f"column {column}: charset '{charset}' is not one Python can decode"
        ) from error
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        raise DtsAvroError(
            "value", f"column {column}: bytes are not {charset} text ({error.reason} at byte {error.start})"
        ) from error


def geometry_text(data: bytes) -> str:
    """BinaryGeometry bytes as GeoJSON: WKB, or MySQL's internal form (4-byte SRID, then WKB);
    base64 of the bytes when they are neither."""
    try:
        return geojson_from_wkb(data, None)
    except WkbError:
        pass
    if len(data) > 4:
        try:
            return geojson_from_wkb(data[4:], int.from_bytes(data[:4], "little"))
        except WkbError:
            pass
    return base64.b64encode(data).decode("ascii")


def time_zone(name: str, column: str) -> str:
    """A TimestampWithTimeZone's zone as Spark reads it: an offset or a region id; an unknown
    zone is an error (Spark would fail the whole query on it)."""
    if UTC_OFFSET.match(name or ""):
        return name
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as error:
        raise DtsAvroError(
            "value", f"column {column}: time zone '{name}' is not a zone id or offset"
        ) from error
    return name


def _schema_label(file_name: str) -> str:
    return "SDK schema" if file_name == SDK_SCHEMA_FILE else "Kafka schema"


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _error_json(error: DtsAvroError, data: bytes) -> str:
    return _json(
        {
            "error_kind": error.kind,
            "error": str(error),
            "bytes_base64": base64.b64encode(data).decode("ascii"),
        }
    )

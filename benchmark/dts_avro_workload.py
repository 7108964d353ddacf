"""The yardstick's Debezium workload as Alibaba DTS Avro: the same logical changes, landed as
Kafka records whose values are DTS Avro `Record`s (benchmark/run_benchmark.py --flavour
dts_avro). Not timed: it only prepares the files.

Each Debezium message of inventory.products becomes one Record (Kafka schema, from the bundled
python_udfs schema files): op c and r are INSERT, u UPDATE, d DELETE; id is the Debezium binlog
position packed into one number, (file number * 10^10 + pos) * 1000 + row, so that the record
id orders the changes as the binlog does (a redelivered message keeps its id); sourceTimestamp
is source.ts_ms in seconds. Values: id Integer, name and description Character utf8mb4,
weight Decimal(10,3), updated_at Timestamp.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from fastavro import parse_schema, schemaless_writer

from cdc_udfs.dts_avro import KAFKA_SCHEMA_FILE, record_schema

NS = "com.alibaba.dts.formats.avro."
OPERATIONS = {"c": "INSERT", "r": "INSERT", "u": "UPDATE", "d": "DELETE"}
FIELDS = [
    {"name": "id", "dataTypeNumber": 8},
    {"name": "name", "dataTypeNumber": 253},
    {"name": "description", "dataTypeNumber": 253},
    {"name": "weight", "dataTypeNumber": 246},
    {"name": "updated_at", "dataTypeNumber": 7},
]
KAFKA_RECORD_SCHEMA = pa.schema(
    [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("timestampType", pa.int32()),
    ]
)
BINLOG_NUMBER = re.compile(r"(\d+)$")


def image(row: dict[str, Any] | None) -> list[Any] | None:
    """A row image in FIELDS order; a null value is the union's null branch."""
    if row is None:
        return None

    def text(value: str | None) -> Any:
        return None if value is None else (NS + "Character", {"charset": "utf8mb4", "value": value.encode()})

    def timestamp(value: str | None) -> Any:
        if value is None:
            return None
        instant = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return (NS + "Timestamp", {"timestamp": int(instant.timestamp()), "millis": instant.microsecond})

    weight = row["weight"]
    return [
        (NS + "Integer", {"precision": 20, "value": str(row["id"])}),
        text(row["name"]),
        text(row["description"]),
        None if weight is None else (NS + "Decimal", {"value": str(weight), "precision": 10, "scale": 3}),
        timestamp(row["updated_at"]),
    ]


def record_id(source: dict[str, Any]) -> int:
    match = BINLOG_NUMBER.search(source["file"])
    if match is None or source["pos"] >= 10**10 or (source.get("row") or 0) >= 1000:
        raise ValueError(f"binlog position does not fit the packed id: {source}")
    return (int(match.group(1)) * 10**10 + source["pos"]) * 1000 + (source.get("row") or 0)


def records(lines: Iterator[bytes]) -> Iterator[tuple[int, bytes]]:
    """(kafka timestamp ms, Avro value) per Debezium line."""
    schema = parse_schema(record_schema(KAFKA_SCHEMA_FILE))
    for line in lines:
        message = json.loads(line)
        source = message["source"]
        document = {
            "version": 1,
            "id": record_id(source),
            "sourceTimestamp": source["ts_ms"] // 1000,
            "sourcePosition": f"{source['pos']}@{source['file']}",
            "safeSourcePosition": "",
            "sourceTxid": "",
            "source": {"sourceType": "MySQL", "version": "8.0"},
            "operation": OPERATIONS[message["op"]],
            "objectName": f"{source['db']}.{source['table']}",
            "processTimestamps": None,
            "tags": {},
            "fields": FIELDS,
            "beforeImages": image(message["before"]),
            "afterImages": image(message["after"]),
            "bornTimestamp": source["ts_ms"] // 1000,
        }
        buffer = io.BytesIO()
        schemaless_writer(buffer, schema, document)
        yield message["ts_ms"], buffer.getvalue()


def write_batch(debezium_batch: Path, parquet_path: Path, first_offset: int) -> int:
    """One Debezium JSON-lines batch as one Parquet file of Kafka records; returns the next offset."""
    with debezium_batch.open("rb") as lines:
        converted = list(records(line for line in lines if line.strip()))
    count = len(converted)
    table = pa.table(
        {
            "key": [None] * count,
            "value": [value for _, value in converted],
            "topic": ["dts.inventory"] * count,
            "partition": [0] * count,
            "offset": list(range(first_offset, first_offset + count)),
            "timestamp": [timestamp * 1000 for timestamp, _ in converted],
            "timestampType": [0] * count,
        },
        schema=KAFKA_RECORD_SCHEMA,
    )
    parquet_path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, parquet_path, compression="snappy")
    return first_offset + count

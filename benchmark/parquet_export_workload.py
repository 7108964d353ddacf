"""The yardstick's Debezium workload as an hourly Parquet CDC export: the same logical changes,
landed as inventory_products/year=/month=/day=/hour=/part-*.parquet files (the export names a
table by its folder only, and "products" alone would overlap the sample's shop.products;
benchmark/run_benchmark.py --flavour parquet_export). Not timed: it only prepares the files.

Each Debezium message of inventory.products becomes one row: the full row (op c, r, u: the
after image; op d: null except the id, as the export writes deletes) plus cdc_operation_type
(c and r INSERT, u UPDATE, d DELETE), cdc_change_seq (the Debezium binlog position packed into
one number, (file number * 10^10 + pos) * 1000 + row, so that it orders the changes as the
binlog does; a redelivered message keeps its number) and cdc_commit_timestamp (source.ts_ms).
Batch n is hour n of the export, from 2024-03-01 00:00 (day 1 + n // 24, hour n % 24), written as one file with the export's own types: id int64,
name and description string, weight decimal(10,3), updated_at and cdc_commit_timestamp
timestamp[us, UTC].
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from dts_avro_workload import record_id

OPERATIONS = {"c": "INSERT", "r": "INSERT", "u": "UPDATE", "d": "DELETE"}
SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64()),
        pa.field("name", pa.string()),
        pa.field("description", pa.string()),
        pa.field("weight", pa.decimal128(10, 3)),
        pa.field("updated_at", pa.timestamp("us", tz="UTC")),
        pa.field("cdc_operation_type", pa.string()),
        pa.field("cdc_change_seq", pa.int64()),
        pa.field("cdc_commit_timestamp", pa.timestamp("us", tz="UTC")),
    ]
)


def export_row(message: dict[str, Any]) -> dict[str, Any]:
    """One Debezium message as one exported row."""
    source = message["source"]
    operation = OPERATIONS[message["op"]]
    image = message["before"] if operation == "DELETE" else message["after"]
    row: dict[str, Any] = dict.fromkeys(("name", "description", "weight", "updated_at"))
    row["id"] = image["id"]
    if operation != "DELETE":
        row["name"] = image["name"]
        row["description"] = image["description"]
        row["weight"] = None if image["weight"] is None else Decimal(image["weight"])
        row["updated_at"] = (
            None
            if image["updated_at"] is None
            else datetime.fromisoformat(image["updated_at"].replace("Z", "+00:00"))
        )
    row["cdc_operation_type"] = operation
    row["cdc_change_seq"] = record_id(source)
    row["cdc_commit_timestamp"] = datetime.fromtimestamp(source["ts_ms"] / 1000, tz=UTC)
    return row


def write_batch(debezium_batch: Path, landing: Path, batch_number: int) -> Path:
    """One Debezium JSON-lines batch as the one Parquet file of hour `batch_number` of the export
    (counted from 2024-03-01 00:00); returns its path."""
    with debezium_batch.open("rb") as lines:
        rows = [export_row(json.loads(line)) for line in lines if line.strip()]
    day, hour = 1 + batch_number // 24, batch_number % 24
    folder = landing / "inventory_products" / "year=2024" / "month=03" / f"day={day:02d}" / f"hour={hour:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"part-00000-{debezium_batch.stem}-c000.snappy.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path, compression="snappy")
    return path

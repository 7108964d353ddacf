"""Hourly Parquet CDC export sample files (../shared/formats/hourly-parquet-cdc-export.md):
table `transactions`, written with pyarrow (snappy) the way the export lays them out:

    parquet_export/binary_files/transactions/year=2024/month=03/day=01/hour=HH/
        part-NNNNN-<uuid>-c000.snappy.parquet

Every row is the full row plus cdc_operation_type, cdc_change_seq and cdc_commit_timestamp.
The files show what the export's notes warn about: a key whose first event is an UPDATE, a
DELETE row that is null except the id, a "duplicate" UPDATE with the same visible content, a
row delivered twice, a file landing hours late into an hour already read, a column that
disappears (memo) and one that appears (channel), and bad files: a truncated Parquet file and
a file whose `amount` has become a string column. sample_data/README.md lists the rows and
the current state they must give.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

Row = dict[str, Any]

TABLE = "transactions"
DAY = "year=2024/month=03/day=01"

ID = pa.field("id", pa.int64())
ACCOUNT = pa.field("account", pa.string())
AMOUNT = pa.field("amount", pa.decimal128(12, 2))
AMOUNT_AS_TEXT = pa.field("amount", pa.string())
CURRENCY = pa.field("currency", pa.string())
STATUS = pa.field("status", pa.string())
MEMO = pa.field("memo", pa.string())
UPDATED_AT = pa.field("updated_at", pa.timestamp("us", tz="UTC"))
CHANNEL = pa.field("channel", pa.string())
CDC_FIELDS = [
    pa.field("cdc_operation_type", pa.string()),
    pa.field("cdc_change_seq", pa.int64()),
    pa.field("cdc_commit_timestamp", pa.timestamp("us", tz="UTC")),
]

# every column nullable, as in files Spark writes
FIRST_SCHEMA = pa.schema([ID, ACCOUNT, AMOUNT, CURRENCY, STATUS, MEMO, UPDATED_AT, *CDC_FIELDS])
# from hour 11: memo is gone, channel (not declared in the YAML) has appeared
LATER_SCHEMA = pa.schema([ID, ACCOUNT, AMOUNT, CURRENCY, STATUS, UPDATED_AT, CHANNEL, *CDC_FIELDS])
# hour 12, part-00001: amount written as text
TEXT_AMOUNT_SCHEMA = pa.schema(
    [ID, ACCOUNT, AMOUNT_AS_TEXT, CURRENCY, STATUS, UPDATED_AT, CHANNEL, *CDC_FIELDS]
)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def transaction(
    seq: int,
    operation: str,
    committed: str,
    txn_id: int,
    account: str | None = None,
    amount: str | None = None,
    currency: str | None = None,
    status: str | None = None,
    updated_at: str | None = None,
    **extra: str | None,
) -> Row:
    """One export row: the full row (memo and channel given by name when the file has them),
    then the cdc_ columns. Times are UTC."""
    return {
        "id": txn_id,
        "account": account,
        "amount": None if amount is None else Decimal(amount),
        "currency": currency,
        "status": status,
        "updated_at": None if updated_at is None else utc(updated_at),
        **extra,
        "cdc_operation_type": operation,
        "cdc_change_seq": seq,
        "cdc_commit_timestamp": utc(committed),
    }


@dataclass(frozen=True)
class ExportFile:
    hour: int
    part: int
    uuid: str
    schema: pa.Schema
    rows: tuple[Row, ...]

    def relative_path(self) -> str:
        return f"{TABLE}/{DAY}/hour={self.hour:02d}/part-{self.part:05d}-{self.uuid}-c000.snappy.parquet"

    def content(self) -> bytes:
        """The Parquet bytes; every row must have exactly the schema's columns."""
        for row in self.rows:
            if set(row) != set(self.schema.names):
                raise ValueError(f"{self.relative_path()}: row columns {sorted(row)} differ from the schema")
        table = pa.Table.from_pylist(list(self.rows), schema=self.schema)
        buffer = io.BytesIO()
        pq.write_table(table, buffer, compression="snappy")
        return buffer.getvalue()


# one write job, one uuid (fixed fakes)
UUID_09 = "6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c0901"
UUID_10 = "6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c1001"
UUID_10_LATE = "0d4e7b92-31a8-4f5c-8e16-c2a97b5d1402"
UUID_11 = "6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c1101"
UUID_12 = "6f1c2a3e-9b41-4c77-a0d2-5e8b1f3c1201"

ROW_1 = {"account": "ACC-1001", "amount": "250.00", "currency": "EUR"}
ROW_2 = {"account": "ACC-1002", "currency": "USD"}
ROW_4 = {
    "account": "ACC-1004",
    "amount": "-19.99",
    "currency": "GBP",
    "status": "pending",
    "memo": "Refund for order 5531",
    "updated_at": "2024-03-01T09:31:55",
}
ROW_6 = {"account": "ACC-1006", "currency": "EUR"}

HOUR_09 = ExportFile(
    9,
    0,
    UUID_09,
    FIRST_SCHEMA,
    (
        transaction(
            4310001,
            "INSERT",
            "2024-03-01T09:05:12.250",
            1,
            **ROW_1,
            status="pending",
            memo="Invoice 2024-0117",
            updated_at="2024-03-01T09:05:12",
        ),
        transaction(
            4310002,
            "INSERT",
            "2024-03-01T09:12:40.250",
            2,
            **ROW_2,
            amount="1200.50",
            status="pending",
            memo="Rent, March",
            updated_at="2024-03-01T09:12:40",
        ),
        transaction(
            4310003,
            "INSERT",
            "2024-03-01T09:20:03.250",
            3,
            account="ACC-1003",
            amount="75.00",
            currency="EUR",
            status="pending",
            memo=None,
            updated_at="2024-03-01T09:20:03",
        ),
        transaction(4310004, "INSERT", "2024-03-01T09:31:55.250", 4, **ROW_4),
        # the first event of id 5 is an UPDATE: no INSERT is ever sent for it
        transaction(
            4310005,
            "UPDATE",
            "2024-03-01T09:47:30.250",
            5,
            account="ACC-1005",
            amount="9.99",
            currency="EUR",
            status="settled",
            memo="Card top-up",
            updated_at="2024-03-01T09:47:30",
        ),
    ),
)

UPDATE_2 = transaction(
    4310102,
    "UPDATE",
    "2024-03-01T10:10:00.250",
    2,
    **ROW_2,
    amount="1150.50",
    status="pending",
    memo="Rent, March",
    updated_at="2024-03-01T10:10:00",
)
HOUR_10 = ExportFile(
    10,
    0,
    UUID_10,
    FIRST_SCHEMA,
    (
        transaction(
            4310101,
            "UPDATE",
            "2024-03-01T10:02:00.250",
            1,
            **ROW_1,
            status="authorized",
            memo="Invoice 2024-0117",
            updated_at="2024-03-01T10:02:00",
        ),
        UPDATE_2,
        # a DELETE row: null except the id (and the cdc_ columns)
        transaction(4310103, "DELETE", "2024-03-01T10:20:00.250", 3, memo=None),
        # the same visible content as the insert of id 4, sent again with a new sequence
        transaction(4310104, "UPDATE", "2024-03-01T10:30:00.250", 4, **ROW_4),
    ),
)
# the same row (same cdc_change_seq) delivered again in another part
HOUR_10_REDELIVERED = ExportFile(10, 1, UUID_10, FIRST_SCHEMA, (UPDATE_2,))
# landed about 3 hours late, after hour 11's file, into the hour=10 folder
HOUR_10_LATE = ExportFile(
    10,
    2,
    UUID_10_LATE,
    FIRST_SCHEMA,
    (
        transaction(
            4310050,
            "UPDATE",
            "2024-03-01T10:00:30.250",
            4,
            **{**ROW_4, "status": "on_hold", "updated_at": "2024-03-01T10:00:30"},
        ),
        transaction(
            4310150,
            "UPDATE",
            "2024-03-01T10:40:00.250",
            2,
            **ROW_2,
            amount="1150.50",
            status="authorized",
            memo="Rent, March (corrected)",
            updated_at="2024-03-01T10:40:00",
        ),
    ),
)
HOUR_11 = ExportFile(
    11,
    0,
    UUID_11,
    LATER_SCHEMA,
    (
        transaction(
            4310201,
            "UPDATE",
            "2024-03-01T11:15:00.250",
            1,
            **ROW_1,
            status="settled",
            updated_at="2024-03-01T11:15:00",
            channel="api",
        ),
        transaction(
            4310202,
            "INSERT",
            "2024-03-01T11:42:10.250",
            6,
            **ROW_6,
            amount="7.00",
            status="pending",
            updated_at="2024-03-01T11:42:10",
            channel="mobile",
        ),
    ),
)
# valid in memory; only its first half is landed
HOUR_12_TRUNCATED = ExportFile(
    12,
    0,
    UUID_12,
    LATER_SCHEMA,
    (
        transaction(
            4310290,
            "UPDATE",
            "2024-03-01T12:01:00.250",
            5,
            account="ACC-1005",
            amount="9.99",
            currency="EUR",
            status="refunded",
            updated_at="2024-03-01T12:01:00",
            channel="web",
        ),
    ),
)


def text_amount_row(row: Row, amount: str) -> Row:
    return {**row, "amount": amount}


HOUR_12_TEXT_AMOUNT = ExportFile(
    12,
    1,
    UUID_12,
    TEXT_AMOUNT_SCHEMA,
    (
        text_amount_row(
            transaction(
                4310301,
                "UPDATE",
                "2024-03-01T12:05:00.250",
                4,
                account="ACC-1004",
                currency="GBP",
                status="authorized",
                updated_at="2024-03-01T12:05:00",
                channel="batch",
            ),
            "twelve",
        ),
        text_amount_row(
            transaction(
                4310302,
                "UPDATE",
                "2024-03-01T12:10:00.250",
                6,
                **ROW_6,
                status="authorized",
                updated_at="2024-03-01T12:10:00",
                channel="mobile",
            ),
            "7.25",
        ),
    ),
)


def write_parquet_export(landing: Path) -> None:
    """Writes landing/parquet_export/binary_files/transactions/..."""
    folder = landing / "parquet_export" / "binary_files"
    for export_file in (HOUR_09, HOUR_10, HOUR_10_REDELIVERED, HOUR_10_LATE, HOUR_11, HOUR_12_TEXT_AMOUNT):
        path = folder / export_file.relative_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        content = export_file.content()
        if pq.read_table(pa.BufferReader(content)).to_pylist() != list(export_file.rows):
            raise AssertionError(f"{export_file.relative_path()} does not read back as written")
        path.write_bytes(content)
    truncated = HOUR_12_TRUNCATED.content()
    path = folder / HOUR_12_TRUNCATED.relative_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(truncated[: len(truncated) // 2])

"""(Re)create sample_data/landing/: small, realistic CDC landing files.

Deterministic: every value below is fixed (no randomness, no clock), so two runs write
byte-identical files (only the files' modification times differ). The folder is deleted
and written again from scratch; sample_data/README.md describes every file and the
current state the pipeline must produce from them.

Landing layout (<flavour>/<landing shape>/):

    debezium/kafka_records/      shop.customers (MySQL) + transaction metadata topic
    debezium/json_lines/         shop.public.orders and shop.public.cart_items (Postgres)
    arcion_kafka/kafka_records/  tpch.region (Arcion JSON CDC for Kafka)
    arcion_kafka/json_lines/     empty (.gitkeep)
    mrs_cdl/json_lines/          public.ct_pg2hudi (Huawei MRS CDL JSON 1.0 and 2.0)
    mrs_cdl/kafka_records/       empty (.gitkeep)
    canal_json/json_lines/       shop.products (MySQL through Alibaba DTS, Canal JSON)
    canal_json/kafka_records/    empty (.gitkeep)
    shareplex_json/json_lines/   CL_BIZ1.MIO_LOG (Oracle through SharePlex and Alibaba DTS, Shareplex JSON)
    shareplex_json/kafka_records/ empty (.gitkeep)
    dts_avro/kafka_records/      crm.contacts (MySQL through Alibaba DTS, DTS Avro; dts_avro_records.py)
    dts_avro/binary_files/       crm.contacts, the DTS SDK's binary file of records
    arcion_internal_csv/csv_files/   hr.employees (Arcion internal CSV, <database>/<table>/*.csv;
                                     arcion_internal_records.py)
    arcion_internal_json/json_lines/ tpch.nation (Arcion internal JSON; arcion_internal_records.py)
    parquet_export/binary_files/    transactions (hourly Parquet CDC export,
                                     <table>/year=/month=/day=/hour=/part-*.parquet; parquet_export_records.py)

Run with the project venv: .venv/bin/python sample_data/generate_landing.py
"""

import base64
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from arcion_internal_records import write_arcion_internal_csv, write_arcion_internal_json
from dts_avro_records import write_dts_avro
from parquet_export_records import write_parquet_export

Json = dict[str, Any]

LANDING = Path(__file__).resolve().parent / "landing"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DEBEZIUM_VERSION = "2.5.0.Final"
UNAVAILABLE_VALUE = "__debezium_unavailable_value"

# Spark's Kafka source schema. Spark writes every Parquet column as optional, so do we.
KAFKA_RECORD_SCHEMA = pa.schema(
    [
        pa.field("key", pa.binary(), nullable=True),
        pa.field("value", pa.binary(), nullable=True),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("timestampType", pa.int32()),
    ]
)


# ---------------------------------------------------------------------------------------
# Value encodings (Kafka Connect JSON converter, Debezium logical types)
# ---------------------------------------------------------------------------------------


def instant(text: str) -> datetime:
    """An ISO-8601 timestamp that must carry its UTC offset."""
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp without offset: {text}")
    return parsed


def epoch_millis(text: str) -> int:
    """io.debezium.time.Timestamp / org.apache.kafka.connect.data.Timestamp."""
    return (instant(text) - EPOCH) // timedelta(milliseconds=1)


def epoch_micros(text: str) -> int:
    """io.debezium.time.MicroTimestamp."""
    return (instant(text) - EPOCH) // timedelta(microseconds=1)


def epoch_days(text: str | None) -> int | None:
    """io.debezium.time.Date: days since 1970-01-01."""
    if text is None:
        return None
    return (date.fromisoformat(text) - date(1970, 1, 1)).days


def decimal_base64(value: str, scale: int) -> str:
    """org.apache.kafka.connect.data.Decimal: base64 of the big-endian two's-complement
    unscaled integer, in as few bytes as Java's BigInteger.toByteArray() uses."""
    scaled = Decimal(value).scaleb(scale)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{value} has more than {scale} decimal places")
    unscaled = int(scaled)
    bits = unscaled.bit_length() if unscaled >= 0 else (~unscaled).bit_length()
    raw = unscaled.to_bytes(bits // 8 + 1, "big", signed=True)
    return base64.b64encode(raw).decode("ascii")


def to_json(message: Any) -> str:
    """Compact JSON, as the Kafka Connect JSON converter writes it."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------------------
# Kafka Connect schemas
# ---------------------------------------------------------------------------------------


def connect_field(
    field: str,
    type_: str,
    *,
    optional: bool = True,
    name: str | None = None,
    version: int | None = None,
    parameters: dict[str, str] | None = None,
    default: str | None = None,
) -> Json:
    """One field schema, keys in the order Kafka Connect's JsonConverter writes them."""
    schema: Json = {"type": type_, "optional": optional}
    if name is not None:
        schema["name"] = name
    if version is not None:
        schema["version"] = version
    if parameters is not None:
        schema["parameters"] = parameters
    if default is not None:
        schema["default"] = default
    schema["field"] = field
    return schema


def connect_struct(
    field: str,
    fields: list[Json],
    *,
    optional: bool,
    name: str | None = None,
    version: int | None = None,
) -> Json:
    schema: Json = {"type": "struct", "fields": fields, "optional": optional}
    if name is not None:
        schema["name"] = name
    if version is not None:
        schema["version"] = version
    schema["field"] = field
    return schema


def decimal_field(field: str, precision: int, scale: int, *, optional: bool) -> Json:
    return connect_field(
        field,
        "bytes",
        optional=optional,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters={"scale": str(scale), "connect.decimal.precision": str(precision)},
    )


def snapshot_enum_field() -> Json:
    return connect_field(
        "snapshot",
        "string",
        name="io.debezium.data.Enum",
        version=1,
        parameters={
            "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
        },
        default="false",
    )


MYSQL_SOURCE_FIELDS = [
    connect_field("version", "string", optional=False),
    connect_field("connector", "string", optional=False),
    connect_field("name", "string", optional=False),
    connect_field("ts_ms", "int64", optional=False),
    snapshot_enum_field(),
    connect_field("db", "string", optional=False),
    connect_field("sequence", "string"),
    connect_field("table", "string"),
    connect_field("server_id", "int64", optional=False),
    connect_field("gtid", "string"),
    connect_field("file", "string", optional=False),
    connect_field("pos", "int64", optional=False),
    connect_field("row", "int32", optional=False),
    connect_field("thread", "int64"),
    connect_field("query", "string"),
]

POSTGRES_SOURCE_FIELDS = [
    connect_field("version", "string", optional=False),
    connect_field("connector", "string", optional=False),
    connect_field("name", "string", optional=False),
    connect_field("ts_ms", "int64", optional=False),
    snapshot_enum_field(),
    connect_field("db", "string", optional=False),
    connect_field("sequence", "string"),
    connect_field("schema", "string", optional=False),
    connect_field("table", "string", optional=False),
    connect_field("txId", "int64"),
    connect_field("lsn", "int64"),
    connect_field("xmin", "int64"),
]

TRANSACTION_BLOCK_FIELD = connect_struct(
    "transaction",
    [
        connect_field("id", "string", optional=False),
        connect_field("total_order", "int64", optional=False),
        connect_field("data_collection_order", "int64", optional=False),
    ],
    optional=True,
    name="event.block",
    version=1,
)


def debezium_envelope_schema(
    topic: str, columns: list[Json], source_fields: list[Json], source_name: str
) -> Json:
    """The value schema of a Debezium change event on `topic` (its `<topic>.Envelope`)."""
    return {
        "type": "struct",
        "fields": [
            connect_struct("before", columns, optional=True, name=f"{topic}.Value"),
            connect_struct("after", columns, optional=True, name=f"{topic}.Value"),
            connect_struct("source", source_fields, optional=False, name=source_name),
            connect_field("op", "string", optional=False),
            connect_field("ts_ms", "int64"),
            TRANSACTION_BLOCK_FIELD,
        ],
        "optional": False,
        "name": f"{topic}.Envelope",
        "version": 1,
    }


def debezium_event(
    before: Json | None,
    after: Json | None,
    source: Json,
    op: str,
    ts_ms: int,
    transaction: Json | None = None,
) -> Json:
    return {
        "before": before,
        "after": after,
        "source": source,
        "op": op,
        "ts_ms": ts_ms,
        "transaction": transaction,
    }


# ---------------------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KafkaRecord:
    """One Kafka record: key and value as JSON (None = null), and its create time."""

    key: Json | None
    value: Json | None
    timestamp: str


def write_kafka_records(folder: Path, topic: str, first_offset: int, records: Sequence[KafkaRecord]) -> int:
    """Writes `<topic>+0+<first offset>.parquet` (partition 0); returns the next offset."""
    offsets = list(range(first_offset, first_offset + len(records)))
    table = pa.table(
        {
            "key": [None if r.key is None else to_json(r.key).encode("utf-8") for r in records],
            "value": [None if r.value is None else to_json(r.value).encode("utf-8") for r in records],
            "topic": [topic] * len(records),
            "partition": [0] * len(records),
            "offset": offsets,
            "timestamp": [instant(r.timestamp) for r in records],
            "timestampType": [0] * len(records),
        },
        schema=KAFKA_RECORD_SCHEMA,
    )
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / f"{topic}+0+{first_offset:010d}.parquet", compression="snappy")
    return first_offset + len(records)


def write_json_lines(path: Path, messages: Sequence[Json | str]) -> None:
    """One message per line, `\\n` line ends. A str is written as is (a broken line)."""
    lines = [m if isinstance(m, str) else to_json(m) for m in messages]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8", newline="")


def write_gitkeep(folder: Path) -> None:
    """An empty landing folder (hidden files are ignored by Spark)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitkeep").write_text("", encoding="utf-8")


# ---------------------------------------------------------------------------------------
# 1. shop.customers: Debezium MySQL connector, Kafka records
# ---------------------------------------------------------------------------------------

CUSTOMERS_TOPIC = "dbserver1.shop.customers"
TRANSACTION_TOPIC = "dbserver1.transaction"

CUSTOMER_COLUMNS = [
    connect_field("id", "int32", optional=False),
    connect_field("email", "string", optional=False),
    connect_field("full_name", "string", optional=False),
    connect_field("tier", "string"),
    decimal_field("credit_limit", 10, 2, optional=True),
    connect_field(
        "created_at",
        "int64",
        optional=False,
        name="io.debezium.time.Timestamp",
        version=1,
    ),
    connect_field("birth_date", "int32", name="io.debezium.time.Date", version=1),
]
CUSTOMERS_SCHEMA = debezium_envelope_schema(
    CUSTOMERS_TOPIC,
    CUSTOMER_COLUMNS,
    MYSQL_SOURCE_FIELDS,
    "io.debezium.connector.mysql.Source",
)


@dataclass(frozen=True)
class Customer:
    id: int
    email: str
    full_name: str
    tier: str
    credit_limit: str
    created_at: str
    birth_date: str | None

    def image(self) -> Json:
        return {
            "id": self.id,
            "email": self.email,
            "full_name": self.full_name,
            "tier": self.tier,
            "credit_limit": decimal_base64(self.credit_limit, 2),
            "created_at": epoch_millis(self.created_at),
            "birth_date": epoch_days(self.birth_date),
        }

    def but(self, **changes: str) -> "Customer":
        values = {**self.__dict__, **changes}
        return Customer(**values)


ALICE = Customer(
    1,
    "alice.martin@example.com",
    "Alice Martin",
    "silver",
    "2500.00",
    "2022-11-07T08:15:30Z",
    "1988-04-12",
)
BOB = Customer(
    2,
    "bob.chen@example.com",
    "Bob Chen",
    "silver",
    "1500.00",
    "2023-02-14T17:42:05Z",
    "1991-09-23",
)
CARLA = Customer(
    3,
    "carla.rossi@example.com",
    "Carla Rossi",
    "bronze",
    "500.00",
    "2023-06-20T11:03:48Z",
    None,
)
DMITRI = Customer(
    4,
    "dmitri.ivanov@example.com",
    "Dmitri Ivanov",
    "bronze",
    "750.00",
    "2024-03-01T09:12:44Z",
    "1979-07-30",
)


def customer_key(customer_id: int) -> Json:
    return {
        "schema": {
            "type": "struct",
            "fields": [connect_field("id", "int32", optional=False)],
            "optional": False,
            "name": f"{CUSTOMERS_TOPIC}.Key",
        },
        "payload": {"id": customer_id},
    }


def mysql_source(
    committed_at: str,
    binlog: str,
    pos: int,
    *,
    row: int = 0,
    snapshot: bool = False,
) -> Json:
    return {
        "version": DEBEZIUM_VERSION,
        "connector": "mysql",
        "name": "dbserver1",
        "ts_ms": epoch_millis(committed_at),
        "snapshot": "true" if snapshot else "false",
        "db": "shop",
        "sequence": None,
        "table": "customers",
        "server_id": 223344,
        "gtid": None,
        "file": binlog,
        "pos": pos,
        "row": row,
        "thread": None if snapshot else 7,
        "query": None,
    }


def customer_record(
    customer_id: int,
    op: str,
    before: Customer | None,
    after: Customer | None,
    source: Json,
    emitted_at: str,
    transaction: Json | None = None,
) -> KafkaRecord:
    event = debezium_event(
        None if before is None else before.image(),
        None if after is None else after.image(),
        source,
        op,
        epoch_millis(emitted_at),
        transaction,
    )
    return KafkaRecord(
        customer_key(customer_id),
        {"schema": CUSTOMERS_SCHEMA, "payload": event},
        emitted_at,
    )


BINLOG_9 = "mysql-bin.000009"
BINLOG_10 = "mysql-bin.000010"
# Transaction id of the Debezium MySQL connector without GTIDs: the binlog coordinates
# of the transaction's BEGIN.
CUSTOMER_INSERT_TX = f"file={BINLOG_9},pos=1936"


def write_customers(folder: Path) -> None:
    snapshot_at = "2024-03-01T09:00:00Z"
    bob_bronze = BOB.but(tier="bronze")  # the late pos 2500 change (file B)
    bob_gold = BOB.but(tier="gold", credit_limit="5000.00")
    dmitri_debit = DMITRI.but(credit_limit="-12.50")
    alice_renamed = ALICE.but(email="alice.martin-lopez@example.com", full_name="Alice Martin-Lopez")

    file_a = [
        # offsets 0-2: initial snapshot, all read at the same binlog position
        customer_record(
            1,
            "r",
            None,
            ALICE,
            mysql_source(snapshot_at, BINLOG_9, 1200, snapshot=True),
            "2024-03-01T09:00:00.412Z",
        ),
        customer_record(
            2,
            "r",
            None,
            BOB,
            mysql_source(snapshot_at, BINLOG_9, 1200, snapshot=True),
            "2024-03-01T09:00:00.415Z",
        ),
        customer_record(
            3,
            "r",
            None,
            CARLA,
            mysql_source(snapshot_at, BINLOG_9, 1200, snapshot=True),
            "2024-03-01T09:00:00.417Z",
        ),
        # offset 3: insert, inside the transaction of dbserver1.transaction
        customer_record(
            4,
            "c",
            None,
            DMITRI,
            mysql_source("2024-03-01T09:12:44Z", BINLOG_9, 2000),
            "2024-03-01T09:12:44.318Z",
            {"id": CUSTOMER_INSERT_TX, "total_order": 1, "data_collection_order": 1},
        ),
        # offset 4: tier -> gold, credit limit 1500.00 -> 5000.00
        customer_record(
            2,
            "u",
            bob_bronze,
            bob_gold,
            mysql_source("2024-03-01T09:25:00Z", BINLOG_9, 3000),
            "2024-03-01T09:25:00.207Z",
        ),
        # offset 5: negative credit limit
        customer_record(
            4,
            "u",
            DMITRI,
            dmitri_debit,
            mysql_source("2024-03-01T09:31:10Z", BINLOG_9, 3500),
            "2024-03-01T09:31:10.455Z",
        ),
        # offset 6: delete, offset 7: its tombstone
        customer_record(
            3,
            "d",
            CARLA,
            None,
            mysql_source("2024-03-01T09:40:00Z", BINLOG_9, 4000),
            "2024-03-01T09:40:00.129Z",
        ),
        KafkaRecord(customer_key(3), None, "2024-03-01T09:40:00.129Z"),
    ]
    file_b = [
        # offset 8: after the binlog rotation to mysql-bin.000010
        customer_record(
            1,
            "u",
            ALICE,
            alice_renamed,
            mysql_source("2024-03-01T10:02:15Z", BINLOG_10, 154),
            "2024-03-01T10:02:15.630Z",
        ),
        # offset 9: a LATE event, older than the pos 3000 update at offset 4
        customer_record(
            2,
            "u",
            BOB,
            bob_bronze,
            mysql_source("2024-03-01T09:20:00Z", BINLOG_9, 2500),
            "2024-03-01T10:05:41.002Z",
        ),
    ]
    next_offset = write_kafka_records(folder, CUSTOMERS_TOPIC, 0, file_a)
    write_kafka_records(folder, CUSTOMERS_TOPIC, next_offset, file_b)


TRANSACTION_KEY_SCHEMA: Json = {
    "type": "struct",
    "fields": [connect_field("id", "string", optional=False)],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataKey",
}
TRANSACTION_VALUE_SCHEMA: Json = {
    "type": "struct",
    "fields": [
        connect_field("status", "string", optional=False),
        connect_field("id", "string", optional=False),
        connect_field("ts_ms", "int64", optional=False),
        connect_field("event_count", "int64"),
        {
            "type": "array",
            "items": {
                "type": "struct",
                "fields": [
                    connect_field("data_collection", "string", optional=False),
                    connect_field("event_count", "int64", optional=False),
                ],
                "optional": False,
            },
            "optional": True,
            "field": "data_collections",
        },
    ],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataValue",
}


def write_transactions(folder: Path) -> None:
    key = {"schema": TRANSACTION_KEY_SCHEMA, "payload": {"id": CUSTOMER_INSERT_TX}}
    begin = {
        "status": "BEGIN",
        "id": CUSTOMER_INSERT_TX,
        "ts_ms": epoch_millis("2024-03-01T09:12:44Z"),
        "event_count": None,
        "data_collections": None,
    }
    end = {
        "status": "END",
        "id": CUSTOMER_INSERT_TX,
        "ts_ms": epoch_millis("2024-03-01T09:12:44Z"),
        "event_count": 1,
        "data_collections": [{"data_collection": "shop.customers", "event_count": 1}],
    }
    records = [
        KafkaRecord(
            key,
            {"schema": TRANSACTION_VALUE_SCHEMA, "payload": begin},
            "2024-03-01T09:12:44.316Z",
        ),
        KafkaRecord(
            key,
            {"schema": TRANSACTION_VALUE_SCHEMA, "payload": end},
            "2024-03-01T09:12:44.320Z",
        ),
    ]
    write_kafka_records(folder, TRANSACTION_TOPIC, 0, records)


# ---------------------------------------------------------------------------------------
# 2./3. shop.public.orders and shop.public.cart_items: Debezium Postgres, JSON lines
# ---------------------------------------------------------------------------------------

ORDERS_TOPIC = "pgserver1.public.orders"

ORDER_COLUMNS = [
    connect_field("id", "int64", optional=False),
    connect_field("customer_id", "int32"),
    decimal_field("amount", 20, 2, optional=True),
    connect_field("status", "string"),
    connect_field("note", "string"),
    connect_field("ordered_at", "int64", name="io.debezium.time.MicroTimestamp", version=1),
    connect_field("updated_at", "string", name="io.debezium.time.ZonedTimestamp", version=1),
]
ORDERS_SCHEMA = debezium_envelope_schema(
    ORDERS_TOPIC,
    ORDER_COLUMNS,
    POSTGRES_SOURCE_FIELDS,
    "io.debezium.connector.postgresql.Source",
)


def postgres_source(
    table: str,
    committed_at: str,
    tx_id: int,
    lsn: int,
    last_commit_lsn: int | None,
    *,
    snapshot: bool = False,
) -> Json:
    """source.sequence = [last committed LSN, LSN of the event] as strings; snapshot
    reads have no committed LSN yet (null)."""
    last_commit = None if last_commit_lsn is None else str(last_commit_lsn)
    return {
        "version": DEBEZIUM_VERSION,
        "connector": "postgresql",
        "name": "pgserver1",
        "ts_ms": epoch_millis(committed_at),
        "snapshot": "true" if snapshot else "false",
        "db": "shop",
        "sequence": to_json([last_commit, str(lsn)]),
        "schema": "public",
        "table": table,
        "txId": tx_id,
        "lsn": lsn,
        "xmin": None,
    }


@dataclass(frozen=True)
class Order:
    id: int
    customer_id: int
    amount: str
    status: str
    note: str
    ordered_at: str
    updated_at: str

    def image(self, *, note: str | None = None) -> Json:
        return {
            "id": self.id,
            "customer_id": self.customer_id,
            "amount": decimal_base64(self.amount, 2),
            "status": self.status,
            "note": self.note if note is None else note,
            "ordered_at": epoch_micros(self.ordered_at),
            "updated_at": self.updated_at,
        }

    def but(self, **changes: str) -> "Order":
        values = {**self.__dict__, **changes}
        return Order(**values)


ORDER_1001 = Order(
    1001,
    1,
    "249.99",
    "paid",
    "Leave at the front desk if nobody answers.",
    "2024-02-28T16:42:10.123456Z",
    "2024-02-28T16:45:00.250000Z",
)
ORDER_1002 = Order(
    1002,
    2,
    "89.50",
    "pending",
    "Gift wrap please. Card text: Happy birthday, Mei! Love from all of us at the "
    "Lisbon office. Deliver between 9:00 and 12:00; the reception closes for lunch.",
    "2024-02-29T11:05:33.000250Z",
    "2024-02-29T13:05:40.500000+02:00",
)
ORDER_1003 = Order(
    1003,
    4,
    "123456789012345678.99",
    "pending",
    "Bulk order: quote Q-2024-0117, net 60 terms.",
    "2024-03-01T09:14:01.884512Z",
    "2024-03-01T09:14:01.884512Z",
)
ORDER_1004 = Order(
    1004,
    2,
    "-45.10",
    "refunded",
    "Credit note for the damaged gift box of order 1002.",
    "2024-03-01T09:20:11.402000Z",
    "2024-03-01T11:20:11.402000+02:00",
)


def orders_source(
    committed_at: str,
    tx_id: int,
    lsn: int,
    last_commit_lsn: int | None,
    *,
    table: str = "orders",
    snapshot: bool = False,
) -> Json:
    return postgres_source(table, committed_at, tx_id, lsn, last_commit_lsn, snapshot=snapshot)


def with_schema(payload: Json) -> Json:
    return {"schema": ORDERS_SCHEMA, "payload": payload}


def write_orders(folder: Path) -> None:
    snapshot_at = "2024-03-01T09:00:05Z"
    snapshot_lsn = 24023128
    order_1002_paid = ORDER_1002.but(status="paid", updated_at="2024-03-01T09:15:00.250000Z")
    order_1003_shipped = ORDER_1003.but(status="shipped", updated_at="2024-03-01T10:05:47.930000Z")
    write_json_lines(
        folder / "orders-0001.jsonl",
        [
            # lines 1-2: snapshot reads (same transaction, same LSN)
            with_schema(
                debezium_event(
                    None,
                    ORDER_1001.image(),
                    orders_source(snapshot_at, 780, snapshot_lsn, None, snapshot=True),
                    "r",
                    epoch_millis("2024-03-01T09:00:05.311Z"),
                )
            ),
            with_schema(
                debezium_event(
                    None,
                    ORDER_1002.image(),
                    orders_source(snapshot_at, 780, snapshot_lsn, None, snapshot=True),
                    "r",
                    epoch_millis("2024-03-01T09:00:05.314Z"),
                )
            ),
            # line 3: insert with a 20-digit amount
            with_schema(
                debezium_event(
                    None,
                    ORDER_1003.image(),
                    orders_source("2024-03-01T09:14:02.117Z", 781, 24023496, 24023128),
                    "c",
                    epoch_millis("2024-03-01T09:14:02.540Z"),
                )
            ),
            # line 4: update with the unchanged TOAST column `note` left out by Postgres
            with_schema(
                debezium_event(
                    None,
                    order_1002_paid.image(note=UNAVAILABLE_VALUE),
                    orders_source("2024-03-01T09:15:00.250Z", 782, 24023752, 24023600),
                    "u",
                    epoch_millis("2024-03-01T09:15:00.702Z"),
                )
            ),
            # line 5: delete under REPLICA IDENTITY DEFAULT: only the key in `before`
            with_schema(
                debezium_event(
                    {column["field"]: None for column in ORDER_COLUMNS} | {"id": 1001},
                    None,
                    orders_source("2024-03-01T09:16:30.004Z", 783, 24023912, 24023880),
                    "d",
                    epoch_millis("2024-03-01T09:16:30.488Z"),
                )
            ),
        ],
    )
    # Bare payloads (JSON converter with schemas.enable=false): same value encodings.
    write_json_lines(
        folder / "orders-0002.jsonl",
        [
            debezium_event(
                None,
                ORDER_1004.image(),
                orders_source("2024-03-01T09:20:11.402Z", 784, 24024136, 24024000),
                "c",
                epoch_millis("2024-03-01T09:20:11.890Z"),
            ),
            debezium_event(
                None,
                order_1003_shipped.image(),
                orders_source("2024-03-01T10:05:47.930Z", 785, 24024304, 24024240),
                "u",
                epoch_millis("2024-03-01T10:05:48.311Z"),
            ),
        ],
    )
    unknown_op = debezium_event(
        None,
        ORDER_1002.but(status="paid").image(),
        orders_source("2024-03-01T10:10:00Z", 786, 24024392, 24024360),
        "x",
        epoch_millis("2024-03-01T10:10:00.377Z"),
    )
    audit_log_insert = debezium_event(
        None,
        {
            "id": 88213,
            "actor": "svc-checkout",
            "action": "order.refund",
            "entity_id": 1004,
            "logged_at": epoch_micros("2024-03-01T10:11:02.000000Z"),
        },
        orders_source("2024-03-01T10:11:02Z", 787, 24024472, 24024440, table="audit_log"),
        "c",
        epoch_millis("2024-03-01T10:11:02.356Z"),
    )
    bad_customer = ORDER_1003.but(ordered_at="2024-03-01T10:12:30.000000Z", updated_at="2024-03-01T10:12:30Z")
    bad_customer_image = bad_customer.image() | {
        "id": 1005,
        "customer_id": "abc",
        "amount": decimal_base64("19.99", 2),
        "note": "Imported from the legacy shop; customer reference not migrated.",
    }
    uncastable = debezium_event(
        None,
        bad_customer_image,
        orders_source("2024-03-01T10:12:30Z", 788, 24024640, 24024560),
        "c",
        epoch_millis("2024-03-01T10:12:30.611Z"),
    )
    truncated = to_json(
        debezium_event(
            None,
            ORDER_1002.but(status="cancelled").image(),
            orders_source("2024-03-01T10:09:00Z", 789, 24024800, 24024720),
            "u",
            epoch_millis("2024-03-01T10:09:00.200Z"),
        )
    )[:97]
    write_json_lines(
        folder / "orders-0003-bad.jsonl",
        [truncated, unknown_op, audit_log_insert, uncastable],
    )


def write_cart_items(folder: Path) -> None:
    def item(cart_id: int, sku: str, quantity: int) -> Json:
        return {"cart_id": cart_id, "sku": sku, "quantity": quantity}

    def source(committed_at: str, tx_id: int, lsn: int, last_commit: int) -> Json:
        return postgres_source("cart_items", committed_at, tx_id, lsn, last_commit)

    write_json_lines(
        folder / "cart_items-0001.jsonl",
        [
            debezium_event(
                None,
                item(1, "A", 2),
                source("2024-03-01T09:30:00Z", 790, 24031016, 24030920),
                "c",
                epoch_millis("2024-03-01T09:30:00.271Z"),
            ),
            debezium_event(
                None,
                item(1, "B", 1),
                source("2024-03-01T09:30:00Z", 790, 24031184, 24030920),
                "c",
                epoch_millis("2024-03-01T09:30:00.274Z"),
            ),
            debezium_event(
                None,
                item(2, "A", 3),
                source("2024-03-01T09:31:12Z", 791, 24031432, 24031300),
                "c",
                epoch_millis("2024-03-01T09:31:12.388Z"),
            ),
            debezium_event(
                None,
                None,
                source("2024-03-01T09:45:00Z", 792, 24031688, 24031560),
                "t",
                epoch_millis("2024-03-01T09:45:00.144Z"),
            ),
            debezium_event(
                None,
                item(2, "C", 5),
                source("2024-03-01T09:47:30Z", 793, 24031936, 24031800),
                "c",
                epoch_millis("2024-03-01T09:47:30.519Z"),
            ),
        ],
    )


# ---------------------------------------------------------------------------------------
# 4. tpch.region: Arcion Replicant JSON CDC format for Kafka, Kafka records
#    (schemas and field order as in the Arcion documentation)
# ---------------------------------------------------------------------------------------

REGION_TOPIC = "arcion.tpch.region"
SNAPSHOT_CONNECTOR = "KAFKA_snapshot_connector"
REALTIME_CONNECTOR = "KAFKA_Connector"
REGION_COLUMNS = [
    {"type": "int32", "optional": False, "field": "r_regionkey"},
    {"type": "string", "optional": False, "field": "r_name"},
    {"type": "string", "optional": True, "field": "r_comment"},
]
ARCION_SOURCE_FIELDS = [
    {"type": "string", "optional": False, "field": "version"},
    {"type": "string", "optional": False, "field": "connector"},
    {"type": "string", "optional": False, "field": "name"},
    {"type": "int64", "optional": True, "field": "ts_ms"},
    {"type": "string", "optional": True, "field": "db"},
    {"type": "string", "optional": True, "field": "schema"},
    {"type": "string", "optional": False, "field": "table"},
    {"type": "string", "optional": True, "field": "query"},
    {"type": "string", "optional": True, "field": "snapshot"},
    {"type": "int64", "optional": True, "field": "server_id"},
    {"type": "string", "optional": True, "field": "gtid"},
    {"type": "string", "optional": True, "field": "file"},
    {"type": "int64", "optional": True, "field": "pos"},
    {"type": "int32", "optional": True, "field": "row"},
]


def arcion_key(connector: str, region_key: int) -> Json:
    return {
        "schema": {
            "type": "struct",
            "optional": False,
            "name": f"{connector}.tpch.region.Key",
            "fields": [{"type": "int32", "optional": False, "field": "r_regionkey"}],
        },
        "payload": {"r_regionkey": region_key},
    }


def arcion_value_schema(connector: str) -> Json:
    def image(field: str) -> Json:
        return {
            "type": "struct",
            "optional": True,
            "field": field,
            "name": f"{connector}.tpch.region.Value",
            "fields": REGION_COLUMNS,
        }

    return {
        "type": "struct",
        "optional": False,
        "name": f"{connector}.tpch.region.Envelope",
        "fields": [
            image("before"),
            image("after"),
            {
                "type": "struct",
                "optional": False,
                "field": "source",
                "name": connector,
                "fields": ARCION_SOURCE_FIELDS,
            },
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
        ],
    }


@dataclass(frozen=True)
class Region:
    r_regionkey: int
    r_name: str
    r_comment: str

    def image(self) -> Json:
        return {
            "r_regionkey": self.r_regionkey,
            "r_name": self.r_name,
            "r_comment": self.r_comment,
        }

    def insert_query(self) -> str:
        return (
            "INSERT INTO tpch.region(r_regionkey, r_name, r_comment) "
            f"VALUES({self.r_regionkey}, {self.r_name}, {self.r_comment})"
        )

    def where(self) -> str:
        return f"r_regionkey={self.r_regionkey} AND r_name={self.r_name} AND r_comment={self.r_comment}"


REGIONS = [
    Region(
        0,
        "AFRICA",
        "lar deposits. blithely final packages cajole. regular waters are final "
        "requests. regular accounts are according to",
    ),
    Region(1, "AMERICA", "hs use ironic, even requests. s"),
    Region(2, "ASIA", "ges. thinly even pinto beans ca"),
    Region(3, "EUROPE", "ly final courts cajole furiously final excuse"),
    Region(
        4,
        "MIDDLE EAST",
        "uickly special accounts cajole carefully blithely close requests. carefully "
        "final asymptotes haggle furiousl",
    ),
]


def arcion_record(
    region_key: int,
    op: str,
    before: Region | None,
    after: Region | None,
    *,
    query: str,
    emitted_at: str,
    binlog_at: str | None = None,
    pos: int | None = None,
) -> KafkaRecord:
    """A snapshot record when binlog_at is None, else a realtime one at mysql-log.000013."""
    snapshot = binlog_at is None
    connector = SNAPSHOT_CONNECTOR if snapshot else REALTIME_CONNECTOR
    source = {
        "version": "5.7.41",
        "connector": "MYSQL",
        "name": connector,
        "ts_ms": None if binlog_at is None else epoch_millis(binlog_at),
        "db": "tpch",
        "schema": None,
        "table": "region",
        "snapshot": "true" if snapshot else "false",
        "server_id": None if snapshot else "1",
        "gtid": None,
        "file": None if snapshot else "mysql-log.000013",
        "pos": pos,
        "row": None if snapshot else 1,
        "thread": None if snapshot else 309,
        "query": query,
    }
    payload = {
        "before": {} if before is None else before.image(),
        "after": {} if after is None else after.image(),
        "source": source,
        "op": op,
        "ts_ms": None if snapshot else epoch_millis(emitted_at),
    }
    return KafkaRecord(
        arcion_key(connector, region_key),
        {"schema": arcion_value_schema(connector), "payload": payload},
        emitted_at,
    )


def arcion_tombstone(region_key: int, emitted_at: str) -> KafkaRecord:
    return KafkaRecord(arcion_key(REALTIME_CONNECTOR, region_key), None, emitted_at)


def write_regions(folder: Path) -> None:
    oceania = Region(10, "OCEANIA", "australia, new zealand and the pacific islands")
    america = REGIONS[1]
    america_revised = Region(1, "AMERICA", "north, central and south america")
    asia = REGIONS[2]
    middle_east = REGIONS[4]
    middle_east_40 = Region(40, middle_east.r_name, middle_east.r_comment)
    records = [
        # offsets 0-4: snapshot
        *[
            arcion_record(
                region.r_regionkey,
                "r",
                None,
                region,
                query=region.insert_query(),
                emitted_at=f"2024-03-01T08:55:0{index}.500Z",
            )
            for index, region in enumerate(REGIONS)
        ],
        # offset 5: insert
        arcion_record(
            10,
            "c",
            None,
            oceania,
            query=oceania.insert_query(),
            emitted_at="2024-03-01T09:10:05.386Z",
            binlog_at="2024-03-01T09:10:05Z",
            pos=30407,
        ),
        # offset 6: update of r_comment
        arcion_record(
            1,
            "u",
            america,
            america_revised,
            query="UPDATE tpch.region SET r_regionkey=1 AND r_name=AMERICA AND "
            f"r_comment={america_revised.r_comment} WHERE {america.where()}",
            emitted_at="2024-03-01T09:22:41.001Z",
            binlog_at="2024-03-01T09:22:40Z",
            pos=53709,
        ),
        # offsets 7-8: delete + tombstone
        arcion_record(
            2,
            "d",
            asia,
            None,
            query=f"DELETE FROM tpch.region WHERE {asia.where()}",
            emitted_at="2024-03-01T09:35:18.069Z",
            binlog_at="2024-03-01T09:35:17Z",
            pos=59647,
        ),
        arcion_tombstone(2, "2024-03-01T09:35:18.069Z"),
        # offsets 9-11: primary key update 4 -> 40 = delete(4) + tombstone + insert(40)
        arcion_record(
            4,
            "d",
            middle_east,
            None,
            query=f"DELETE FROM tpch.region WHERE {middle_east.where()}",
            emitted_at="2024-03-01T09:48:03.214Z",
            binlog_at="2024-03-01T09:48:02Z",
            pos=61822,
        ),
        arcion_tombstone(4, "2024-03-01T09:48:03.214Z"),
        arcion_record(
            40,
            "c",
            None,
            middle_east_40,
            query=middle_east_40.insert_query(),
            emitted_at="2024-03-01T09:48:03.217Z",
            binlog_at="2024-03-01T09:48:02Z",
            pos=61822,
        ),
    ]
    write_kafka_records(folder, REGION_TOPIC, 0, records)


# ---------------------------------------------------------------------------------------
# 5. public.ct_pg2hudi: Huawei MRS CDL JSON (message_version 1.0) and Debezium JSON (2.0)
#    (schemas as in the MRS documentation's two samples)
# ---------------------------------------------------------------------------------------

CDL_V1_COLUMNS = [
    {"type": "int64", "optional": True, "field": "count1"},
    {"type": "int32", "optional": False, "field": "id"},
    {
        "type": "int64",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Timestamp",
        "version": 1,
        "field": "time1",
    },
    {
        "type": "string",
        "optional": True,
        "name": "com.xxx.cdc.data.Decimal",
        "field": "decimalNum",
    },
]
CDL_V2_COLUMNS = [
    {"type": "int64", "optional": True, "field": "count1"},
    {"type": "int32", "optional": False, "field": "id"},
    {
        "type": "string",
        "optional": True,
        "name": "com.xxx.cdc.data.timestamp",
        "field": "time1",
    },
    {
        "type": "string",
        "optional": True,
        "name": "com.xxx.cdc.data.Decimal",
        "field": "decimalNum",
    },
]
CDL_UNIQUE_FIELD = {
    "type": "struct",
    "fields": [{"type": "int32", "optional": False, "field": "id"}],
    "optional": True,
    "name": "unique",
    "field": "unique",
}
CDL_HEARTBEAT_IDENTIFIER = "279fb050-0143-45c1-b184-50bc48c2461c"


def cdl_v1_schema(*, heartbeat: bool = False) -> Json:
    """The CDL JSON sample's schema; a heartbeat carries no OPERATION (optional)."""
    return {
        "type": "struct",
        "fields": [
            {"type": "string", "optional": False, "field": "DATA_STORE"},
            {"type": "string", "optional": False, "field": "SEG_OWNER"},
            {"type": "string", "optional": False, "field": "TABLE_NAME"},
            {
                "type": "int64",
                "optional": False,
                "name": "org.apache.kafka.connect.data.Timestamp",
                "version": 1,
                "field": "TIMESTAMP",
            },
            {"type": "string", "optional": heartbeat, "field": "OPERATION"},
            {"type": "string", "optional": True, "field": "LOB_COLUMNS"},
            {
                "type": "struct",
                "fields": [
                    {
                        "type": "array",
                        "items": {
                            "type": "struct",
                            "fields": [
                                {"type": "string", "optional": False, "field": "name"},
                                {"type": "int64", "optional": False, "field": "value"},
                            ],
                            "optional": False,
                        },
                        "optional": False,
                        "field": "properties",
                    }
                ],
                "optional": False,
                "name": "transaction",
                "field": "transaction",
            },
            CDL_UNIQUE_FIELD,
            {
                "type": "struct",
                "fields": CDL_V1_COLUMNS,
                "optional": True,
                "name": "data",
                "field": "data",
            },
            {
                "type": "struct",
                "fields": CDL_V1_COLUMNS,
                "optional": True,
                "name": "before",
                "field": "before",
            },
            {"type": "string", "optional": False, "field": "message_version"},
            {"type": "string", "optional": False, "field": "message_type"},
            {"type": "string", "optional": True, "field": "HEARTBEAT_IDENTIFIER"},
        ],
        "optional": False,
        "name": "public.ct_pg2hudi",
    }


CDL_V2_SCHEMA: Json = {
    "type": "struct",
    "fields": [
        {
            "type": "struct",
            "fields": CDL_V2_COLUMNS,
            "optional": True,
            "name": "before",
            "field": "before",
        },
        {
            "type": "struct",
            "fields": CDL_V2_COLUMNS,
            "optional": True,
            "name": "data",
            "field": "after",
        },
        {
            "type": "struct",
            "fields": [
                {"type": "string", "optional": False, "field": "version"},
                {"type": "string", "optional": False, "field": "connector"},
                {"type": "string", "optional": False, "field": "name"},
                {"type": "int64", "optional": False, "field": "ts_ms"},
                {
                    "type": "string",
                    "optional": True,
                    "name": "io.debezium.data.Enum",
                    "version": 1,
                    "parameters": {"allowed": "true,last,false"},
                    "default": "false",
                    "field": "snapshot",
                },
                {"type": "string", "optional": False, "field": "db"},
                {"type": "string", "optional": False, "field": "schema"},
                {"type": "string", "optional": False, "field": "table"},
                {"type": "int64", "optional": True, "field": "txId"},
                {"type": "int64", "optional": True, "field": "lsn"},
            ],
            "optional": False,
            "name": "io.debezium.connector.postgresql.Source",
            "field": "source",
        },
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": False, "field": "ts_ms"},
        {"type": "string", "optional": False, "field": "message_version"},
        {"type": "string", "optional": False, "field": "message_type"},
        {"type": "string", "optional": True, "field": "LOB_COLUMNS"},
        CDL_UNIQUE_FIELD,
    ],
    "optional": False,
    "name": "public.ct_pg2hudi",
}


def cdl_row(count1: int, row_id: int, time1: int | str | None, decimal_num: str | None) -> Json:
    return {"count1": count1, "id": row_id, "time1": time1, "decimalNum": decimal_num}


def cdl_v1(
    operation: str | None,
    timestamp: int,
    lsn: int,
    tx_id: int,
    unique: int | None,
    data: Json | None,
    before: Json | None,
) -> Json:
    payload = {
        "DATA_STORE": "POSTGRESQL",
        "SEG_OWNER": "public",
        "TABLE_NAME": "ct_pg2hudi",
        "TIMESTAMP": timestamp,
        "OPERATION": operation,
        "LOB_COLUMNS": None,
        "transaction": {
            "properties": [
                {"name": "lsn", "value": lsn},
                {"name": "txId", "value": tx_id},
            ]
        },
        "unique": None if unique is None else {"id": unique},
        "data": data,
        "before": before,
        "message_version": "1.0",
        "message_type": "0",
        "HEARTBEAT_IDENTIFIER": CDL_HEARTBEAT_IDENTIFIER,
    }
    return {"schema": cdl_v1_schema(heartbeat=operation is None), "payload": payload}


def cdl_v2(
    op: str,
    source_ts_ms: int,
    tx_id: int,
    lsn: int,
    ts_ms: int,
    before: Json | None,
    after: Json,
) -> Json:
    payload = {
        "before": before,
        "after": after,
        "source": {
            "version": "1.4.0.Final",
            "connector": "postgresql",
            "name": "cdl",
            "ts_ms": source_ts_ms,
            "snapshot": "false",
            "db": "cdl",
            "schema": "public",
            "table": "ct_pg2hudi",
            "txId": tx_id,
            "lsn": lsn,
        },
        "op": op,
        "ts_ms": ts_ms,
        "message_version": "2.0",
        "message_type": "0",
        "LOB_COLUMNS": None,
        "unique": {"id": after["id"]},
    }
    return {"schema": CDL_V2_SCHEMA, "payload": payload}


def write_ct_pg2hudi(folder: Path) -> None:
    time1_35 = epoch_millis("2024-02-04T12:00:00Z")
    row_34 = cdl_row(13, 34, None, None)
    row_35 = cdl_row(13, 35, time1_35, "1024.50")
    row_35_updated = cdl_row(20, 35, time1_35, "1024.50")
    row_340 = cdl_row(13, 340, None, None)
    row_36 = cdl_row(14, 36, "2024-02-04T12:14:51.235Z", "3.14")
    row_36_updated = cdl_row(15, 36, "2024-02-04T12:14:51.235Z", "3.14")
    write_json_lines(
        folder / "ct_pg2hudi-0001.jsonl",
        [
            # line 1: the documentation's CDL JSON sample, unchanged
            cdl_v1("INSERT", 1707047996013, 163955221008, 57227595, 34, row_34, None),
            cdl_v1("INSERT", 1707048012450, 163955221392, 57227601, 35, row_35, None),
            cdl_v1(
                "UPDATE",
                1707048240117,
                163955222104,
                57227610,
                35,
                row_35_updated,
                row_35,
            ),
            # line 4: primary key change 34 -> 340 (full data image)
            cdl_v1("UPDATE", 1707048455902, 163955222560, 57227618, 340, row_340, row_34),
            cdl_v1(
                "DELETE",
                1707048601337,
                163955223016,
                57227625,
                35,
                None,
                row_35_updated,
            ),
            # line 6: heartbeat
            cdl_v1(None, 1707048660000, 163955223200, 57227630, None, None, None),
            # lines 7-8: message_version 2.0 (open-source Debezium JSON)
            cdl_v2("c", 1707048891235, 57227663, 163955586912, 1707048984208, None, row_36),
            cdl_v2(
                "u",
                1707049102514,
                57227671,
                163955587456,
                1707049102870,
                row_36,
                row_36_updated,
            ),
        ],
    )


# ---------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------
# Canal JSON (Alibaba DTS): shop.products
# ---------------------------------------------------------------------------------------

PRODUCT_MYSQL_TYPES = {
    "id": "int(11)",
    "sku": "varchar(32)",
    "name": "varchar(64)",
    "price": "decimal(10,2)",
    "stock": "bigint(20) unsigned",
    "active": "bit(1)",
    "updated_at": "datetime(6)",
    "thumbnail": "varbinary(16)",
}
# java.sql.Types of each column, as DTS writes them (BIGINT UNSIGNED becomes DECIMAL: 3)
PRODUCT_SQL_TYPES = {
    "id": 4,
    "sku": 12,
    "name": 12,
    "price": 3,
    "stock": 3,
    "active": -7,
    "updated_at": 93,
    "thumbnail": -3,
}


def canal_product(
    product_id: int,
    sku: str,
    name: str,
    price: str,
    stock: str,
    active: bool,
    updated_at: str,
    thumbnail: bytes | None,
) -> Json:
    """A row as Canal JSON writes it: every value a string (bytes as ISO-8859-1 text) or null."""
    return {
        "id": str(product_id),
        "sku": sku,
        "name": name,
        "price": price,
        "stock": stock,
        "active": "1" if active else "0",
        "updated_at": updated_at,
        "thumbnail": None if thumbnail is None else thumbnail.decode("iso-8859-1"),
    }


def canal_message(
    operation_id: int, kind: str, rows: list[Json] | None, old: list[Json] | None, es: str
) -> Json:
    """A DTS Canal JSON message of shop.products; `id` is DTS's operation serial number."""
    return {
        "data": rows,
        "database": "shop",
        "es": epoch_millis(es),
        "id": operation_id,
        "isDdl": False,
        "mysqlType": PRODUCT_MYSQL_TYPES,
        "old": old,
        "pkNames": ["id"],
        "sql": "",
        "sqlType": PRODUCT_SQL_TYPES,
        "table": "products",
        "ts": epoch_millis(es) + 412,
        "type": kind,
    }


def write_products(folder: Path) -> None:
    pen = canal_product(1, "PEN-1", "Pen", "1.50", "120", True, "2026-11-01 09:00:00.000000", b"\xff\xd8")
    ink = canal_product(
        2, "INK-2", "Ink", "4.25", "18446744073709551615", True, "2026-11-01 09:00:00.000000", None
    )
    pad = canal_product(3, "PAD-3", "Notepad", "2.00", "40", True, "2026-11-02 10:15:30.250000", None)
    clips = canal_product(4, "CLIP-4", "Clips", "0.99", "500", False, "2026-11-02 10:15:30.250000", None)
    pen_v2 = {**pen, "price": "1.75", "updated_at": "2026-11-03 08:00:00.000000"}
    notebook = {**pad, "name": "Notebook"}
    price_update = canal_message(
        102,
        "UPDATE",
        [pen_v2, notebook],
        [{"price": "1.50", "updated_at": "2026-11-01 09:00:00.000000"}, {"name": "Notepad"}],
        "2026-11-03T08:00:00Z",
    )
    write_json_lines(
        folder / "products-0001.jsonl",
        [
            canal_message(100, "INIT", [pen, ink], None, "2026-11-01T09:00:00Z"),
            canal_message(101, "INSERT", [pad, clips], None, "2026-11-02T10:15:30Z"),
            price_update,
            # the key of Clips changes from 4 to 5: a delete of 4 and an upsert of 5
            canal_message(103, "UPDATE", [{**clips, "id": "5"}], [{"id": "4"}], "2026-11-03T08:05:00Z"),
            {
                **canal_message(104, "ALTER", None, None, "2026-11-03T08:10:00Z"),
                "isDdl": True,
                "mysqlType": None,
                "pkNames": None,
                "sqlType": None,
                "sql": "ALTER TABLE products ADD COLUMN color varchar(16)",
            },
            canal_message(105, "DELETE", [ink], None, "2026-11-03T08:20:00Z"),
            # redelivered: changes nothing
            price_update,
            # late: an update older than the insert of 3 (serial 99 < 101) changes nothing
            canal_message(
                99, "UPDATE", [{**pad, "name": "Old pad"}], [{"name": "Pad"}], "2026-11-02T10:00:00Z"
            ),
        ],
    )


MIO_LOG_TABLE = "CL_BIZ1.MIO_LOG"


def mio_log_row(
    log_id: int, record_id: int, policy: str, contract_type: str, contract: str, amount: str, moved_at: str
) -> Json:
    """A row of CL_BIZ1.MIO_LOG as Shareplex JSON writes it: every value a string or null."""
    return {
        "MIO_LOG_ID": str(log_id),
        "PLNMIO_REC_ID": str(record_id),
        "POL_CODE": policy,
        "CNTR_TYPE": contract_type,
        "CNTR_NO": contract,
        "MIO_AMNT": amount,
        "MIO_DATE": moved_at,
        "CG_NO": None,
    }


def shareplex_message(
    op: str,
    scn: int,
    trans: str,
    seq: int,
    size: int,
    time: str,
    data: Json | None,
    key: Json | None = None,
) -> Json:
    """A DTS Shareplex JSON message of CL_BIZ1.MIO_LOG; (scn, trans, seq) orders the changes."""
    message: Json = {
        "meta": {
            "time": time,
            "userid": 84,
            "op": op,
            "scn": str(scn),
            "rowid": f"AAATGpAAIAAItc{scn % 10000:04d}",
            "trans": trans,
            "seq": seq,
            "size": size,
            "table": MIO_LOG_TABLE,
            "idx": f"{seq}/{size}",
            "posttime": time,
        },
        "data": data,
    }
    if key is not None:
        message["key"] = key
    return message


def write_mio_log(folder: Path) -> None:
    scn = 14589063118700
    gone = mio_log_row(32539736, 31557800, "P-1", "A", "1171201600", "80.00", "2024-05-06 08:00:00")
    first = mio_log_row(32539737, 31557806, "P-1", "A", "1171201606syui26", "1200.00", "2024-05-06 09:30:00")
    second = mio_log_row(32539738, 31557806, "P-1", "A", "1171201606syui26", "300.00", "2024-05-06 09:31:00")
    third = mio_log_row(32539739, 31557807, "P-2", "A", "1171201607", "45.10", "2024-05-06 09:32:00")
    fourth = mio_log_row(32539741, 31557808, "P-3", "C", "1171201608", "-19.99", "2024-05-07 10:00:00.5")
    contract_fix = shareplex_message(
        "upd",
        scn + 130,
        "7.2.411520",
        1,
        2,
        "2024-05-06T10:00:00",
        {"CNTR_NO": "1171201606"},
        {"MIO_LOG_ID": "32539737", "CNTR_NO": "1171201606syui26"},
    )
    write_json_lines(
        folder / "mio_log-0001.jsonl",
        [
            shareplex_message("ins", scn, "7.0.411490", 1, 1, "2024-05-06T08:00:00", gone),
            # the table is truncated: 32539736, older, is gone
            shareplex_message("truncate", scn + 5, "7.1.411491", 1, 1, "2024-05-06T08:30:00", None),
            shareplex_message("ins", scn + 12, "7.0.411499", 1, 3, "2024-05-06T09:35:00", first),
            shareplex_message("ins", scn + 12, "7.0.411499", 2, 3, "2024-05-06T09:35:00", second),
            shareplex_message("ins", scn + 12, "7.0.411499", 3, 3, "2024-05-06T09:35:00", third),
            # updates carry only the columns they change; `key` is the row's key before it
            contract_fix,
            shareplex_message(
                "upd",
                scn + 130,
                "7.2.411520",
                2,
                2,
                "2024-05-06T10:00:00",
                {"MIO_AMNT": "250.00", "CG_NO": None},
                {"MIO_LOG_ID": "32539738"},
            ),
            shareplex_message("drop column", scn + 201, "7.3.411530", 1, 1, "2024-05-06T10:05:00", None),
            shareplex_message("del", scn + 250, "7.4.411540", 1, 1, "2024-05-06T10:10:00", third),
        ],
    )
    write_json_lines(
        folder / "mio_log-0002.jsonl",
        [
            # the key changes from 32539738 to 32539740: the whole row moves, CNTR_TYPE changes
            shareplex_message(
                "upd",
                scn + 290,
                "7.5.411550",
                1,
                1,
                "2024-05-06T10:20:00",
                {"MIO_LOG_ID": "32539740", "CNTR_TYPE": "B"},
                {"MIO_LOG_ID": "32539738"},
            ),
            # redelivered: changes nothing
            contract_fix,
            # late: older than the contract fix (scn 800 < 830), changes nothing
            shareplex_message(
                "upd",
                scn + 100,
                "7.6.411510",
                1,
                1,
                "2024-05-06T09:50:00",
                {"CNTR_NO": "OLD-0001"},
                {"MIO_LOG_ID": "32539737"},
            ),
            # one scn, two transactions: trans parts compare as numbers, 7.10 is after 7.9
            shareplex_message(
                "upd",
                scn + 300,
                "7.10.411561",
                1,
                1,
                "2024-05-06T10:30:00",
                {"POL_CODE": "P-10"},
                {"MIO_LOG_ID": "32539737"},
            ),
            shareplex_message(
                "upd",
                scn + 300,
                "7.9.411560",
                1,
                1,
                "2024-05-06T10:30:00",
                {"POL_CODE": "P-9"},
                {"MIO_LOG_ID": "32539737"},
            ),
            # an update sent as UPDATE BEFORE (logged) and UPDATE AFTER (applied)
            shareplex_message(
                "UPDATE BEFORE",
                scn + 400,
                "7.11.411570",
                1,
                2,
                "2024-05-06T11:00:00",
                {"MIO_LOG_ID": "32539740", "MIO_AMNT": "250.00"},
            ),
            shareplex_message(
                "UPDATE AFTER",
                scn + 400,
                "7.11.411570",
                2,
                2,
                "2024-05-06T11:00:00",
                {"MIO_AMNT": "275.50"},
                {"MIO_LOG_ID": "32539740"},
            ),
            shareplex_message("INSERT", scn + 500, "7.12.411580", 1, 1, "2024-05-07T10:00:01Z", fourth),
        ],
    )


def main() -> None:
    if LANDING.name != "landing" or LANDING.parent.name != "sample_data":
        raise RuntimeError(f"refusing to recreate {LANDING}")
    if LANDING.exists():
        shutil.rmtree(LANDING)

    write_customers(LANDING / "debezium" / "kafka_records")
    write_transactions(LANDING / "debezium" / "kafka_records")
    write_orders(LANDING / "debezium" / "json_lines")
    write_cart_items(LANDING / "debezium" / "json_lines")
    write_regions(LANDING / "arcion_kafka" / "kafka_records")
    write_gitkeep(LANDING / "arcion_kafka" / "json_lines")
    write_ct_pg2hudi(LANDING / "mrs_cdl" / "json_lines")
    write_gitkeep(LANDING / "mrs_cdl" / "kafka_records")
    write_products(LANDING / "canal_json" / "json_lines")
    write_gitkeep(LANDING / "canal_json" / "kafka_records")
    write_mio_log(LANDING / "shareplex_json" / "json_lines")
    write_gitkeep(LANDING / "shareplex_json" / "kafka_records")
    write_dts_avro(LANDING, KAFKA_RECORD_SCHEMA)
    write_arcion_internal_csv(LANDING)
    write_arcion_internal_json(LANDING)
    write_parquet_export(LANDING)

    for path in sorted(LANDING.rglob("*")):
        if path.is_file():
            print(path.relative_to(LANDING.parent))


if __name__ == "__main__":
    main()

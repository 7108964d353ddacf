"""Arcion internal CDC sample records: what Arcion Replicant writes to S3 in its own format
(../shared/formats/arcion-internal-cdc-csv-json.md), one writer per format:

    arcion_internal_csv/csv_files/hr/employees/*.csv    MySQL table hr.employees as CSV: two
                                                         snapshot files (X fields a record), three
                                                         realtime files (3X+3 fields a record)
    arcion_internal_json/json_lines/nation-*.jsonl       MySQL table tpch.nation as JSON, one
                                                         object a line

The CSV files show what the format leaves to the reader: a header line whose order differs
from the declared one, a file with CRLF line ends, quoted fields holding commas, doubled
quotes and a line break, NULL (a null) against "NULL" (the text), EXISTS flags 0/1/2/3
(partial updates, a real null, a key change that moves the whole row), a late and a
redelivered change, and bad records (wrong field count, broken cursors, an unknown opType,
a quote never closed). The JSON lines do the same with `exists`, a binlog rollover
(log-bin.000009 to log-bin.000010) and bad lines. Every CSV file is read back (RFC 4180)
before it is written. sample_data/README.md lists the records and the current state they
must give.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

Json = dict[str, Any]
Row = dict[str, str | None]
CsvRecord = list[str | None]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_millis(text: str) -> int:
    """An ISO-8601 UTC time (no offset: UTC) as epoch milliseconds."""
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (parsed - EPOCH) // timedelta(milliseconds=1)


def compact_json(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def operation_counts(inserts: int, updates: int, deletes: int) -> str:
    """The operation-count JSON that ends every realtime record."""
    return compact_json(
        {"insertCount": inserts, "updateCount": updates, "deleteCount": deletes, "replaceCount": 0}
    )


# ---------------------------------------------------------------------------------------
# CSV: hr.employees
# ---------------------------------------------------------------------------------------

EMPLOYEE_COLUMNS = ["emp_id", "full_name", "dept", "salary", "hired_on", "note"]
SNAPSHOT_HEADER = ["full_name", "emp_id", "dept", "salary", "hired_on", "note"]  # not the declared order
DSC_ID = 1709545873904  # the realtime run's dscId; the next run's is DSC_ID + 1
EXTRACTION_LAG_MS = 412


def csv_field(value: str | None) -> str:
    """One CSV field as Replicant writes it: NULL for a null; quoted when the text holds a
    comma, a double quote or a line break, or is the text NULL (inner quotes doubled)."""
    if value is None:
        return "NULL"
    if value == "NULL" or any(character in value for character in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def csv_line(record: CsvRecord) -> str:
    return ",".join(csv_field(value) for value in record)


def read_csv_records(text: str) -> list[CsvRecord]:
    """RFC 4180 read-back of a whole file: records end at LF or CRLF outside quotes, an
    unquoted NULL is None, a quoted field its text (a quoted "NULL" stays the text). Raises
    ValueError for a quote left open, a quote inside an unquoted field or text after a
    closing quote."""
    records: list[CsvRecord] = []
    record: CsvRecord = []
    position = 0
    while position < len(text):
        value: str | None
        if text[position] == '"':
            parts: list[str] = []
            start = position + 1
            while True:
                quote = text.find('"', start)
                if quote < 0:
                    raise ValueError(f"quote opened at {position} never closed")
                parts.append(text[start:quote])
                if text.startswith('""', quote):
                    parts.append('"')
                    start = quote + 2
                    continue
                position = quote + 1
                break
            value = "".join(parts)
        else:
            end = position
            while end < len(text) and text[end] not in ",\r\n":
                end += 1
            raw = text[position:end]
            if '"' in raw:
                raise ValueError(f"quote inside the unquoted field {raw!r}")
            value = None if raw == "NULL" else raw
            position = end
        record.append(value)
        if text.startswith(",", position):
            position += 1
        elif text.startswith("\r\n", position) or text.startswith("\n", position):
            position += 2 if text[position] == "\r" else 1
            records.append(record)
            record = []
        else:
            raise ValueError(f"text after a field at {position} (or no line end at the end)")
    return records


@dataclass(frozen=True)
class CsvChange:
    """One realtime DML: `new` holds the SET (or inserted) columns, `old` the WHERE (or
    deleted) columns; a key present with None is a present null. EXISTS follows from them."""

    op_type: str
    dsc_id: int
    mut_id: int
    committed: str  # the cursor's timestamp, UTC
    new: tuple[tuple[str, str | None], ...] = ()
    old: tuple[tuple[str, str | None], ...] = ()
    part_num: int = 1

    def cursor(self) -> str:
        millis = epoch_millis(self.committed)
        return compact_json(
            {
                "extractorId": 0,
                "nodeID": "node1",
                "timestamp": millis,
                "extractionTimestamp": millis + EXTRACTION_LAG_MS,
                "dscId": self.dsc_id,
                "mutId": self.mut_id,
                "partNum": self.part_num,
                "v": 2,
            }
        )

    def triplets(self) -> CsvRecord:
        """NEW, OLD, EXISTS of every declared column, in declared order."""
        new, old = dict(self.new), dict(self.old)
        unknown = (set(new) | set(old)) - set(EMPLOYEE_COLUMNS)
        if unknown:
            raise ValueError(f"not a column of hr.employees: {sorted(unknown)}")
        fields: CsvRecord = []
        for column in EMPLOYEE_COLUMNS:
            exists = (1 if column in new else 0) + (2 if column in old else 0)
            fields += [new.get(column), old.get(column), str(exists)]
        return fields


def change(
    op_type: str,
    dsc_id: int,
    mut_id: int,
    committed: str,
    new: Row | None = None,
    old: Row | None = None,
) -> CsvChange:
    return CsvChange(
        op_type, dsc_id, mut_id, committed, tuple((new or {}).items()), tuple((old or {}).items())
    )


def employee(
    emp_id: int, full_name: str, dept: str, salary: str, hired_on: str | None, note: str | None
) -> Row:
    return {
        "emp_id": str(emp_id),
        "full_name": full_name,
        "dept": dept,
        "salary": salary,
        "hired_on": hired_on,
        "note": note,
    }


SNAPSHOT_1 = [
    employee(1, "Ada Lovelace", "Engineering", "5200.00", "2019-04-01", 'Prefers "Ada", not "Augusta"'),
    employee(
        2,
        "Hopper, Grace",
        "Engineering",
        "6100.00",
        "2018-09-17",
        "Mentor for new hires.\nAsk her about COBOL.",
    ),
    employee(3, "Alan Turing", "Research", "5800.00", "2020-01-06", None),
]
SNAPSHOT_2 = [
    employee(4, "Katherine Johnson", "Research", "4900.00", "2021-06-14", "Part-time, Mon-Wed"),
    employee(5, "Edsger Dijkstra", "Operations", "4500.50", None, "NULL"),
]

D1, D2 = DSC_ID, DSC_ID + 1
INSERT_6 = change(
    "I",
    D1,
    1000,
    "2024-03-04T10:05:00.250",
    employee(6, "Barbara Liskov", "Engineering", "5900.00", "2024-03-04", "Starts Monday, badge pending"),
)
SALARY_1 = change("U", D1, 1100, "2024-03-04T10:12:30.500", {"salary": "5600.00"}, {"emp_id": "1"})
NOTE_4_NULL = change("U", D1, 1200, "2024-03-04T10:20:00", {"note": None}, {"emp_id": "4"})
KEY_2_TO_20 = change("U", D1, 1300, "2024-03-04T10:31:15.125", {"emp_id": "20"}, {"emp_id": "2"})
DELETE_3 = change("D", D1, 1400, "2024-03-04T10:45:00", old={"emp_id": "3"})
DEPT_1 = change("U", D2, 40, "2024-03-04T14:02:10", {"dept": "Finance"}, {"emp_id": "1"})
LATE_SALARY_1 = change("U", D1, 1050, "2024-03-04T10:11:45", {"salary": "5400.00"}, {"emp_id": "1"})
REINSERT_3 = change(
    "I",
    D2,
    80,
    "2024-03-04T14:30:00",
    employee(3, "Alan Turing", "Research", "6000.00", "2024-03-11", "Rehired, keeps badge 118"),
)
NAME_5_TEXT_NULL = change("U", D2, 120, "2024-03-04T15:00:00", {"full_name": "NULL"}, {"emp_id": "5"})

# realtime-0003-bad.csv: each is spoilt as its line says
BAD_FIELD_COUNT = change("U", D2, 200, "2024-03-04T15:30:00", {"salary": "6000.00"}, {"emp_id": "6"})
BAD_CURSOR_CUT = change("U", D2, 210, "2024-03-04T15:31:00", {"dept": "Research"}, {"emp_id": "6"})
BAD_CURSOR_SHAPE = change("U", D2, 220, "2024-03-04T15:32:00", {"dept": "Platform"}, {"emp_id": "6"})
BAD_OP_TYPE = change("X", D2, 230, "2024-03-04T15:33:00", {"note": "Moved to Helsinki"}, {"emp_id": "6"})
BAD_UNCLOSED = change(
    "I",
    D2,
    240,
    "2024-03-04T15:34:00",
    employee(7, "Linus Torvalds", "Platform", "5500.00", "2024-03-18", "Joined from Helsinki"),
)

ALL_CHANGES = [
    INSERT_6,
    SALARY_1,
    NOTE_4_NULL,
    KEY_2_TO_20,
    DELETE_3,
    DEPT_1,
    LATE_SALARY_1,
    REINSERT_3,
    NAME_5_TEXT_NULL,
    BAD_FIELD_COUNT,
    BAD_CURSOR_CUT,
    BAD_CURSOR_SHAPE,
    BAD_OP_TYPE,
    BAD_UNCLOSED,
]


def counts_by_change(changes: list[CsvChange]) -> dict[CsvChange, str]:
    """Replicant's running operation counts, taken in log order (dscId, mutId, partNum), so a
    late change carries the counts of its place in the log and a redelivery the same text."""
    counted: dict[CsvChange, str] = {}
    totals = {"I": 0, "U": 0, "D": 0}
    for item in sorted(set(changes), key=lambda c: (c.dsc_id, c.mut_id, c.part_num)):
        if item.op_type in totals:
            totals[item.op_type] += 1
        counted[item] = operation_counts(totals["I"], totals["U"], totals["D"])
    return counted


def realtime_record(item: CsvChange, counts: dict[CsvChange, str]) -> CsvRecord:
    """The 3X + 3 fields of one realtime record."""
    return [*item.triplets(), item.op_type, item.cursor(), counts[item]]


@dataclass
class CsvFile:
    """One CSV file: its records (a header is a record of names) and its line end."""

    name: str
    records: list[CsvRecord] = field(default_factory=list)
    line_end: str = "\n"

    def text(self) -> str:
        return "".join(csv_line(record) + self.line_end for record in self.records)


def write_checked(path: Path, csv_file: CsvFile) -> None:
    """Writes a well-formed file after reading it back to exactly its records."""
    text = csv_file.text()
    if read_csv_records(text) != csv_file.records:
        raise AssertionError(f"{csv_file.name} does not read back as written")
    path.write_bytes(text.encode("utf-8"))


def bad_file_text(counts: dict[CsvChange, str]) -> str:
    """realtime-0003-bad.csv: five records that must be quarantined, the open quote last."""
    short = realtime_record(BAD_FIELD_COUNT, counts)[:-1]  # no operation counts: 20 fields
    cut_cursor = realtime_record(BAD_CURSOR_CUT, counts)
    cut_cursor[-2] = BAD_CURSOR_CUT.cursor().split('"dscId":')[0] + '"dscId":'  # not JSON
    other_cursor = realtime_record(BAD_CURSOR_SHAPE, counts)
    other_cursor[-2] = compact_json({"scn": 5})  # JSON, neither cursor shape
    unknown_op = realtime_record(BAD_OP_TYPE, counts)
    well_formed = [short, cut_cursor, other_cursor, unknown_op]
    text = "".join(csv_line(record) + "\n" for record in well_formed)
    if [len(record) for record in read_csv_records(text)] != [20, 21, 21, 21]:
        raise AssertionError("realtime-0003-bad.csv: unexpected field counts")
    # the last record's operation counts are cut inside their quotes: the quote never closes
    unclosed = realtime_record(BAD_UNCLOSED, counts)
    last_field = csv_field(unclosed[-1])
    open_line = ",".join(
        [*(csv_field(value) for value in unclosed[:-1]), last_field[: last_field.index('""deleteCount')]]
    )
    try:
        read_csv_records(open_line + "\n")
    except ValueError:
        return text + open_line + "\n"
    raise AssertionError("realtime-0003-bad.csv: the last record's quote closes")


def write_arcion_internal_csv(landing: Path) -> None:
    """Writes landing/arcion_internal_csv/csv_files/hr/employees/*.csv."""
    folder = landing / "arcion_internal_csv" / "csv_files" / "hr" / "employees"
    folder.mkdir(parents=True, exist_ok=True)
    counts = counts_by_change(ALL_CHANGES)
    realtime_header = [
        name for column in EMPLOYEE_COLUMNS for name in (column, f"{column}_old", f"{column}_exists")
    ] + ["opType", "cursor", "operationcount"]
    files = [
        CsvFile(
            "snapshot-0001.csv",
            [list(SNAPSHOT_HEADER), *([row[column] for column in SNAPSHOT_HEADER] for row in SNAPSHOT_1)],
        ),
        CsvFile(
            "snapshot-0002.csv",
            [[row[column] for column in EMPLOYEE_COLUMNS] for row in SNAPSHOT_2],
            line_end="\r\n",
        ),
        CsvFile(
            "realtime-0001.csv",
            [
                realtime_record(item, counts)
                for item in (INSERT_6, SALARY_1, NOTE_4_NULL, KEY_2_TO_20, DELETE_3, SALARY_1)
            ],
        ),
        CsvFile(
            "realtime-0002.csv",
            [
                realtime_header,
                *(
                    realtime_record(item, counts)
                    for item in (DEPT_1, LATE_SALARY_1, REINSERT_3, NAME_5_TEXT_NULL)
                ),
            ],
        ),
    ]
    for csv_file in files:
        write_checked(folder / csv_file.name, csv_file)
    (folder / "realtime-0003-bad.csv").write_bytes(bad_file_text(counts).encode("utf-8"))


# ---------------------------------------------------------------------------------------
# JSON: tpch.nation
# ---------------------------------------------------------------------------------------

# the column order Replicant's JSON writer used in the documentation's nation samples
NATION_COLUMNS = ["n_comment", "n_nationkey", "n_regionkey", "n_name"]
NATION_TABLE_NAME: Json = {
    "namespace": {"catalog": "tpch", "schema": "default_schema", "hash": -1338521045},
    "name": "nation",
    "hash": -1052607141,
}
NATIONS: dict[int, Row] = {
    1: {
        "n_comment": "al foxes promise slyly according to the regular accounts. bold requests alon",
        "n_nationkey": "1",
        "n_regionkey": "1",
        "n_name": "ARGENTINA",
    },
    2: {
        "n_comment": "y alongside of the pending deposits. carefully special packages are about the ironic forges",
        "n_nationkey": "2",
        "n_regionkey": "1",
        "n_name": "BRAZIL",
    },
    3: {
        "n_comment": "eas hang ironic, silently silent asymptotes. ironic, regular excuses are furiously regular",
        "n_nationkey": "3",
        "n_regionkey": "1",
        "n_name": "CANADA",
    },
    4: {
        "n_comment": "y above the carefully unusual theodolites. final dugouts are quickly across the furiously regular d",
        "n_nationkey": "4",
        "n_regionkey": "4",
        "n_name": "EGYPT",
    },
    5: {
        "n_comment": "ven packages wake quickly. regu",
        "n_nationkey": "5",
        "n_regionkey": "0",
        "n_name": "ETHIOPIA",
    },
}


@dataclass(frozen=True)
class BinlogCursor:
    """A MySQL-shaped cursor: binlog file number, position, logSeqNum and the commit time."""

    log_number: int
    position: int
    log_seq_num: int
    committed: str  # UTC, whole seconds (a binlog event's time)
    lag_ms: int = 1088

    def text(self) -> str:
        millis = epoch_millis(self.committed)
        return compact_json(
            {
                "extractorId": 0,
                "timestamp": millis,
                "extractionTimestamp": millis + self.lag_ms,
                "log": f"log-bin.{self.log_number:06d}",
                "position": self.position,
                "logSeqNum": self.log_seq_num,
                "slaveServerId": 1,
                "v": 2,
            }
        )


def image(values: Row) -> dict[str, str]:
    """A before or after image: every column, "null" where the DML gave no value or a null."""
    return {
        column: "null" if values.get(column) is None else str(values[column]) for column in NATION_COLUMNS
    }


def nation_message(
    op_type: str,
    cursor: str,
    counts: str,
    *,
    before: Row | None = None,
    after: Row | None = None,
    exists: dict[str, str],
) -> Json:
    return {
        "tableName": NATION_TABLE_NAME,
        "opType": op_type,
        "cursor": cursor,
        "before": image(before or {}),
        "after": image(after or {}),
        "exists": {column: exists[column] for column in NATION_COLUMNS},
        "operationcount": counts,
    }


def flags(default: str, **overrides: str) -> dict[str, str]:
    return {column: overrides.get(column, default) for column in NATION_COLUMNS}


def write_arcion_internal_json(landing: Path) -> None:
    """Writes landing/arcion_internal_json/json_lines/nation-0001.jsonl and nation-0002.jsonl."""
    folder = landing / "arcion_internal_json" / "json_lines"
    folder.mkdir(parents=True, exist_ok=True)
    snapshot_time = "2024-03-05T08:00:00"
    snapshot = [
        nation_message(
            "I",
            BinlogCursor(9, 1540, number, snapshot_time).text(),
            operation_counts(number, 0, 0),
            after=NATIONS[number],
            exists=flags("1"),
        )
        for number in (1, 2, 3, 4)
    ]
    renamed = {**NATIONS[1], "n_name": "ARGENTINE REPUBLIC"}
    full_update_1 = nation_message(
        "U",
        BinlogCursor(9, 2210, 1, "2024-03-05T08:14:05").text(),
        operation_counts(4, 1, 0),
        before=NATIONS[1],
        after=renamed,
        exists=flags("3"),
    )
    comment_2 = nation_message(
        "U",
        BinlogCursor(10, 154, 1, "2024-03-05T08:31:40").text(),
        operation_counts(4, 3, 0),
        before={"n_nationkey": "2"},
        after={"n_comment": "pending deposits cleared by the new Sao Paulo trade desk"},
        exists=flags("0", n_nationkey="2", n_comment="1"),
    )
    null_comment_3 = nation_message(
        "U",
        BinlogCursor(10, 612, 1, "2024-03-05T08:45:12").text(),
        operation_counts(4, 4, 0),
        before={"n_nationkey": "3"},
        after={"n_comment": None},
        exists=flags("0", n_nationkey="2", n_comment="1"),
    )
    key_4_to_40 = nation_message(
        "U",
        BinlogCursor(10, 1038, 1, "2024-03-05T09:02:27").text(),
        operation_counts(4, 5, 0),
        before={"n_nationkey": "4"},
        after={"n_nationkey": "40"},
        exists=flags("0", n_nationkey="3"),
    )
    delete_1 = nation_message(
        "D",
        BinlogCursor(10, 1495, 1, "2024-03-05T09:20:00").text(),
        operation_counts(4, 5, 1),
        before=renamed,
        exists=flags("2"),
    )
    late_comment_2 = nation_message(
        "U",
        BinlogCursor(9, 2890, 1, "2024-03-05T08:22:18").text(),
        operation_counts(4, 2, 0),
        before={"n_nationkey": "2"},
        after={"n_comment": "stale comment from the old trade desk"},
        exists=flags("0", n_nationkey="2", n_comment="1"),
    )

    def insert_5(cursor: str) -> Json:
        return nation_message("I", cursor, operation_counts(5, 5, 1), after=NATIONS[5], exists=flags("1"))

    cursor_5 = BinlogCursor(10, 2230, 1, "2024-03-05T09:40:00").text()
    not_json = compact_json(insert_5(cursor_5))[:97]
    cut_cursor = insert_5(cursor_5.split('"extractionTimestamp":')[0] + '"extractionTimestamp":')
    other_cursor = insert_5(
        compact_json(
            {
                "extractorId": 0,
                "timestamp": epoch_millis("2024-03-05T09:40:00"),
                "extractionTimestamp": epoch_millis("2024-03-05T09:40:00") + 1088,
                "scn": 14589063118700,
                "v": 2,
            }
        )
    )
    no_table = {key: value for key, value in insert_5(cursor_5).items() if key != "tableName"}
    unknown_op = {**insert_5(cursor_5), "opType": "X"}

    write_json_lines(
        folder / "nation-0001.jsonl",
        [*snapshot, full_update_1, comment_2, null_comment_3, key_4_to_40, delete_1],
    )
    write_json_lines(
        folder / "nation-0002.jsonl",
        [late_comment_2, comment_2, not_json, cut_cursor, other_cursor, no_table, unknown_op],
    )


def write_json_lines(path: Path, messages: list[Json | str]) -> None:
    """One compact JSON object per line, `\\n` line ends; a str is written as is (a broken line)."""
    lines = [message if isinstance(message, str) else compact_json(message) for message in messages]
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8"))

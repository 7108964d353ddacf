"""Hourly Parquet CDC export files (<table>/year=yyyy/month=mm/day=dd/hour=hh/*.parquet) as
JSON text that Spark SQL parses like any other flavour's message.

Every row of such a file is a full table row plus three columns: `cdc_operation_type` (INSERT,
UPDATE or DELETE), `cdc_change_seq` (a unique, rising number: an int64, a decimal or digit text)
and `cdc_commit_timestamp`. Columns appear and disappear from one file to the next, so Spark's
own reader (one merged schema for all the files) would turn a dropped column into a null that
cannot be told from a null value. Python reads each file with its own schema (pyarrow) and
gives one JSON object per row, in file order:

    {"cdc_operation_type": "UPDATE", "cdc_change_seq": "9007199254740993",
     "cdc_commit_timestamp": "2024-01-01T01:02:03.123456Z",
     "row": {"id": 42, "name": "Zoë", "balance": 12.50, "closed_on": null}}

A cdc_ key is there only when the file has that column (null when the value is); the three
are text whatever their Parquet type (a change sequence keeps every digit). `row` holds every
other column of the file, in the file's order: a column the file does not have is absent, a
null value is a present null. Values are in the canonical form the flavour's SQL types: integers
and decimals as exact JSON numbers (a decimal keeps its scale: 12.50), floating point as the
shortest text that reads back the same value (NaN and infinities as the strings "NaN",
"Infinity", "-Infinity"), booleans, strings, bytes as base64, dates `yyyy-MM-dd`, timestamps
in UTC `yyyy-MM-ddTHH:mm:ss.ffffffZ` (a zone-less one is read as UTC; nanoseconds keep nine
digits when the last three are not 000), times of day `HH:mm:ss.ffffff`, lists, structs and maps
as nested JSON, anything else its text. INT96 timestamps (Spark's legacy encoding) are read as
microseconds, so that 0001-01-01 and 9999-12-31 do not overflow.

Values are encoded column by column (pyarrow.compute casts where Arrow writes the canonical
text already), then each row is one string formatting of its pre-encoded fragments.

A file that is not readable Parquet (bad magic, truncated, a corrupt page, an encoding pyarrow
does not support) never fails the query: the rows decoded before the failure are kept, followed
by one {"error_kind": "parquet", "error": <pyarrow's message>, "rows_decoded": <n>} entry.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from json.encoder import encode_basestring

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

CDC_COLUMNS = ("cdc_operation_type", "cdc_change_seq", "cdc_commit_timestamp")
BATCH_ROWS = 65_536
ERROR_LENGTH = 500
NON_FINITE = {"nan": '"NaN"', "inf": '"Infinity"', "-inf": '"-Infinity"'}

TypeCheck = Callable[[pa.DataType], bool]
TEXT_TYPES: tuple[TypeCheck, ...] = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
BINARY_TYPES: tuple[TypeCheck, ...] = (
    pa.types.is_binary,
    pa.types.is_large_binary,
    pa.types.is_fixed_size_binary,
    pa.types.is_binary_view,
)
DATE_TIME_TYPES: tuple[TypeCheck, ...] = (pa.types.is_date, pa.types.is_timestamp, pa.types.is_time)
LIST_TYPES: tuple[TypeCheck, ...] = (
    pa.types.is_list,
    pa.types.is_large_list,
    pa.types.is_fixed_size_list,
    pa.types.is_list_view,
    pa.types.is_large_list_view,
)


def file_records_json(content: bytes | None) -> list[str] | None:
    """cdc_parquet_export_file_records: the JSON text of every row of one export file, in order
    (null for null); a failure ends the list with one error entry."""
    if content is None:
        return None
    texts: list[str] = []
    try:
        for batch in record_batches(content):
            texts.extend(batch_records_json(batch))
    except Exception as error:  # pyarrow raises ArrowInvalid, OSError, ArrowNotImplementedError...
        texts.append(_error_json(error, len(texts)))
    return texts


def record_batches(content: bytes) -> Iterator[pa.RecordBatch]:
    """The batches of one file, row group after row group, each with the file's own schema."""
    parquet_file = pq.ParquetFile(pa.BufferReader(content), coerce_int96_timestamp_unit="us")
    for group in range(parquet_file.num_row_groups):
        yield from parquet_file.iter_batches(batch_size=BATCH_ROWS, row_groups=[group], use_threads=False)


def batch_records_json(batch: pa.RecordBatch) -> list[str]:
    """The JSON text of each row of one batch: the cdc_ columns it has as text, the others
    under `row`."""
    names = batch.schema.names
    keys: list[str] = []
    columns: list[list[str]] = []
    for name in CDC_COLUMNS:
        if name in names:
            keys.append(_key(name))
            columns.append(text_fragments(batch.column(names.index(name))))
    row_keys = []
    for position, name in enumerate(names):
        if name not in CDC_COLUMNS:
            row_keys.append(_key(name))
            columns.append(value_fragments(batch.column(position)))
    keys.append('"row":{' + ",".join(row_keys) + "}")
    return _formatted("{" + ",".join(keys) + "}", columns, batch.num_rows)


def value_fragments(array: pa.Array) -> list[str]:
    """The canonical JSON of each value of one column ("null" for a null), chosen once for the
    column by its type."""
    data_type = array.type
    if pa.types.is_dictionary(data_type):
        return value_fragments(array.dictionary_decode())
    if pa.types.is_null(data_type):
        return ["null"] * len(array)
    if pa.types.is_integer(data_type) or pa.types.is_boolean(data_type):
        return _listed(pc.cast(array, pa.string()))
    if pa.types.is_decimal(data_type):
        return _listed(decimal_text(array))
    if pa.types.is_floating(data_type):
        return _float_fragments(array)
    if _is_one_of(data_type, TEXT_TYPES):
        return _string_fragments(array.to_pylist(), has_nulls=array.null_count > 0)
    if _is_one_of(data_type, BINARY_TYPES):
        return _binary_fragments(array)
    if _is_one_of(data_type, DATE_TIME_TYPES):
        return _listed(_quoted(temporal_text(array)))
    if pa.types.is_map(data_type):
        return _map_fragments(array)
    if _is_one_of(data_type, LIST_TYPES):
        return _list_fragments(array)
    if pa.types.is_struct(data_type):
        return _struct_fragments(array)
    texts = [None if value is None else str(value) for value in array.to_pylist()]
    return _string_fragments(texts, has_nulls=True)


def text_fragments(array: pa.Array) -> list[str]:
    """The canonical text of each value as a JSON string ("null" for a null): the cdc_ columns,
    whose change sequence must keep every digit whatever its width."""
    data_type = array.type
    if pa.types.is_integer(data_type) or pa.types.is_boolean(data_type):
        return _listed(_quoted(pc.cast(array, pa.string())))
    if pa.types.is_decimal(data_type):
        return _listed(_quoted(decimal_text(array)))
    fragments = value_fragments(array)
    if _is_one_of(data_type, TEXT_TYPES + DATE_TIME_TYPES):
        return fragments  # JSON strings already
    return [text if text == "null" or text.startswith('"') else encode_basestring(text) for text in fragments]


def decimal_text(array: pa.Array) -> pa.Array:
    """Each decimal as plain text with its scale (12.50, 0.0000000001, 12300): Arrow writes the
    few that need an exponent (1E-10, 1.23E+4) in scientific notation, rewritten here."""
    text = pc.cast(array, pa.string())
    scientific = pc.indices_nonzero(pc.fill_null(pc.match_substring(text, "E"), False)).to_pylist()
    if not scientific:
        return text
    values = text.to_pylist()
    for index in scientific:
        values[index] = format(Decimal(values[index]), "f")
    return pa.array(values, pa.string())


def temporal_text(array: pa.Array) -> pa.Array:
    """Dates `yyyy-MM-dd`; timestamps in UTC `yyyy-MM-ddTHH:mm:ss.ffffffZ`; times of day
    `HH:mm:ss.ffffff`."""
    data_type = array.type
    if pa.types.is_date(data_type):
        return pc.cast(pc.cast(array, pa.date32()), pa.string())
    if pa.types.is_timestamp(data_type):
        # a zoned column stores the UTC instant: dropping the zone keeps it (a zone-less one is read as UTC)
        text = _fraction_text(pc.cast(array, pa.timestamp(data_type.unit)), pa.timestamp("us"))
        return pc.binary_join_element_wise(pc.replace_substring(text, " ", "T", max_replacements=1), "Z", "")
    return _fraction_text(array, pa.time64("us"))


def _fraction_text(array: pa.Array, microsecond_type: pa.DataType) -> pa.Array:
    """Arrow's text of a timestamp or time with six fraction digits; nine for a nanosecond value
    whose last three digits are not 000."""
    if array.type.unit != "ns":
        return pc.cast(pc.cast(array, microsecond_type), pa.string())
    text = pc.cast(array, pa.string())
    counts = pc.cast(array, pa.int64())
    whole_micros = pc.equal(pc.subtract(counts, pc.multiply(pc.divide(counts, 1000), 1000)), 0)
    return pc.if_else(whole_micros, pc.utf8_slice_codeunits(text, 0, -3), text)


def _float_fragments(array: pa.Array) -> list[str]:
    """repr of each double (a float32's shortest text read back as a double, so 0.1f is 0.1)."""
    if array.type != pa.float64():
        array = pc.cast(pc.cast(array, pa.string()), pa.float64())
    texts = list(map(float.__repr__, pc.fill_null(array, 0.0).to_numpy().tolist()))
    for index in pc.indices_nonzero(pc.fill_null(pc.invert(pc.is_finite(array)), False)).to_pylist():
        texts[index] = NON_FINITE[texts[index]]
    return _nulls_written(texts, array)


def _string_fragments(values: list[str | None], *, has_nulls: bool) -> list[str]:
    if not has_nulls:
        return list(map(encode_basestring, values))  # type: ignore[arg-type]
    return ["null" if value is None else encode_basestring(value) for value in values]


def _binary_fragments(array: pa.Array) -> list[str]:
    return [
        "null" if value is None else '"' + binascii.b2a_base64(value, newline=False).decode("ascii") + '"'
        for value in array.to_pylist()
    ]


def _list_fragments(array: pa.Array) -> list[str]:
    return _grouped(value_fragments(pc.list_flatten(array)), pc.list_value_length(array), "[]")


def _map_fragments(array: pa.Array) -> list[str]:
    """A map as a JSON object; a key that is not text is written as its canonical text."""
    data_type = array.type
    entries = array.cast(pa.list_(pa.struct([data_type.key_field, data_type.item_field])))
    keys, items = pc.list_flatten(entries).flatten()
    pairs = [key + ":" + item for key, item in zip(text_fragments(keys), value_fragments(items), strict=True)]
    return _grouped(pairs, pc.list_value_length(entries), "{}")


def _grouped(items: list[str], lengths: pa.Array, brackets: str) -> list[str]:
    """The items of each list value (`lengths` of them, one after another) joined in brackets;
    "null" for a null value (a null length, with no items)."""
    texts = []
    start = 0
    for length in lengths.to_pylist():
        if length is None:
            texts.append("null")
            continue
        texts.append(brackets[0] + ",".join(items[start : start + length]) + brackets[1])
        start += length
    return texts


def _struct_fragments(array: pa.Array) -> list[str]:
    data_type = array.type
    names = [data_type.field(position).name for position in range(data_type.num_fields)]
    fields = [value_fragments(field) for field in array.flatten()]
    template = "{" + ",".join(_key(name) for name in names) + "}"
    return _nulls_written(_formatted(template, fields, len(array)), array)


def _formatted(template: str, columns: list[list[str]], count: int) -> list[str]:
    """`template` with each row's fragments in its %s placeholders."""
    if not columns:
        return [template % ()] * count
    return list(map(template.__mod__, zip(*columns, strict=True)))


def _key(name: str) -> str:
    """A JSON key and its value placeholder, for a %-format template."""
    return json.dumps(name, ensure_ascii=False).replace("%", "%%") + ":%s"


def _listed(text: pa.Array) -> list[str]:
    return pc.fill_null(text, "null").to_pylist()  # type: ignore[no-any-return]


def _quoted(text: pa.Array) -> pa.Array:
    """Text with nothing to escape (digits, dates...) as JSON strings; nulls stay null."""
    return pc.binary_join_element_wise('"', text, '"', "")


def _nulls_written(texts: list[str], array: pa.Array) -> list[str]:
    if array.null_count:
        for index in pc.indices_nonzero(array.is_null()).to_pylist():
            texts[index] = "null"
    return texts


def _is_one_of(data_type: pa.DataType, checks: tuple[TypeCheck, ...]) -> bool:
    return any(check(data_type) for check in checks)


def _json(document: dict[str, object]) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _error_json(error: Exception, rows_decoded: int) -> str:
    return _json(
        {
            "error_kind": "parquet",
            "error": (str(error) or type(error).__name__)[:ERROR_LENGTH],
            "rows_decoded": rows_decoded,
        }
    )

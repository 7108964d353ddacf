"""Hourly Parquet CDC export decoding: each file with its own schema, the cdc_ columns as text
(absent when the file has none), every value type in its canonical form, and files or row
groups that do not decode (the rows before kept, then one error entry)."""

from __future__ import annotations

import datetime
import io
import json
from decimal import Decimal
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cdc_udfs.parquet_export import file_records_json
from cdc_udfs.registration import parquet_export_file_records_batch

UTC = datetime.UTC


def hours(offset: int) -> datetime.timezone:
    return datetime.timezone(datetime.timedelta(hours=offset))


def parquet(columns: dict[str, Any], **options: Any) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns), buffer, **options)
    return buffer.getvalue()


def texts_of(content: bytes) -> list[str]:
    texts = file_records_json(content)
    assert texts is not None
    return texts


def records(columns: dict[str, Any], **options: Any) -> list[dict[str, Any]]:
    return [json.loads(text) for text in texts_of(parquet(columns, **options))]


def row_texts(array: pa.Array) -> list[str]:
    """The JSON text of the column `c` in each row, as written (12.50 stays 12.50)."""
    prefix, suffix = '{"row":{"c":', "}}"
    texts = texts_of(parquet({"c": array}))
    assert all(text.startswith(prefix) and text.endswith(suffix) for text in texts), texts
    assert all(json.loads(text) for text in texts)  # valid JSON
    return [text[len(prefix) : -len(suffix)] for text in texts]


def test_none_gives_none() -> None:
    assert file_records_json(None) is None


def test_each_row_is_one_compact_object_in_file_order_with_the_cdc_columns_as_text() -> None:
    content = parquet(
        {
            "id": pa.array([1, 2], pa.int32()),
            "cdc_change_seq": pa.array([9007199254740993, 9007199254740994], pa.int64()),
            "name": ["Zoë", None],
            "cdc_operation_type": ["INSERT", "DELETE"],
            "cdc_commit_timestamp": pa.array([1704070923123456, 0], pa.timestamp("us")),
        }
    )
    assert texts_of(content) == [
        '{"cdc_operation_type":"INSERT","cdc_change_seq":"9007199254740993",'
        '"cdc_commit_timestamp":"2024-01-01T01:02:03.123456Z","row":{"id":1,"name":"Zoë"}}',
        '{"cdc_operation_type":"DELETE","cdc_change_seq":"9007199254740994",'
        '"cdc_commit_timestamp":"1970-01-01T00:00:00.000000Z","row":{"id":2,"name":null}}',
    ]


@pytest.mark.parametrize(
    ("sequence", "text"),
    [
        (pa.array([9007199254740993], pa.int64()), "9007199254740993"),
        (pa.array([2**64 - 1], pa.uint64()), "18446744073709551615"),
        (pa.array([Decimal("9" * 38)], pa.decimal128(38, 0)), "9" * 38),
        (pa.array([Decimal("123.00")], pa.decimal128(20, 2)), "123.00"),
        (pa.array(["000123456789012345678901234567890"]), "000123456789012345678901234567890"),
    ],
    ids=["int64", "uint64", "decimal(38,0)", "decimal(20,2)", "string"],
)
def test_the_change_sequence_is_text_with_every_digit(sequence: pa.Array, text: str) -> None:
    assert records({"cdc_change_seq": sequence}) == [{"cdc_change_seq": text, "row": {}}]


def test_a_cdc_column_the_file_lacks_is_absent_and_a_null_one_is_present() -> None:
    assert records({"cdc_operation_type": ["UPDATE"], "id": [1]}) == [
        {"cdc_operation_type": "UPDATE", "row": {"id": 1}}
    ]
    assert records(
        {
            "cdc_operation_type": pa.array([None], pa.string()),
            "cdc_change_seq": pa.array([None], pa.int64()),
            "cdc_commit_timestamp": pa.array([None], pa.timestamp("us")),
        }
    ) == [{"cdc_operation_type": None, "cdc_change_seq": None, "cdc_commit_timestamp": None, "row": {}}]


def test_each_file_has_its_own_columns_a_dropped_one_is_absent_a_null_one_present() -> None:
    before = records({"id": [1], "legacy": ["x"], "cdc_change_seq": [1]})
    after = records({"id": [2], "cdc_change_seq": [2], "added": pa.array([None], pa.int64())})
    assert [record["row"] for record in before + after] == [
        {"id": 1, "legacy": "x"},
        {"id": 2, "added": None},
    ]


def test_integers_are_exact_json_numbers() -> None:
    extremes = [
        pa.array([-(2**7), 2**7 - 1], pa.int8()),
        pa.array([-(2**63), 2**63 - 1], pa.int64()),
        pa.array([0, 2**64 - 1], pa.uint64()),
        pa.array([None, 7], pa.int16()),
    ]
    assert [row_texts(array) for array in extremes] == [
        ["-128", "127"],
        ["-9223372036854775808", "9223372036854775807"],
        ["0", "18446744073709551615"],
        ["null", "7"],
    ]


def test_floats_are_their_shortest_text_and_non_finite_values_strings() -> None:
    doubles = pa.array([0.1, 1.0, 1e-07, -0.0, 1e300, float("nan"), float("inf"), float("-inf"), None])
    assert row_texts(doubles) == [
        "0.1",
        "1.0",
        "1e-07",
        "-0.0",
        "1e+300",
        '"NaN"',
        '"Infinity"',
        '"-Infinity"',
        "null",
    ]
    # a float32 is its own shortest text, not its widening to a double (0.10000000149011612)
    floats = pa.array([0.1, 3.4e38, float("nan"), None], pa.float32())
    assert row_texts(floats) == ["0.1", "3.4e+38", '"NaN"', "null"]


def test_decimals_are_json_numbers_written_exactly_with_their_scale() -> None:
    decimals = pa.array([Decimal("12.50"), Decimal("-0.01"), Decimal("0E-10"), None], pa.decimal128(38, 10))
    assert row_texts(decimals) == ["12.5000000000", "-0.0100000000", "0.0000000000", "null"]
    assert row_texts(pa.array([Decimal("12.50")], pa.decimal128(4, 2))) == ["12.50"]
    # Arrow writes these with an exponent: the plain text is kept
    assert row_texts(pa.array([Decimal("1E-10")], pa.decimal128(38, 10))) == ["0.0000000001"]
    wide = pa.array([Decimal("-" + "9" * 70 + ".5")], pa.decimal256(76, 1))
    assert row_texts(wide) == ["-" + "9" * 70 + ".5"]


def test_booleans_strings_and_bytes() -> None:
    assert row_texts(pa.array([True, False, None])) == ["true", "false", "null"]
    assert row_texts(pa.array(['say "hi"\n\\', "张伟", None])) == ['"say \\"hi\\"\\n\\\\"', '"张伟"', "null"]
    assert row_texts(pa.array(["x", None], pa.large_string())) == ['"x"', "null"]
    assert row_texts(pa.array(["a", "b", "a", None]).dictionary_encode()) == ['"a"', '"b"', '"a"', "null"]
    assert row_texts(pa.array([b"\x00\xff", None])) == ['"AP8="', "null"]
    assert row_texts(pa.array([b"\x01\x02", None], pa.binary(2))) == ['"AQI="', "null"]


def test_dates_are_iso_days() -> None:
    days = [datetime.date(2024, 2, 29), datetime.date(1, 1, 1), None]
    expected = ['"2024-02-29"', '"0001-01-01"', "null"]
    assert row_texts(pa.array(days, pa.date32())) == expected
    assert row_texts(pa.array(days, pa.date64())) == expected


@pytest.mark.parametrize(
    ("data_type", "value"),
    [
        (pa.timestamp("s"), datetime.datetime(2024, 1, 1, 1, 2, 3)),
        (pa.timestamp("ms"), datetime.datetime(2024, 1, 1, 1, 2, 3)),
        (pa.timestamp("us"), datetime.datetime(2024, 1, 1, 1, 2, 3)),
        (pa.timestamp("us", "UTC"), datetime.datetime(2024, 1, 1, 1, 2, 3, tzinfo=UTC)),
        (
            pa.timestamp("ms", "Asia/Shanghai"),
            datetime.datetime(2024, 1, 1, 9, 2, 3, tzinfo=hours(8)),
        ),
        (pa.timestamp("ns", "-05:00"), datetime.datetime(2023, 12, 31, 20, 2, 3, tzinfo=hours(-5))),
    ],
    ids=["naive s", "naive ms", "naive us", "utc", "asia/shanghai", "offset ns"],
)
def test_timestamps_are_utc_with_six_fraction_digits(
    data_type: pa.DataType, value: datetime.datetime
) -> None:
    assert row_texts(pa.array([value, None], data_type)) == ['"2024-01-01T01:02:03.000000Z"', "null"]


def test_nanoseconds_keep_nine_digits_only_when_the_last_three_are_not_zero() -> None:
    nanoseconds = pa.array([1704070923123456789, 1704070923123456000, -1], pa.timestamp("ns"))
    assert row_texts(nanoseconds) == [
        '"2024-01-01T01:02:03.123456789Z"',
        '"2024-01-01T01:02:03.123456Z"',
        '"1969-12-31T23:59:59.999999999Z"',
    ]


def test_int96_timestamps_are_read_as_microseconds_so_year_9999_does_not_overflow() -> None:
    content = parquet(
        {"c": pa.array([datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)], pa.timestamp("us"))},
        use_deprecated_int96_timestamps=True,
    )
    assert json.loads(texts_of(content)[0]) == {"row": {"c": "9999-12-31T23:59:59.999999Z"}}


def test_times_of_day_have_six_fraction_digits() -> None:
    assert row_texts(pa.array([3723, None], pa.time32("s"))) == ['"01:02:03.000000"', "null"]
    assert row_texts(pa.array([3723004], pa.time32("ms"))) == ['"01:02:03.004000"']
    assert row_texts(pa.array([3723000005], pa.time64("us"))) == ['"01:02:03.000005"']
    assert row_texts(pa.array([3723000005000, 3723000000001], pa.time64("ns"))) == [
        '"01:02:03.000005"',
        '"01:02:03.000000001"',
    ]


def test_lists_structs_and_maps_are_nested_json_with_the_same_rules() -> None:
    lists = pa.array([[Decimal("1.50"), None], [], None], pa.list_(pa.decimal128(5, 2)))
    assert row_texts(lists) == ["[1.50,null]", "[]", "null"]
    structs = pa.array(
        [{"at": datetime.datetime(2024, 1, 1), "score": float("nan")}, None, {"at": None, "score": 1.0}],
        pa.struct([("at", pa.timestamp("us")), ("score", pa.float64())]),
    )
    assert row_texts(structs) == [
        '{"at":"2024-01-01T00:00:00.000000Z","score":"NaN"}',
        "null",
        '{"at":null,"score":1.0}',
    ]
    maps = pa.array([[(1, ["a"]), (2, None)], None], pa.map_(pa.int32(), pa.list_(pa.string())))
    assert row_texts(maps) == ['{"1":["a"],"2":null}', "null"]


def test_other_types_are_their_text() -> None:
    durations = pa.array([datetime.timedelta(seconds=90), None], pa.duration("s"))
    assert row_texts(durations) == ['"0:01:30"', "null"]
    assert row_texts(pa.array([None, None], pa.null())) == ["null", "null"]


def parquet_error(text: str) -> dict[str, Any]:
    document = json.loads(text)
    assert set(document) == {"error_kind", "error", "rows_decoded"}
    assert document["error_kind"] == "parquet"
    return document  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00not parquet at all\xff", "magic bytes not found"),
        (parquet({"id": list(range(100))})[:300], "magic bytes not found"),
        (b"", "file size is 0 bytes"),
    ],
    ids=["garbage", "cut in the middle", "empty"],
)
def test_a_file_that_is_not_parquet_is_one_error_entry(content: bytes, message: str) -> None:
    texts = texts_of(content)
    assert len(texts) == 1
    error = parquet_error(texts[0])
    assert message in error["error"]
    assert error["rows_decoded"] == 0


def test_a_broken_row_group_keeps_the_rows_before_it_then_one_error_entry() -> None:
    content = bytearray(
        parquet(
            {"id": list(range(6)), "cdc_change_seq": list(range(6))},
            row_group_size=2,
            compression="none",
            use_dictionary=False,
        )
    )
    last_group = pq.ParquetFile(pa.BufferReader(bytes(content))).metadata.row_group(2)
    for position in range(last_group.num_columns):
        chunk = last_group.column(position)
        start = chunk.data_page_offset
        content[start : start + chunk.total_compressed_size] = b"\xff" * chunk.total_compressed_size
    texts = texts_of(bytes(content))
    assert [json.loads(text) for text in texts[:4]] == [
        {"cdc_change_seq": str(number), "row": {"id": number}} for number in range(4)
    ]
    error = parquet_error(texts[4])
    assert "page header" in error["error"]
    assert error["rows_decoded"] == 4
    assert len(texts) == 5


def test_the_pandas_udf_decodes_each_file_of_a_batch_with_its_own_schema() -> None:
    files = pd.Series([parquet({"id": [1, 2]}), None, parquet({"name": ["x"]})], dtype=object)
    assert parquet_export_file_records_batch(files).tolist() == [
        ['{"row":{"id":1}}', '{"row":{"id":2}}'],
        None,
        ['{"row":{"name":"x"}}'],
    ]

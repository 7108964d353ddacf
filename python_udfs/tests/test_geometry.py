"""WKB to GeoJSON: the Debezium geometry values of the Paimon all-types corpus file, and the
GeoJSON that Flink CDC's documentation gives for the same MySQL values."""

from __future__ import annotations

import base64
import struct

import pytest

from cdc_udfs.geometry import WkbError, geojson_from_wkb

# (Debezium wkb, base64, from paimon-debezium-schema-alltype-debezium-data-1.txt; GeoJSON as Flink CDC documents it)
CORPUS = [
    ("AQEAAAAAAAAAAADwPwAAAAAAAPA/", '{"coordinates":[1,1],"type":"Point","srid":0}'),
    (
        "AQIAAAADAAAAAAAAAAAACEAAAAAAAAAAAAAAAAAAAAhAAAAAAAAACEAAAAAAAAAIQAAAAAAAABRA",
        '{"coordinates":[[3,0],[3,3],[3,5]],"type":"LineString","srid":0}',
    ),
    (
        "AQMAAAABAAAABQAAAAAAAAAAAPA/AAAAAAAA8D8AAAAAAAAAQAAAAAAAAPA/AAAAAAAAAEAAAAAAAAAAQAAAAAAAAPA/AAAAAAAAAEAAAAAAAADwPwAAAAAAAPA/",
        '{"coordinates":[[[1,1],[2,1],[2,2],[1,2],[1,1]]],"type":"Polygon","srid":0}',
    ),
    (
        "AQQAAAACAAAAAQEAAAAAAAAAAADwPwAAAAAAAPA/AQEAAAAAAAAAAAAAQAAAAAAAAABA",
        '{"coordinates":[[1,1],[2,2]],"type":"MultiPoint","srid":0}',
    ),
    (
        "AQUAAAACAAAAAQIAAAADAAAAAAAAAAAA8D8AAAAAAADwPwAAAAAAAABAAAAAAAAAAEAAAAAAAAAIQAAAAAAAAAhAAQIAAAACAAAAAAAAAAAAEEAAAAAAAAAQQAAAAAAAABRAAAAAAAAAFEA=",
        '{"coordinates":[[[1,1],[2,2],[3,3]],[[4,4],[5,5]]],"type":"MultiLineString","srid":0}',
    ),
    (
        "AQYAAAACAAAAAQMAAAABAAAABQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAkQAAAAAAAAAAAAAAAAAAAJEAAAAAAAAAkQAAAAAAAAAAAAAAAAAAAJEAAAAAAAAAAAAAAAAAAAAAAAQMAAAABAAAABQAAAAAAAAAAABRAAAAAAAAAFEAAAAAAAAAcQAAAAAAAABRAAAAAAAAAHEAAAAAAAAAcQAAAAAAAABRAAAAAAAAAHEAAAAAAAAAUQAAAAAAAABRA",
        '{"coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]]],[[[5,5],[7,5],[7,7],[5,7],[5,5]]]],"type":"MultiPolygon","srid":0}',
    ),
    (
        "AQcAAAADAAAAAQEAAAAAAAAAAAAkQAAAAAAAACRAAQEAAAAAAAAAAAA+QAAAAAAAAD5AAQIAAAACAAAAAAAAAAAALkAAAAAAAAAuQAAAAAAAADRAAAAAAAAANEA=",
        '{"geometries":[{"type":"Point","coordinates":[10,10]},{"type":"Point","coordinates":[30,30]},'
        '{"type":"LineString","coordinates":[[15,15],[20,20]]}],"type":"GeometryCollection","srid":0}',
    ),
]


@pytest.mark.parametrize(("wkb", "expected"), CORPUS)
def test_corpus_geometry_as_flink_cdc_shows_it(wkb: str, expected: str) -> None:
    assert geojson_from_wkb(base64.b64decode(wkb), None) == expected


def test_big_endian_z_and_srid() -> None:
    # PostGIS extended WKB, big endian: POINT Z (0.5 -1.25 3) with SRID 4326 in the bytes
    wkb = struct.pack(">BII3d", 0, 0x80000001 | 0x20000000, 4326, 0.5, -1.25, 3.0)
    assert geojson_from_wkb(wkb, 4326) == '{"coordinates":[0.5,-1.25,3],"type":"Point","srid":4326}'


def test_iso_measured_point_drops_m_and_empty_point_has_no_coordinates() -> None:
    assert geojson_from_wkb(struct.pack("<BI3d", 1, 2001, 1.0, 2.0, 9.0), 0) == (
        '{"coordinates":[1,2],"type":"Point","srid":0}'
    )
    assert geojson_from_wkb(struct.pack("<BI2d", 1, 1, float("nan"), float("nan")), None) == (
        '{"coordinates":[],"type":"Point","srid":0}'
    )


def test_small_and_large_coordinates_have_no_exponent() -> None:
    assert geojson_from_wkb(struct.pack("<BI2d", 1, 1, 1e-7, 1e20), 0) == (
        '{"coordinates":[0.0000001,100000000000000000000],"type":"Point","srid":0}'
    )


@pytest.mark.parametrize(
    ("wkb", "message"),
    [
        (b"\x02\x01\x00\x00\x00", "byte order 2"),
        (struct.pack("<BI", 1, 9), "geometry type code 9"),
        (struct.pack("<BId", 1, 1, 1.0), "WKB ends at byte 13"),
        (struct.pack("<BI2dB", 1, 1, 1.0, 2.0, 0), "1 bytes left"),
        (struct.pack("<BII", 1, 2, 10**6), "count 1000000"),
    ],
)
def test_bytes_that_are_not_a_geometry_say_why(wkb: bytes, message: str) -> None:
    with pytest.raises(WkbError, match=message):
        geojson_from_wkb(wkb, None)

"""Well-known binary (WKB) geometries as GeoJSON text, the way Flink CDC and Paimon show
Debezium's geometry columns (io.debezium.data.geometry.Geometry / Point / Geography):

    {"coordinates":[1,1],"type":"Point","srid":0}
    {"geometries":[{"type":"Point","coordinates":[10,10]}],"type":"GeometryCollection","srid":0}

Reads ISO and OGC WKB in either byte order, with Z / M / ZM (ISO type codes 1000+, 2000+,
3000+) and PostGIS extended WKB (flags 0x80000000 Z, 0x40000000 M, 0x20000000 SRID). GeoJSON
positions keep x, y and z; m is dropped. An empty point (NaN coordinates) has no coordinates.
"""

from __future__ import annotations

import json
import math
import struct
from decimal import Decimal
from typing import Any

TYPE_NAMES = {
    1: "Point",
    2: "LineString",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}
EWKB_Z, EWKB_M, EWKB_SRID = 0x80000000, 0x40000000, 0x20000000


class WkbError(ValueError):
    """The bytes are not a geometry this reader understands (the message says where and why)."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    def take(self, size: int) -> bytes:
        if self.offset + size > len(self.data):
            raise WkbError(f"WKB ends at byte {len(self.data)}, {size} more expected at byte {self.offset}")
        chunk = self.data[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def unpack(self, fmt: str) -> tuple[Any, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))


def _number_text(value: float) -> str:
    """A coordinate as those tools write it: 1 for 1.0, 0.1 for 0.1, never an exponent."""
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return format(Decimal(repr(value)), "f")


def _json_text(value: Any) -> str:
    """Compact JSON of nested dicts, lists, strings, ints and coordinates (floats, see _number_text)."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(key) + ":" + _json_text(item) for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_json_text(item) for item in value) + "]"
    if isinstance(value, float):
        return _number_text(value)
    return json.dumps(value)


def _geometry(reader: _Reader) -> dict[str, Any]:
    order = reader.take(1)[0]
    if order not in (0, 1):
        raise WkbError(
            f"byte order {order} at byte {reader.offset - 1}; expected 0 (big) or 1 (little endian)"
        )
    endian = "<" if order == 1 else ">"
    (code,) = reader.unpack(endian + "I")
    has_z = bool(code & EWKB_Z)
    has_m = bool(code & EWKB_M)
    if code & EWKB_SRID:
        reader.unpack(endian + "I")  # the SRID of extended WKB; the column's own srid is used
    code &= 0x0FFFFFFF
    dimension, kind = divmod(code, 1000)
    has_z = has_z or dimension in (1, 3)
    has_m = has_m or dimension in (2, 3)
    if kind not in TYPE_NAMES or dimension > 3:
        raise WkbError(
            f"geometry type code {code} at byte {reader.offset - 4} is not one of 1-7 (+1000/2000/3000)"
        )
    width = 2 + has_z + has_m
    position_format = endian + "d" * width

    def position() -> list[Any]:
        ordinates = reader.unpack(position_format)
        kept = ordinates[: 3 if has_z else 2]
        return [] if all(math.isnan(o) for o in kept) else [float(o) for o in kept]

    def count() -> int:
        (value,) = reader.unpack(endian + "I")
        if value * 8 > len(reader.data):
            raise WkbError(
                f"count {value} at byte {reader.offset - 4} exceeds the {len(reader.data)} bytes given"
            )
        return int(value)

    def positions() -> list[list[Any]]:
        return [position() for _ in range(count())]

    name = TYPE_NAMES[kind]
    if kind == 1:
        return {"type": name, "coordinates": position()}
    if kind == 2:
        return {"type": name, "coordinates": positions()}
    if kind == 3:
        return {"type": name, "coordinates": [positions() for _ in range(count())]}
    members = [_geometry(reader) for _ in range(count())]
    if kind == 7:
        return {"type": name, "geometries": members}
    return {"type": name, "coordinates": [member["coordinates"] for member in members]}


def geojson_from_wkb(wkb: bytes, srid: int | None) -> str:
    """GeoJSON text of one WKB geometry, with its SRID (0 when unknown), as Flink CDC writes it:
    coordinates (or geometries), then type, then srid; members of a collection type first."""
    reader = _Reader(bytes(wkb))
    geometry = _geometry(reader)
    if reader.offset != len(reader.data):
        raise WkbError(
            f"{len(reader.data) - reader.offset} bytes left after the geometry at byte {reader.offset}"
        )
    body = "geometries" if "geometries" in geometry else "coordinates"
    ordered = {body: geometry[body], "type": geometry["type"], "srid": srid or 0}
    return _json_text(ordered)

"""Registration of the helpers as vectorised Spark functions (pandas UDFs: Arrow batches in,
one Python call per batch) under the SQL names the project's macros call."""

from __future__ import annotations

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf

from cdc_udfs import parquet_export
from cdc_udfs.dts_avro import file_records_json, record_json
from cdc_udfs.geometry import WkbError, geojson_from_wkb


def geojson_from_wkb_batch(wkb: pd.Series, srid: pd.Series) -> pd.Series:
    """cdc_geojson_from_wkb over one Arrow batch: GeoJSON text per WKB value; null for a null
    value and for bytes that are not a geometry (the caller keeps the value as it came then)."""

    def one(value: bytes | None, reference: float | None) -> str | None:
        if value is None:
            return None
        try:
            return geojson_from_wkb(value, None if pd.isna(reference) else int(reference))
        except WkbError:
            return None

    return pd.Series(
        [one(value, reference) for value, reference in zip(wkb, srid, strict=True)], dtype=object
    )


def dts_avro_record_json_batch(values: pd.Series) -> pd.Series:
    """cdc_dts_avro_record_json over one Arrow batch: each Kafka value (one DTS Avro Record) as
    the flavour's JSON text; an error object for bytes that are not one Record."""
    return pd.Series([record_json(value) for value in values], dtype=object)


def dts_avro_file_records_batch(contents: pd.Series) -> pd.Series:
    """cdc_dts_avro_file_records over one Arrow batch: each SDK file's records as JSON texts."""
    return pd.Series([file_records_json(content) for content in contents], dtype=object)


def parquet_export_file_records_batch(contents: pd.Series) -> pd.Series:
    """cdc_parquet_export_file_records over one Arrow batch: each hourly export Parquet file's
    rows as JSON texts, each file with its own schema (null for a null file)."""
    return pd.Series([parquet_export.file_records_json(content) for content in contents], dtype=object)


def register_helpers(spark: SparkSession) -> None:
    """Registers every helper in `spark` (a classic or a Spark Connect session) as a temporary
    function. The UDFs are created here, not at import, so that they take the session's kind."""
    helpers = {
        "cdc_geojson_from_wkb": pandas_udf(geojson_from_wkb_batch, returnType="string"),  # type: ignore[call-overload]
        "cdc_dts_avro_record_json": pandas_udf(dts_avro_record_json_batch, returnType="string"),  # type: ignore[call-overload]
        "cdc_dts_avro_file_records": pandas_udf(dts_avro_file_records_batch, returnType="array<string>"),  # type: ignore[call-overload]
        "cdc_parquet_export_file_records": pandas_udf(  # type: ignore[call-overload]
            parquet_export_file_records_batch, returnType="array<string>"
        ),
    }
    for name, helper in helpers.items():
        spark.udf.register(name, helper)

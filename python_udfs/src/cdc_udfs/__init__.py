"""Helper functions of the cdc_lakehouse dbt project that Spark SQL cannot do well.

Each helper is a plain Python function (tested without Spark) plus its registration as a
vectorised Spark function (pandas UDF) under a SQL name that models call:

    cdc_geojson_from_wkb(wkb binary, srid int) -> string                (cdc_udfs.geometry)
    cdc_dts_avro_record_json(value binary) -> string                    (cdc_udfs.dts_avro)
    cdc_dts_avro_file_records(content binary) -> array<string>          (cdc_udfs.dts_avro)
    cdc_parquet_export_file_records(content binary) -> array<string>    (cdc_udfs.parquet_export)

`cdc_udfs.registration.register_helpers(spark)` registers them in one session; the dbt plugin
in dbt_cdc_udfs calls it when a statement of a dbt session first names one of HELPER_NAMES, and
`python -m cdc_udfs.thrift_server` starts a Spark Thrift Server whose session has them.
This module imports nothing heavy, so that loading the plugin costs nothing.
"""

HELPER_NAMES = (
    "cdc_geojson_from_wkb",
    "cdc_dts_avro_record_json",
    "cdc_dts_avro_file_records",
    "cdc_parquet_export_file_records",
)

__all__ = ["HELPER_NAMES"]

"""Times one compiled model's select several times in one JVM: the first run pays the new JVM
(class loading, the JIT, Janino), the later ones show what the work itself costs.

Runs in PySpark with the `local` profile's Spark settings (profiles/profiles.yml, rendered with
this environment: CDC_SPARK_STATE_DIR picks the warehouse and metastore) and writes to Spark's
`noop` sink, so nothing in the warehouse changes. Prints per run the analysis and total seconds,
and Spark's codegen counters (compilations, Janino milliseconds). For example, over a warehouse
the benchmark kept (`run_benchmark.py --keep --work-dir W`):

    CDC_SPARK_STATE_DIR=W/cdc-benchmark-*/spark .venv/bin/python benchmark/cold_and_warm.py \\
        W/cdc-benchmark-*/project/target/compiled/cdc_lakehouse/models/staging/debezium/stg_debezium__records.sql

The compiled SQL of an incremental model is that of the model's last run (its new files only);
`--all-landed-files` drops a staging model's filter of the files earlier runs ingested, so that
it reads the whole landing. `--sink parquet` writes the rows as Parquet instead (to a temporary
folder, partitioned by the staging tables' partition columns when the rows have them), to see
what the write adds to the select.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import jinja2
import yaml

PROJECT_DIR = Path(__file__).resolve().parent.parent
# the settings that differ by mode; everything else is the profile's
MODES = {
    "default": {},
    "no-whole-stage": {"spark.sql.codegen.wholeStage": "false"},
    "interpreted": {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"},
}


def local_profile_settings() -> dict[str, str]:
    """The `local` output's server_side_parameters, rendered as dbt renders them: the YAML first,
    then each value as a Jinja template (env_var only)."""
    profile = next(iter(yaml.safe_load((PROJECT_DIR / "profiles" / "profiles.yml").read_text()).values()))

    def env_var(name: str, default: str = "") -> str:
        return os.environ.get(name, default)

    return {
        str(name): jinja2.Template(str(value)).render(env_var=env_var)
        for name, value in profile["outputs"]["local"]["server_side_parameters"].items()
    }


def local_profile_session(settings: dict[str, str] | None = None) -> Any:
    """A Spark session with the `local` profile's settings, `settings` over them, started from the
    project folder, against which the profile's relative paths (.spark, .venv, profiles/) resolve."""
    from pyspark.sql import SparkSession

    os.chdir(PROJECT_DIR)
    builder = SparkSession.builder.enableHiveSupport()
    for name, value in {**local_profile_settings(), **(settings or {})}.items():
        builder = builder.config(name, value)
    return builder.getOrCreate()


def staging_partition_columns() -> list[str]:
    """The staging models' partition columns, as dbt_project.yml's staging folder sets them."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return list(project["models"]["cdc_lakehouse"]["staging"]["+partition_by"])


def codegen_counters(spark: Any) -> tuple[int, int]:
    """Spark's codegen compilations so far in this JVM, and the milliseconds Janino took for them."""
    metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics
    histogram = metrics.METRIC_COMPILATION_TIME()
    return int(histogram.getCount()), int(sum(histogram.getSnapshot().getValues()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("compiled_sql", type=Path, help="a model's compiled select (target/compiled/...)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", choices=sorted(MODES), default="default")
    parser.add_argument("--sink", choices=["noop", "parquet"], default="noop")
    parser.add_argument("--all-landed-files", action="store_true")
    args = parser.parse_args(argv)

    sql = args.compiled_sql.read_text()
    if args.all_landed_files:
        # staging's `_metadata.file_path not in (<files already ingested>)` (macros/landing)
        sql = re.sub(r"and \w+\._metadata\.file_path not in \([^)]*\)", "", sql)
    started = time.perf_counter()
    spark = local_profile_session(MODES[args.mode])
    spark.sql("show databases").collect()
    print(f"{args.mode}: session {time.perf_counter() - started:.2f} s", flush=True)
    for run in range(1, args.runs + 1):
        started = time.perf_counter()
        frame = spark.sql(sql)
        analysed = time.perf_counter()
        if args.sink == "noop":
            frame.write.format("noop").mode("overwrite").save()
        else:
            folder = tempfile.mkdtemp(prefix="cold-and-warm-")
            partitions = [name for name in staging_partition_columns() if name in frame.columns]
            frame.write.mode("overwrite").partitionBy(*partitions).parquet(folder)
            shutil.rmtree(folder)
        compilations, janino_ms = codegen_counters(spark)
        print(
            f"{args.mode}, {args.sink}: run {run} analysis {analysed - started:.2f} s, total {time.perf_counter() - started:.2f} s;"
            f" codegen so far {compilations} compilations, {janino_ms} ms",
            flush=True,
        )
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

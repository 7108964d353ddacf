"""The python_udfs helpers on the `cluster` profile, a Spark Thrift Server that dbt does not
create: the server that `python -m cdc_udfs.thrift_server` starts has them registered in its
one shared session, so a plain dbt command through dbt-spark's thrift method calls them, and a
plain `dbt run` stages the sample's DTS Avro landings through it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import PROJECT_DIR, SAMPLE_LANDING, Dbt, free_port

SCHEMA = "it_thrift"
# a DTS Avro DDL record (Kafka schema) whose statement is ALTER TABLE t ADD c INT
DDL_RECORD_HEX = (
    "0204dce28cde0c0c3430303240330c3430303240330c74782d2d3235000c382e302e333606020a63726d2e7400021274"
    "68726561645f69640237000000022e414c544552205441424c45207420414444206320494e54dce28cde0c"
)


@pytest.fixture(scope="module")
def thrift_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A Thrift server with the helpers, on its own warehouse and metastore, Spark in local mode."""
    state = tmp_path_factory.mktemp("thrift-server")
    port = free_port()
    settings = {
        "spark.master": "local[2]",
        "spark.ui.enabled": "false",
        "spark.sql.warehouse.dir": str(state / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={state}/metastore_db;create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={state}",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.ansi.enabled": "true",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        "spark.hadoop.fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
    }
    python = str(PROJECT_DIR / ".venv" / "bin" / "python")
    command = [python, "-m", "cdc_udfs.thrift_server", "--port", str(port)]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    log_path = state / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            command,
            cwd=state,
            stdout=log,
            stderr=subprocess.STDOUT,
            # a classic Spark driver: not the Connect client this test process may have become
            env={
                name: value
                for name, value in os.environ.items()
                if name not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
            }
            | {"PYSPARK_PYTHON": python},
        )
    try:
        deadline = time.monotonic() + 180
        while "listening on" not in log_path.read_text():
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Thrift server did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(1)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def shown_rows(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    """The rows of `dbt show --output json` (the JSON document that ends its output)."""
    text = result.stdout[result.stdout.index('{\n  "show"') :]
    return json.loads(text)["show"]  # type: ignore[no-any-return]


def test_dbt_on_the_thrift_profile_calls_the_helpers(dbt: Dbt, thrift_port: int, tmp_path: Path) -> None:
    result = dbt.run(
        "show",
        "--inline",
        f"select get_json_object(cdc_dts_avro_record_json(unhex('{DDL_RECORD_HEX}')), '$.imagesText') as ddl",
        "--output",
        "json",
        schema=SCHEMA,
        landing_root=tmp_path,
        thrift_port=thrift_port,
    )
    assert shown_rows(result) == [{"ddl": "ALTER TABLE t ADD c INT"}]


def test_a_plain_dbt_run_stages_dts_avro_through_the_thrift_server(
    dbt: Dbt, thrift_port: int, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / "dts_avro", landing_root / "dts_avro")
    dbt.run(
        "run",
        "--select",
        "stg_dts_avro__records",
        schema=SCHEMA,
        landing_root=landing_root,
        thrift_port=thrift_port,
    )
    result = dbt.run(
        "show",
        "--inline",
        f"select record_outcome, count(*) as records from {SCHEMA}_staging.stg_dts_avro__records"
        " group by record_outcome order by record_outcome",
        "--output",
        "json",
        schema=SCHEMA,
        landing_root=landing_root,
        thrift_port=thrift_port,
    )
    assert shown_rows(result) == [
        {"record_outcome": "change", "records": 7},
        {"record_outcome": "control", "records": 4},
        {"record_outcome": "quarantined", "records": 3},
    ]

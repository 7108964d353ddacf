"""The python_udfs helpers reach a plain dbt command: its dbt plugin registers them in the
session dbt opens, with the Spark Connect target and with Spark inside the dbt process (the
`local` target of bin/demo). A helper that is not registered stops with a message that says
how to register it. With Spark inside the dbt process, the plugin starts that session while dbt
parses the project, with the profile's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Dbt

SCHEMA = "it_helpers"
# POINT(1 1), little-endian WKB, as Debezium sends it for MySQL (base64 AQEAAAAAAAAAAADwPwAAAAAAAPA/)
POINT_WKB_HEX = "0101000000000000000000F03F000000000000F03F"
QUERY = f"select cdc_geojson_from_wkb(unhex('{POINT_WKB_HEX}'), 4326) as geojson"


@pytest.mark.parametrize("target", ["connect", "local"])
def test_plain_dbt_reaches_the_helpers(dbt: Dbt, tmp_path: Path, target: str) -> None:
    state_dir = tmp_path / "spark-state" if target == "local" else None
    result = dbt.run(
        "show",
        "--inline",
        QUERY,
        "--output",
        "json",
        schema=SCHEMA,
        landing_root=tmp_path,
        in_process_state_dir=state_dir,
    )
    # the JSON printout escapes the value's quotes
    expected = '{"coordinates":[1,1],"type":"Point","srid":4326}'.replace('"', '\\"')
    assert expected in result.stdout, result.stdout[-2000:]


def test_the_in_process_session_starts_while_dbt_parses(dbt: Dbt, tmp_path: Path) -> None:
    state_dir = tmp_path / "spark-state"
    # Spark SQL substitutes ${conf}: the settings of the session dbt's statements run in
    query = "select '${spark.sql.warehouse.dir}' as warehouse, '${spark.sql.shuffle.partitions}' as shuffle_partitions"
    result = dbt.run(
        "show",
        "--debug",
        "--inline",
        query,
        "--output",
        "json",
        schema=SCHEMA,
        landing_root=tmp_path,
        in_process_state_dir=state_dir,
    )
    assert "the Spark session was started while dbt parsed the project" in result.stdout, result.stdout[
        -3000:
    ]
    # that early session is the one dbt used, with the local profile's static and SQL settings
    assert f'{state_dir}/warehouse"' in result.stdout, result.stdout[-3000:]
    assert '"shuffle_partitions": "4"' in result.stdout, result.stdout[-3000:]


def test_a_helper_that_is_not_registered_says_how_to_register_it(dbt: Dbt, tmp_path: Path) -> None:
    registered = dbt.run(
        "run-operation",
        "cdc_require_helpers",
        "--args",
        "{helper_names: [cdc_geojson_from_wkb]}",
        schema=SCHEMA,
        landing_root=tmp_path,
    )
    assert registered.returncode == 0
    missing = dbt.run(
        "run-operation",
        "cdc_require_helpers",
        "--args",
        "{helper_names: [cdc_no_such_helper]}",
        schema=SCHEMA,
        landing_root=tmp_path,
        check=False,
    )
    output = missing.stdout + missing.stderr
    assert missing.returncode != 0
    for phrase in [
        "cdc_no_such_helper",
        "not registered in this Spark session",
        "bin/setup",
        "./python_udfs",
    ]:
        assert phrase in output, f"the message names {phrase!r}:\n{output[-2000:]}"

"""A `dbt run` with nothing to do starts no Spark (the dbt plugin's check, python_udfs'
dbt_cdc_udfs.unchanged_runs). With Spark in the dbt process (the `local` target of bin/demo and
the benchmark), the same command after a successful run, with nothing landed and nothing
changed, runs no node and says so; a file landed since makes the next run stage it, naming what
changed; the var cdc_skip_unchanged_runs: false runs the models anyway."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import yaml

from dbt_cdc_udfs.unchanged_runs import _without_tuning

from conftest import PROJECT_DIR, Dbt, land_files, sample_files, target_dir

SCHEMA = "it_unchanged"
RUN = ("run", "--select", "stg_debezium__records")


def staging_message() -> str | None:
    """The message of the staging model in the run's run_results.json, None when it did not run."""
    results = json.loads((target_dir(SCHEMA) / "run_results.json").read_text())["results"]
    messages = [
        result["message"] for result in results if result["unique_id"].endswith(".stg_debezium__records")
    ]
    return messages[0] if messages else None


def test_a_run_with_nothing_to_do_starts_no_spark(dbt: Dbt, tmp_path: Path) -> None:
    landing_root = tmp_path / "landing"
    state_dir = tmp_path / "spark-state"
    first, later = sample_files("debezium/json_lines")[:2]
    land_files(landing_root, "debezium/json_lines", [first])

    def run(*extra: str, **dbt_vars: object) -> str:
        return dbt.run(
            "--debug",
            *RUN,
            *extra,
            schema=SCHEMA,
            landing_root=landing_root,
            in_process_state_dir=state_dir,
            extra_vars=dbt_vars,
        ).stdout

    staged = run()
    assert staging_message() not in (None, "nothing new"), "the first run stages the landed file"
    assert (target_dir(SCHEMA) / "cdc_last_successful_run.json").is_file()

    idle = run()
    assert "Nothing to do: nothing landed and nothing changed" in idle, idle[-3000:]
    assert "Opening a new connection" in staged and "Opening a new connection" not in idle, (
        "no connection, so no Spark session, was opened"
    )
    assert json.loads((target_dir(SCHEMA) / "run_results.json").read_text())["results"] == []

    land_files(landing_root, "debezium/json_lines", [later])
    landed = run()
    assert "changed since the last successful run (cdc_last_successful_run.json): landing" in landed, landed[
        -3000:
    ]
    assert "Nothing to do" not in landed
    assert staging_message() not in (None, "nothing new"), "the newly landed file is staged"

    # the switch off: the models run, and find that the run before staged everything
    forced = run(cdc_skip_unchanged_runs=False)
    assert "Nothing to do" not in forced
    assert staging_message() == "nothing new"


def test_the_class_archive_options_are_not_settings() -> None:
    """bin/demo's first build runs with bin/spark-class-archive's options that record the class
    archive, its second with those that use it: for both Javas the script knows, the profile's
    Spark settings must fingerprint the same, or the second demo builds again. Read from the
    script and the profile themselves, so that a new option in either is checked."""
    script = (PROJECT_DIR / "bin" / "spark-class-archive").read_text()
    assignments = re.findall(r'^\s*(use_option|record_option)="([^"]*)"', script, flags=re.MULTILINE)
    options: dict[str, list[str]] = {"use_option": [], "record_option": []}
    for name, value in assignments:
        options[name].append(
            value.replace("$recording", "/x/spark-classes.jsa.recording").replace(
                "$archive", "/x/spark-classes.jsa"
            )
        )
    assert len(options["use_option"]) == len(options["record_option"]) == 2, assignments  # JDK 25 and older
    profile = yaml.safe_load((PROJECT_DIR / "profiles" / "profiles.yml").read_text())
    settings = profile["cdc_lakehouse"]["outputs"]["local"]["server_side_parameters"]

    def local_settings(class_sharing: str) -> dict[str, str]:
        """The `local` profile's Spark settings, rendered as dbt renders them (the YAML first, then
        each value as a Jinja template) with CDC_SPARK_CLASS_SHARING set."""
        environment = {"CDC_SPARK_CLASS_SHARING": class_sharing}

        def env_var(name: str, default: str = "") -> str:
            return environment.get(name, default)

        return {name: jinja2.Template(str(value)).render(env_var=env_var) for name, value in settings.items()}

    for recording, using in zip(options["record_option"], options["use_option"], strict=True):
        assert recording in local_settings(recording)["spark.driver.extraJavaOptions"]
        first, second = (_without_tuning(local_settings(value)) for value in (recording, using))
        assert first == second, (recording, using)

"""The main job as the README's users run it: a plain `dbt run` (which loads no seeds) on a
fresh state, again with nothing new, then `dbt seed`. The reference data that the logs join is
loaded by the run's own hook, from the seed's CSV, exactly as `dbt seed` loads it."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from pyspark.sql import SparkSession

from conftest import PROJECT_DIR, SAMPLE_LANDING, Dbt, rows_as_text

SCHEMA = "it_plain_run"
REASONS_CSV = PROJECT_DIR / "seeds" / "cdc_outcome_reasons.csv"


def loaded_reasons(spark: SparkSession) -> list[tuple[str | None, ...]]:
    spark.sql(f"refresh table {SCHEMA}_reference.cdc_outcome_reasons")
    return sorted(rows_as_text(spark, f"select * from {SCHEMA}_reference.cdc_outcome_reasons"), key=str)


def test_plain_dbt_run_on_a_fresh_state_loads_the_reference_data(
    dbt: Dbt, spark: SparkSession, tmp_path: Path
) -> None:
    landing_root = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING, landing_root)
    schemas = [row[0] for row in spark.sql("show schemas").collect() if row[0].startswith(SCHEMA)]
    assert schemas == [], f"the state is not fresh: {schemas}"
    with REASONS_CSV.open(newline="") as file:
        _, *rows = list(csv.reader(file))
    expected = sorted((tuple(row) for row in rows), key=str)

    dbt.run("run", schema=SCHEMA, landing_root=landing_root)
    assert loaded_reasons(spark) == expected, "the seed is loaded, every field exact"
    assert rows_as_text(
        spark,
        f"select reason_code, count(*), count(reason_description)"
        f" from {SCHEMA}_intermediate.int_quarantined_records_logged"
        " where reason_code = 'invalid_cursor' group by reason_code",
    ) == [("invalid_cursor", "4", "4")], "the quarantine log joins the reference data"

    dbt.run("run", schema=SCHEMA, landing_root=landing_root)
    dbt.run("seed", schema=SCHEMA, landing_root=landing_root)
    assert loaded_reasons(spark) == expected, "dbt seed replaces the table the hook made"

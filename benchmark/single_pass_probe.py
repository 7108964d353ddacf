"""What one pass would buy: the project's own staging and current-state SQL run as one statement
over the landed files, against the same two statements run as the project runs them (staging
written to Parquet, then the table's statement reading it back), beside the hand-written fold.

It reads the compiled SQL and the warehouse that `run_benchmark.py --keep --work-dir W` kept
(its last run's `stg_debezium__records` and `bench__products`, whose staging select reads every
landed file), so every rule of the project is in both forms:

  chain  the staging select -> Parquet partitioned as staging is; then the table's select over
         those files -> Parquet (the project's design, without dbt and the checked log)
  fused  the table's select with the staging select in place of the staging table -> Parquet

Two edits make the fused form run at all, and are applied to both forms alike:
  * the file's text no longer travels with each of its records: staging keeps it beside them
    for the UTF-8 check of a record that holds U+FFFD, and fused, every split record copied it
    until the JVM ran out of heap. The check is made once per file, before the split;
  * with --no-source-filter, the table's filter on the staged source table (record outcome,
    partition, names) is dropped: the benchmark's changes are all of one table, and kept, Spark
    copies the parse into that filter (a pushed and an inferred filter held 470 `from_json`).

Each form runs --runs times in a fresh JVM (the first run is cold, as in a dbt run); each
round then runs ../shared/peers/pyspark_fold.py on the same files, in turn:

    .venv/bin/python benchmark/single_pass_probe.py W/cdc-benchmark-* --no-source-filter
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cold_and_warm import local_profile_session
from two_step_floor import hand_fold_seconds

COMPILED = Path("project/target/compiled/cdc_lakehouse/models")
STAGING_SQL = COMPILED / "staging/debezium/stg_debezium__records.sql"
TABLE_SQL = COMPILED / "marts/bench/bench__products.sql"
STAGING_TABLE = "bench_staging.stg_debezium__records"
LANDING_TABLE = "bench_landing.debezium__json_lines"
FILE_IS_UTF8 = "if(contains(value, '\\uFFFD'), is_valid_utf8(value), true)"


def _replaced(text: str, old: str, new: str, what: str, count: int = 1) -> str:
    if text.count(old) != count:
        raise SystemExit(f"{what}: expected {count} of {old!r} in the compiled SQL, found {text.count(old)}")
    return text.replace(old, new)


def statements(kept: Path, source_filter: bool) -> tuple[str, str]:
    """The staging select and the table's select, edited as the module's docstring says."""
    staging = (kept / STAGING_SQL).read_text()
    staging = _replaced(
        staging, "is_valid_utf8(file_records.file_text)", "file_records.file_is_valid_utf8", "the UTF-8 check"
    )
    staging = _replaced(
        staging, "landed_files.value as file_text,", "landed_files.file_is_valid_utf8,", "the file's text"
    )
    staging = _replaced(
        staging,
        f"from {LANDING_TABLE} as landed_files",
        f"from (select value, _metadata, {FILE_IS_UTF8} as file_is_valid_utf8 from {LANDING_TABLE}) as landed_files",
        "the landing",
    )
    table = (kept / TABLE_SQL).read_text()
    if not source_filter:
        unfiltered = re.sub(
            r"where staged_records\.record_outcome = 'change'.*?\n\n(\s*\),)",
            r"where true\n\1",
            table,
            count=1,
            flags=re.S,
        )
        if unfiltered == table:
            raise SystemExit("the table's filter on staged records was not found in the compiled SQL")
        table = unfiltered
    return staging, table


def run_form(form: str, kept: Path, out: Path, runs: int, source_filter: bool) -> None:
    """One form, `runs` times in this process's JVM; prints one line per run."""
    staging, table = statements(kept, source_filter)
    fused = _replaced(
        table, f"{STAGING_TABLE} as staged_records", f"(\n{staging}\n) as staged_records", "fusing"
    )
    chained = _replaced(table, STAGING_TABLE, "staged_changes", "chaining")
    os.environ["CDC_SPARK_STATE_DIR"] = str(kept / "spark")  # the kept warehouse and metastore
    spark = local_profile_session()
    spark.sql("show databases").collect()
    for run in range(1, runs + 1):
        started = time.perf_counter()
        if form == "fused":
            spark.sql(fused).write.mode("overwrite").parquet(str(out / "fused"))
            print(f"fused run {run}: {time.perf_counter() - started:.2f} s", flush=True)
        else:
            staged = out / "staged"
            spark.sql(staging).write.mode("overwrite").partitionBy(
                "source_table_partition", "loaded_at"
            ).parquet(str(staged))
            written = time.perf_counter()
            spark.read.parquet(str(staged)).createOrReplaceTempView("staged_changes")
            spark.sql(chained).write.mode("overwrite").parquet(str(out / "chain"))
            done = time.perf_counter()
            print(
                f"chain run {run}: {done - started:.2f} s (staging {written - started:.2f} s, table {done - written:.2f} s)",
                flush=True,
            )
    spark.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "kept", type=Path, help="the cdc-benchmark-* folder that run_benchmark.py --keep left"
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--runs", type=int, default=2, help="runs of each form in one JVM (the first is cold)"
    )
    parser.add_argument("--no-source-filter", dest="source_filter", action="store_false")
    parser.add_argument("--form", choices=["chain", "fused"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kept = args.kept.resolve()
    if args.form:
        run_form(args.form, kept, args.out, args.runs, args.source_filter)
        return 0
    statements(kept, args.source_filter)  # a compiled SQL the edits do not fit stops here, before any JVM
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory(prefix="single-pass-probe-") as folder:
        out = Path(folder)
        for round_number in range(1, args.rounds + 1):
            for form in ("chain", "fused"):
                command = [
                    sys.executable,
                    __file__,
                    str(kept),
                    "--form",
                    form,
                    "--out",
                    str(out),
                    "--runs",
                    str(args.runs),
                ]
                if not args.source_filter:
                    command.append("--no-source-filter")
                result = subprocess.run(command, capture_output=True, text=True)
                if result.returncode != 0:
                    raise SystemExit(f"{form} failed (exit {result.returncode}):\n{result.stderr[-3000:]}")
                for line in result.stdout.splitlines():
                    if line.startswith(form):
                        print(f"round {round_number}: {line}", flush=True)
            hand = hand_fold_seconds(kept / "peers" / "debezium", out)
            print(f"round {round_number}: hand fold {hand:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The floor of the project's design: what staging parsed changes and typing them in a second
step costs at the least, on the benchmark's files, beside the hand-written fold.

The project writes every change to a staging table, then each current-state table and the
checked log read it back and type their columns. This script does the same three steps with
nothing else, each step in a fresh JVM (as the first statement of a dbt run meets a cold JVM):

  staging  text -> one from_json of the envelope (images kept as JSON text, or as the
           project's map<string, variant> with --images variant) -> Parquet, partitioned by
           source table
  table    the staged changes -> the after and before images typed into the declared columns
           (one from_json of each text, or one try_variant_get per column of the maps) ->
           max_by over the change sequence packed into a long -> Parquet
  checks   the staged changes typed again -> a hash of each change's typed values -> Parquet

table and checks run side by side (two processes), as the project's two dbt threads run the
current-state table and the checked log. None of the project's rules is here: no
classification or quarantine, no presence, no Decimal bytes, no truncations, no accounting;
a delete is folded like any other change. So these figures are what the design's steps cost
before any rule is added: the project, which adds them, can only be slower on the same
machine. Each round also runs ../shared/peers/pyspark_fold.py on the same files, in turn, so
that the ratio is taken in the same minutes:

    .venv/bin/python benchmark/two_step_floor.py W/cdc-benchmark-*/peers/debezium --rounds 2

(the folder that `run_benchmark.py --keep --work-dir W` kept; any folder of the Debezium
workload's JSON lines will do).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
HAND_FOLD = PROJECT_DIR.parent / "shared" / "peers" / "pyspark_fold.py"
IMAGE_TYPES = {"text": "string", "variant": "map<string, variant>"}
DECLARED_COLUMNS = [
    ("id", "bigint"),
    ("name", "string"),
    ("description", "string"),
    ("weight", "string"),
    ("updated_at", "string"),
]
DECLARED = "struct<" + ", ".join(f"{name}: {data_type}" for name, data_type in DECLARED_COLUMNS) + ">"


def _declared_values(images: str) -> str:
    """The select list that types the staged images into the declared columns (after_values) and
    the key (before_values): one from_json of each JSON text, or one try_variant_get per column
    of the variant maps, as the project reads them."""
    if images == "text":
        return (
            f"from_json(staged.after_image, '{DECLARED}') as after_values,\n"
            "from_json(staged.before_image, 'struct<id: bigint>') as before_values"
        )
    fields = ", ".join(
        f"'{name}', try_variant_get(staged.after_image['{name}'], '$', '{data_type}')"
        for name, data_type in DECLARED_COLUMNS
    )
    return (
        f"named_struct({fields}) as after_values,\n"
        "named_struct('id', try_variant_get(staged.before_image['id'], '$', 'bigint')) as before_values"
    )


def run_step(step: str, data: Path, out: Path, images: str) -> None:
    """One step in this process's own Spark session; prints its time from the first read to written files."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.ansi.enabled", "true")
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.sql.maxConcurrentOutputFileWriters", "16")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter()
    if step == "staging":
        image = IMAGE_TYPES[images]
        envelope = (
            f"before {image}, after {image}, op string, ts_ms bigint, "
            "source struct<db: string, `table`: string, file: string, pos: bigint, `row`: int, ts_ms: bigint>"
        )
        spark.read.text(str(data)).createOrReplaceTempView("landed")
        spark.sql(f"""
            select
                message.op as operation,
                message.before as before_image,
                message.after as after_image,
                message.source.db as source_database,
                message.source.`table` as source_table,
                array(cast(substring_index(message.source.file, '.', -1) as bigint), message.source.pos, message.source.`row`)
                    as change_sequence,
                timestamp_millis(message.source.ts_ms) as commit_timestamp,
                lower(message.source.`table`) as source_table_partition
            from (select from_json(value, '{envelope}') as message from landed) as parsed
        """).write.mode("overwrite").partitionBy("source_table_partition").parquet(str(out / "staging"))
    else:
        staged = spark.read.parquet(str(out / "staging")).where("source_table_partition = 'products'")
        staged.createOrReplaceTempView("staged")
        spark.sql(f"""
            select
                if(parsed.operation = 'd', parsed.before_values.id, parsed.after_values.id) as id,
                parsed.operation = 'd' as is_delete,
                parsed.change_sequence[0] * 10000000000 + parsed.change_sequence[1] * 10 + parsed.change_sequence[2] as version,
                parsed.commit_timestamp,
                parsed.after_values.name,
                parsed.after_values.description,
                try_cast(parsed.after_values.weight as decimal(10, 3)) as weight,
                try_cast(parsed.after_values.updated_at as timestamp) as updated_at
            from (
                select
                    staged.*,
                    {_declared_values(images)}
                from staged
            ) as parsed
        """).createOrReplaceTempView("typed")
        if step == "table":
            spark.sql("""
                select folded.id, folded.latest.*
                from (
                    select
                        typed.id,
                        max_by(
                            struct(typed.is_delete, typed.name, typed.description, typed.weight, typed.updated_at,
                                   typed.commit_timestamp, typed.version),
                            typed.version
                        ) as latest
                    from typed
                    group by typed.id
                ) as folded
            """).write.mode("overwrite").parquet(str(out / "state"))
        else:
            spark.sql("""
                select
                    typed.id,
                    typed.version,
                    xxhash64(typed.is_delete, isnull(typed.name), typed.name, isnull(typed.description), typed.description,
                             isnull(typed.weight), typed.weight, isnull(typed.updated_at), typed.updated_at) as content
                from typed
            """).write.mode("overwrite").parquet(str(out / "checks"))
    print(f"{step} {time.perf_counter() - started:.2f}", flush=True)
    spark.stop()


def timed_steps(steps: list[str], data: Path, out: Path, images: str) -> dict[str, float]:
    """Runs the steps side by side, each in a fresh Python and JVM; each step's own time."""
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, str(data), "--step", step, "--out", str(out), "--images", images],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for step in steps
    ]
    times: dict[str, float] = {}
    for process in processes:
        output, errors = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"a step failed (exit {process.returncode}):\n{errors[-3000:]}")
        step, seconds = output.split()[-2:]
        times[step] = float(seconds)
    return times


def hand_fold_seconds(data: Path, out: Path) -> float:
    """The hand-written fold on the same files: its own timer (read to written files)."""
    result = subprocess.run(
        [
            sys.executable,
            str(HAND_FOLD),
            "--data",
            str(data),
            "--flavour",
            "debezium",
            "--out",
            str(out / "hand_fold"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT"))
    return float(dict(field.split("=", 1) for field in line.split()[1:])["wall_s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path, help="a folder of the Debezium workload's JSON lines")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--images", choices=sorted(IMAGE_TYPES), default="text")
    parser.add_argument("--step", choices=["staging", "table", "checks"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step:
        run_step(args.step, args.data, args.out, args.images)
        return 0
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory(prefix="two-step-floor-") as folder:
        out = Path(folder)
        for round_number in range(1, args.rounds + 1):
            staging = timed_steps(["staging"], args.data, out, args.images)
            checked = timed_steps(["table", "checks"], args.data, out, args.images)
            hand = hand_fold_seconds(args.data, out)
            design = staging["staging"] + max(checked["table"], checked["checks"])
            print(
                f"round {round_number} ({args.images} images): staging {staging['staging']:.2f} s, then side by side"
                f" table {checked['table']:.2f} s and checks {checked['checks']:.2f} s: {design:.2f} s;"
                f" hand fold {hand:.2f} s; the design's floor {hand / design:.2f}x the hand fold",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

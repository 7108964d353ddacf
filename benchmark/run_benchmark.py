"""The project's benchmark, measured against the yardstick in ../shared/peers, on the same files in one run.

1. Generates the workload once with ../shared/peers/gen_workload.py (seeded; --flavour
   debezium (default) or canal (DTS Canal JSON, multi-row messages, landed in the project's
   canal_json/json_lines landing, declared `canal: dts`), or dts_avro (the Debezium workload's
   changes as Alibaba DTS Avro Records in Kafka records, dts_avro_workload.py; the peers fold the
   same changes as Debezium JSON lines), or parquet_export (the same changes as an hourly
   Parquet CDC export, one hour folder per batch, parquet_export_workload.py; the peers fold the
   Debezium JSON lines too); MySQL table inventory.products, 1%
   late and 1% redelivered messages, 10% deletes): --events row
   changes for the full build plus 11% more, in batches of 1% (batch files batch-000...).
2. Runs the peers on the full build's files (the first 100 batches): the hand-written PySpark
   fold (pyspark_fold.py) and the from_json floor (floor.py --what json).
3. Runs the project (real dbt, target `local`: Spark in the dbt process; with --server, target
   `connect`: one Spark Connect server for the four runs) in a copy of the
   project with one more current-state table, of inventory.products (the tests' corpus
   targets stay disabled): the full build (100 batches land, `dbt build` of the models), +10% (10
   batches), +1% (1 batch), then a run with nothing landed.
4. Checks the final current-state table against the generator's oracle (wrong keys, as the
   peers count them) and that every landed line was staged and nothing was quarantined.
5. Prints a markdown table and writes it with every number to benchmark/out/<UTC time>/.

What each timer includes is in benchmark/README.md. Run: .venv/bin/python benchmark/run_benchmark.py --help
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parents[1]
PEERS_DIR = PROJECT_DIR.parent / "shared" / "peers"
VENV_PYTHON = PROJECT_DIR / ".venv" / "bin" / "python"
DBT = PROJECT_DIR / ".venv" / "bin" / "dbt"
CLASS_ARCHIVE_SCRIPT = PROJECT_DIR / "bin" / "spark-class-archive"
JAVA_HOME_SCRIPT = PROJECT_DIR / "bin" / "java-home"
# the project's own script (the copy has no .venv): a Spark Connect server on CDC_SPARK_STATE_DIR
SERVER_SCRIPT = PROJECT_DIR / "bin" / "spark-connect-server"
OUT_DIR = PROJECT_DIR / "benchmark" / "out"
SCHEMA = "bench"
MART = "bench__products"
COPY_EXCLUDED = {
    ".venv",
    ".git",
    "target",
    "logs",
    "dbt_packages",
    ".pytest_cache",
    ".ruff_cache",
    "benchmark",
}
DBT_BUILD_ARGS = ["build", "--exclude", "test_type:unit", "test_type:data"]
BENCH_MODELS_YAML = """\
version: 2

# Added by benchmark/run_benchmark.py to its copy of the project (never to the project).

models:
  - name: bench__products
    description: Current state of MySQL table inventory.products (the yardstick's workload).
    config:
      meta:
        cdc:
          source: {source}
          keys: [id]{history}
    columns:
      - {name: id, data_type: bigint, description: Product id.}
      - {name: name, data_type: string, description: Name.}
      - {name: description, data_type: string, description: Description.}
      - {name: weight, data_type: 'decimal(10,3)', description: Weight.}
      - {name: updated_at, data_type: timestamp, description: Last update (UTC).}
      - {name: _cdc, description: Change metadata.}
"""


class TreeRssSampler(threading.Thread):
    """Samples the resident memory of a process and all its descendants every `interval` s.

    /usr/bin/time reports the largest single process among those it waited for; this adds
    the sum over the live process tree (dbt's Python plus the Spark JVM it starts).
    """

    def __init__(self, root_pid: int, interval: float = 0.25, server_pids: tuple[int, ...] = ()) -> None:
        super().__init__(daemon=True)
        self.root_pid = root_pid
        # processes that outlive the run (a Spark server): their CPU counts from the first sample
        self.server_pids = server_pids
        self._cpu_baseline: dict[int, int] | None = None  # taken at the first sample
        self.interval = interval
        self.peak_tree_kb = 0
        self.peak_process_kb = 0
        self.peak_process = ""
        self._cpu_ticks: dict[int, int] = {}
        self._stopped = threading.Event()
        self._page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        self._ticks_per_second = os.sysconf("SC_CLK_TCK")

    @property
    def cpu_seconds(self) -> float:
        """User + system CPU of every process seen in the tree, up to its last sample."""
        return round(sum(self._cpu_ticks.values()) / self._ticks_per_second, 1)

    def run(self) -> None:
        while True:
            self._sample()
            if self._stopped.wait(self.interval):
                return

    def stop(self) -> None:
        self._stopped.set()
        self.join()

    def _sample(self) -> None:
        children: dict[int, list[int]] = {}
        names: dict[int, str] = {}
        cpu_ticks: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path("/proc", entry.name, "stat").read_text()
            except OSError:
                continue
            name, _, rest = stat.partition("(")[2].rpartition(")")
            fields = rest.split()  # fields[0] is field 3 of proc(5): state, ppid, ..., utime, stime
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            names[int(entry.name)] = name
            cpu_ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
        total = 0
        if self._cpu_baseline is None:
            self._cpu_baseline = {pid: cpu_ticks.get(pid, 0) for pid in self.server_pids}
        baseline = self._cpu_baseline
        # (pid, parent's name, parent's statm): the tree is walked from the roots down.
        stack: list[tuple[int, str, list[str]]] = [
            (pid, "", []) for pid in (self.root_pid, *self.server_pids)
        ]
        while stack:
            pid, parent_name, parent_statm = stack.pop()
            try:
                statm = Path("/proc", str(pid), "statm").read_text().split()
                resident_kb = int(statm[1]) * self._page_kb
            except (OSError, IndexError, ValueError):
                continue
            stack.extend((child, names.get(pid, ""), statm) for child in children.get(pid, []))
            self._cpu_ticks[pid] = cpu_ticks.get(pid, self._cpu_ticks.get(pid, 0)) - baseline.get(pid, 0)
            # A child spawned with vfork/posix_spawn (the JVM runs commands that way) shares its
            # parent's memory until it execs: same name, same address space size (read a moment
            # apart, so allow 1 %). Count that memory once.
            if (
                names.get(pid) == parent_name
                and parent_statm
                and abs(int(statm[0]) - int(parent_statm[0])) <= int(parent_statm[0]) // 100
            ):
                continue
            total += resident_kb
            if resident_kb > self.peak_process_kb:
                self.peak_process_kb = resident_kb
                self.peak_process = names.get(pid, "?")
        self.peak_tree_kb = max(self.peak_tree_kb, total)


def measured(
    command: list[str],
    log_path: Path,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    server_pids: tuple[int, ...] = (),
) -> dict[str, Any]:
    """Runs a command to completion, sampling its process tree (and the server processes it
    talks to, their CPU from the command's start): wall s, CPU s, peak RSS, output."""
    started = time.perf_counter()
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        sampler = TreeRssSampler(process.pid, server_pids=server_pids)
        sampler.start()
        returncode = process.wait()
        sampler.stop()
    output = log_path.read_text()
    if returncode != 0:
        raise RuntimeError(
            f"{' '.join(command[:3])} failed (exit {returncode}):\n" + "\n".join(output.splitlines()[-40:])
        )
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": sampler.cpu_seconds,
        "peak_process_rss_mib": round(sampler.peak_process_kb / 1024),
        "output": output,
    }


def result_fields(output: str, tool: str) -> dict[str, str]:
    """The RESULT line a peer script printed for `tool`."""
    for line in output.splitlines():
        if line.startswith("RESULT ") and f"tool={tool} " in line:
            return dict(field.split("=", 1) for field in line.split()[1:] if "=" in field)
    raise RuntimeError(f"no RESULT line for {tool} in:\n{output[-2000:]}")


# Per workload flavour: the generator's and peers' name, the project's landing folder and staging model.
FLAVOURS = {
    "debezium": ("debezium", "debezium/json_lines", "stg_debezium__records"),
    "canal": ("canal", "canal_json/json_lines", "stg_canal_json__records"),
    # the same logical workload, landed as DTS Avro Kafka records (the peers read its Debezium JSON)
    "dts_avro": ("debezium", "dts_avro/kafka_records", "stg_dts_avro__records"),
    # the same logical workload as an hourly Parquet CDC export, one hour folder per batch
    "parquet_export": ("debezium", "parquet_export/binary_files", "stg_parquet_export__records"),
}


def run_peers(data: Path, work: Path, driver_memory: str, flavour: str) -> dict[str, Any]:
    fold = measured(
        [
            str(VENV_PYTHON),
            str(PEERS_DIR / "pyspark_fold.py"),
            "--data",
            str(data),
            "--flavour",
            flavour,
            "--out",
            str(work / "peer_out"),
            "--driver-memory",
            driver_memory,
        ],
        work / "pyspark_fold.log",
    )
    floor = measured(
        [
            str(VENV_PYTHON),
            str(PEERS_DIR / "floor.py"),
            "--data",
            str(data),
            "--flavour",
            flavour,
            "--what",
            "json",
            "--driver-memory",
            driver_memory,
        ],
        work / "floor.log",
    )
    fold_result = result_fields(fold["output"], "pyspark_fold")
    floor_result = result_fields(floor["output"], "floor_json_minimal")
    return {
        "hand_fold": {
            "timed_s": float(fold_result["wall_s"]),
            "startup_s": float(fold_result.get("startup_s", 0)),
            "events": int(fold_result["events"]),
            "cpu_s": fold["cpu_s"],
            "peak_rss_mib": fold["peak_process_rss_mib"],
            "process_wall_s": fold["wall_s"],
        },
        "floor_json": {
            "timed_s": float(floor_result["wall_s"]),
            "events": int(floor_result["events"]),
            "cpu_s": floor["cpu_s"],
            "peak_rss_mib": floor["peak_process_rss_mib"],
            "process_wall_s": floor["wall_s"],
        },
    }


def copy_project(destination: Path, landing_folder: str, history: bool) -> None:
    shutil.copytree(
        PROJECT_DIR,
        destination,
        ignore=lambda folder, names: [
            n for n in names if Path(folder) == PROJECT_DIR and (n in COPY_EXCLUDED or n.startswith(".spark"))
        ],
    )
    bench = destination / "models" / "marts" / "bench"
    bench.mkdir()
    (bench / f"{MART}.sql").write_text("{{ cdc_current_state() }}\n")
    # the Parquet export names a table by its folder only (no database level), which must not
    # overlap the sample's shop.products
    source = (
        "{table: inventory_products}"
        if landing_folder.startswith("parquet_export/")
        else "{database: inventory, table: products}"
    )
    (bench / "_bench__models.yml").write_text(
        BENCH_MODELS_YAML.replace("{source}", source).replace(
            "{history}", "\n          history: true" if history else ""
        )
    )


CANAL_ROW = re.compile(rb'\{"id":"[0-9]')


def row_events(line: bytes) -> int:
    """A generated line's row events: one for Debezium; for Canal one per row of data[], each
    opening with its id as a string of digits (mysqlType opens with "id":"bigint", and old[]
    entries never hold the id: the generator never changes a key)."""
    return max(1, len(CANAL_ROW.findall(line)))


def land(batch_files: list[Path], landing: Path) -> int:
    """Copies batch files into the landing folder as newly landed (a DTS Avro landing gets each
    batch as one Parquet file of Kafka records, converted first); returns their row events."""
    landing.mkdir(parents=True, exist_ok=True)
    lines = 0
    for path in batch_files:
        if landing.parts[-2:] == ("parquet_export", "binary_files"):
            from parquet_export_workload import write_batch as write_export_batch

            write_export_batch(path, landing.parent / "converting", int(re.sub(r"\D", "", path.stem) or 0))
            converted_root = landing.parent / "converting" / "inventory_products"
            for converted in sorted(converted_root.rglob("*.parquet")):
                target = landing / converted.relative_to(landing.parent / "converting")
                target.parent.mkdir(parents=True, exist_ok=True)
                converted.rename(target)
        elif landing.parts[-2:] == ("dts_avro", "kafka_records"):
            from dts_avro_workload import write_batch

            converted = landing.parent / "converting" / f"{path.stem}.parquet"
            land.next_offset = write_batch(path, converted, getattr(land, "next_offset", 0))  # type: ignore[attr-defined]
            converted.rename(landing / converted.name)
        else:
            target = landing / path.name
            shutil.copyfile(path, target)
            os.utime(target)
        with path.open("rb") as f:
            lines += sum(row_events(line) for line in f if line.strip())
    return lines


def model_seconds(run_results: Path) -> tuple[float, dict[str, float]]:
    """The time from the first of the model nodes and the project's hooks to start to the last
    to end (the work in a started session: the on-run-start hook cdc_find_new_work does what each
    model used to find out for itself), and each node's execution time. A span, not a sum: the
    `connect` target runs four nodes at once, and their sum counted the same seconds up to four
    times (on one thread the two agree within a second)."""
    per_model = {}
    bounds: list[datetime] = []
    for result in json.loads(run_results.read_text())["results"]:
        if result["unique_id"].startswith(("model.", "operation.")):
            per_model[result["unique_id"].split(".")[-1]] = round(float(result["execution_time"]), 2)
            for step in result["timing"]:
                bounds += [datetime.fromisoformat(step[edge]) for edge in ("started_at", "completed_at")]
    span = (max(bounds) - min(bounds)).total_seconds() if bounds else sum(per_model.values())
    return round(span, 2), per_model


def spark_server_pids(state_dir: Path) -> tuple[int, ...]:
    """The JVMs that bin/spark-connect-server started on state_dir: the Spark Connect server and
    the Hive metastore service beside it."""
    pid_files = [*state_dir.glob("spark-*.pid"), *state_dir.glob("metastore-*.pid")]
    return tuple(int(path.read_text().split()[0]) for path in pid_files)


def run_project(
    work: Path,
    batches: list[Path],
    full_batches: int,
    driver_memory: str,
    landing_folder: str,
    history: bool,
    server: bool = False,
) -> list[dict[str, Any]]:
    """The four dbt runs; with server, through one Spark Connect server (target connect) that
    starts before the first run (untimed, as a cluster's start would be) and stops after the last."""
    project = work / "project"
    copy_project(project, landing_folder, history)
    landing = work / "landing" / landing_folder
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
    }
    env |= {
        "CDC_TARGET": "local",
        "CDC_SCHEMA": SCHEMA,
        "CDC_SPARK_STATE_DIR": str(work / "spark"),
        "CDC_SPARK_DRIVER_MEMORY": driver_memory,
        # the copy has no .venv: the install's class archive, by its absolute path, when it is
        # current for this Java (none otherwise: the benchmark records nothing into the install)
        "CDC_SPARK_CLASS_SHARING": subprocess.run(
            [str(CLASS_ARCHIVE_SCRIPT), "use-options"], capture_output=True, text=True, check=True
        ).stdout.strip(),
        "DBT_PROFILES_DIR": str(project / "profiles"),
        "PYSPARK_PYTHON": str(VENV_PYTHON),
    }
    dbt_vars = json.dumps({"cdc_landing_root": str(work / "landing")})
    stages = [
        ("full build", batches[:full_batches]),
        ("+10%", batches[full_batches : full_batches + full_batches // 10]),
        (
            "+1%",
            batches[
                full_batches + full_batches // 10 : full_batches
                + full_batches // 10
                + max(1, full_batches // 100)
            ],
        ),
        ("nothing landed", []),
    ]
    server_pids: tuple[int, ...] = ()
    if server:
        with socket.socket() as probe:  # a free port: another server may hold the default one
            probe.bind(("127.0.0.1", 0))
            port = str(probe.getsockname()[1])
        env |= {"CDC_TARGET": "connect", "CDC_CONNECT_PORT": port, "SPARK_REMOTE": f"sc://127.0.0.1:{port}"}
        subprocess.run([str(SERVER_SCRIPT), "start"], env=env, check=True)
        server_pids = spark_server_pids(work / "spark")
    try:
        runs = [
            _project_run(label, files, landing, work, project, env, dbt_vars, server_pids)
            for label, files in stages
        ]
    finally:
        if server:
            subprocess.run([str(SERVER_SCRIPT), "stop"], env=env, check=False)
    return runs


def _project_run(
    label: str,
    files: list[Path],
    landing: Path,
    work: Path,
    project: Path,
    env: dict[str, str],
    dbt_vars: str,
    server_pids: tuple[int, ...],
) -> dict[str, Any]:
    """Lands `files`, runs dbt build, and reads its timings."""
    events = land(files, landing) if files else 0
    print(f"== project, {label}: {events} events landed", flush=True)
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "plus"
    run = measured(
        [str(DBT), *DBT_BUILD_ARGS, "--vars", dbt_vars],
        work / f"dbt-{slug}.log",
        env=env,
        cwd=project,
        server_pids=server_pids,
    )
    seconds, per_model = model_seconds(project / "target" / "run_results.json")
    # the project's dbt plugin found nothing landed or changed since the last successful run: no node ran
    nothing_to_do = (
        "Nothing to do: nothing landed and nothing changed" in (work / f"dbt-{slug}.log").read_text()
    )
    shutil.copyfile(project / "target" / "run_results.json", work / f"run_results-{slug}.json")
    print(
        f"   models {seconds} s, wall {run['wall_s']} s, CPU {run['cpu_s']} s, peak RSS {run['peak_process_rss_mib']} MiB"
        + (" (nothing to do: no Spark started)" if nothing_to_do else ""),
        flush=True,
    )
    return {
        "stage": label,
        "events": events,
        "model_s": seconds,
        "wall_s": run["wall_s"],
        "cpu_s": run["cpu_s"],
        "peak_rss_mib": run["peak_process_rss_mib"],
        "per_model_s": per_model,
        "nothing_to_do": nothing_to_do,
    }


def check_project(
    work: Path, expected_csv: Path, landed_lines: int, staging_model: str, history: bool
) -> dict[str, Any]:
    """Wrong keys against the oracle, and every landed row event staged, nothing quarantined;
    with history, its size, its current versions against the current state and its overlaps."""
    spec = importlib.util.spec_from_file_location("peers_common", PEERS_DIR / "peers_common.py")
    assert spec and spec.loader
    peers_common = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers_common)
    from pyspark.sql import SparkSession

    state = work / "spark"
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("benchmark-check")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(state / "warehouse"))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            f"jdbc:derby:;databaseName={state}/metastore_db;create=true",
        )
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={state}")
        .enableHiveSupport()
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    got = {}
    rows = spark.sql(
        f"select id, name, description, cast(weight as string) as w,"
        f" date_format(updated_at, 'yyyy-MM-dd HH:mm:ss') as ts from {SCHEMA}_marts.{MART}"
    ).toLocalIterator()
    for row in rows:
        got[row["id"]] = peers_common.normalise(row["name"], row["description"], row["w"], row["ts"])
    comparison = peers_common.compare(got, peers_common.load_expected(str(expected_csv)))
    staged = spark.sql(f"select count(*) from {SCHEMA}_staging.{staging_model}").first()[0]
    quarantined = spark.sql(
        f"select count(*) from {SCHEMA}_intermediate.int_quarantined_records_logged"
    ).first()[0]
    checked = {
        **comparison,
        "landed_lines": landed_lines,
        "staged_records": staged,
        "quarantined": quarantined,
    }
    if history:
        columns = "id, name, description, weight, updated_at"
        versions = f"{SCHEMA}_marts.{MART}_history"
        checked["history"] = (
            spark.sql(
                f"""
            select
                (select count(*) from {versions}) as versions,
                (select count(distinct id) from {versions}) as keys,
                (select count(*) from (
                    (select {columns} from {versions} where is_current except all select {columns} from {SCHEMA}_marts.{MART})
                    union all
                    (select {columns} from {SCHEMA}_marts.{MART} except all select {columns} from {versions} where is_current)
                )) as current_mismatches,
                (select count(*) from (
                    select valid_to, lead(valid_from) over (partition by id order by valid_from, valid_to nulls last) as next_from
                    from {versions}
                ) where next_from < valid_to or (next_from is not null and valid_to is null)) as overlaps
            """
            )
            .first()
            .asDict()
        )
    spark.stop()
    return checked


def ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{numerator / denominator:.2f}" if numerator and denominator else "-"


def summary(report: dict[str, Any]) -> str:
    peers, runs, check = report["peers"], report["project"], report["check"]
    hand, floor = peers["hand_fold"], peers["floor_json"]
    full = runs[0]
    hand_eps = hand["events"] / hand["timed_s"]
    floor_eps = floor["events"] / floor["timed_s"]
    lines = [
        f"Workload: {report['events']} events for the full build over {report['keys']} keys "
        + {
            "dts_avro": "(Alibaba DTS Avro Records in Kafka records; the peers fold the same changes as Debezium JSON lines), ",
            "parquet_export": "(an hourly Parquet CDC export, one hour folder per batch; the peers fold the same changes "
            "as Debezium JSON lines), ",
        }.get(report["flavour"], f"({report['flavour']} JSON lines), ")
        + f"then +10%, +1%, nothing. Machine load before: {report['load_average']}."
        + (f" Both sides on {report['java']}." if report.get("java") else "")
        + (" The project's table keeps history (meta.cdc.history: true)." if report.get("history") else "")
        + (
            " The project ran through one long-lived Spark Connect server (target connect), started"
            " before the full build: its start is in no timer; its CPU and memory are in each run's."
            if report.get("server")
            else ""
        ),
        "",
        "| run | events | project timed s (models + hooks) | project wall s | events/s (timed) | x hand fold | x from_json floor "
        "| incremental / full (timed) | CPU s | JVM peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        eps = run["events"] / run["model_s"] if run["events"] and run["model_s"] else None
        lines.append(
            f"| {run['stage']}{' (nothing to do: no Spark started)' if run.get('nothing_to_do') else ''} | {run['events']} | {run['model_s']} | {run['wall_s']} | {f'{eps:,.0f}' if eps else '-'} "
            f"| {ratio(eps, hand_eps) if run is full else '-'} | {ratio(eps, floor_eps) if run is full else '-'} "
            f"| {ratio(run['model_s'], full['model_s']) if run is not full else '-'} | {run['cpu_s']} | {run['peak_rss_mib']} |"
        )
    lines += [
        f"| hand-written fold (same files as the full build) | {hand['events']} | {hand['timed_s']} | {hand['process_wall_s']} "
        f"| {hand_eps:,.0f} | 1.00 | {ratio(hand_eps, floor_eps)} | - | {hand['cpu_s']} | {hand['peak_rss_mib']} |",
        f"| from_json floor (same files) | {floor['events']} | {floor['timed_s']} | {floor['process_wall_s']} "
        f"| {floor_eps:,.0f} | {ratio(floor_eps, hand_eps)} | 1.00 | - | {floor['cpu_s']} | {floor['peak_rss_mib']} |",
        "",
        f"Correctness after the last run: {check['wrong_keys']} wrong keys of {check['expected_keys']} expected "
        f"(oracle of the generator); {check['landed_lines']} row events landed, {check['staged_records']} staged, "
        f"{check['quarantined']} quarantined.",
        "",
        *(
            [
                f"History (meta.cdc.history: true, included in every project figure above): "
                f"{check['history']['versions']} versions of {check['history']['keys']} keys; "
                f"{check['history']['current_mismatches']} current versions differ from the current state; "
                f"{check['history']['overlaps']} overlapping intervals.",
                "",
            ]
            if "history" in check
            else []
        ),
        "Slowest models of the full build: "
        + ", ".join(
            f"{name} {seconds} s"
            for name, seconds in sorted(full["per_model_s"].items(), key=lambda item: -item[1])[:6]
        ),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--events", type=int, default=1_000_000, help="row changes of the full build (default 1M)"
    )
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--driver-memory", default="4g", help="Spark driver memory, the same for every side")
    parser.add_argument(
        "--work-dir", type=Path, default=None, help="where to generate and run (default: a temp folder)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument(
        "--history",
        action="store_true",
        help="the benchmark's table keeps history too (meta.cdc.history: true)",
    )
    parser.add_argument(
        "--flavour", choices=sorted(FLAVOURS), default="debezium", help="the workload's flavour"
    )
    parser.add_argument(
        "--server",
        action="store_true",
        help="dbt runs through one long-lived Spark Connect server (target connect), started before the full build",
    )
    args = parser.parse_args(argv)

    # Both sides run on the Java of bin/demo and bin/test (bin/java-home: JAVA_HOME, else the
    # java on PATH).
    os.environ["JAVA_HOME"] = subprocess.run(
        [str(JAVA_HOME_SCRIPT)], capture_output=True, text=True, check=True
    ).stdout.strip()
    java_version = subprocess.run(
        [os.path.join(os.environ["JAVA_HOME"], "bin", "java"), "-version"], capture_output=True, text=True
    ).stderr.splitlines()[0]
    started = datetime.now(UTC)
    work = (
        args.work_dir or Path(os.environ.get("TMPDIR", "/tmp"))
    ) / f"cdc-benchmark-{started:%Y%m%dT%H%M%S}"
    work.mkdir(parents=True)
    out = OUT_DIR / f"{started:%Y%m%dT%H%M%SZ}"
    out.mkdir(parents=True)
    full_batches = 100
    total_batches = full_batches + full_batches // 10 + 1
    print(f"work folder {work}", flush=True)
    peer_flavour, landing_folder, staging_model = FLAVOURS[args.flavour]
    subprocess.run(
        [
            str(VENV_PYTHON),
            str(PEERS_DIR / "gen_workload.py"),
            "--events",
            str(args.events * total_batches // full_batches),
            "--keys",
            str(args.keys),
            "--batches",
            str(total_batches),
            "--flavour",
            peer_flavour,
            "--out",
            str(work / "generated"),
        ],
        check=True,
    )
    batches = sorted((work / "generated" / peer_flavour).glob("batch-*.jsonl"))
    peer_data = work / "peers" / peer_flavour
    peer_data.mkdir(parents=True)
    for path in batches[:full_batches]:
        os.link(path, peer_data / path.name)
    report: dict[str, Any] = {
        "flavour": args.flavour,
        "events": sum(row_events(line) for p in batches[:full_batches] for line in p.open("rb")),
        "keys": args.keys,
        "load_average": round(os.getloadavg()[0], 2),
        "java": java_version,
        "driver_memory": args.driver_memory,
        "history": args.history,
        "server": args.server,
    }
    print("== peers on the full build's files", flush=True)
    report["peers"] = run_peers(peer_data, work, args.driver_memory, peer_flavour)
    report["project"] = run_project(
        work, batches, full_batches, args.driver_memory, landing_folder, args.history, args.server
    )
    landed = sum(run["events"] for run in report["project"])
    report["check"] = check_project(
        work, work / "generated" / "expected_final_state.csv", landed, staging_model, args.history
    )
    text = summary(report)
    print("\n" + text)
    (out / "summary.md").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps(report, indent=1))
    for log in work.glob("*.log"):
        shutil.copyfile(log, out / log.name)
    print(f"\nwritten to {out}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    history = report["check"].get("history", {})
    history_wrong = history.get("current_mismatches", 0) + history.get("overlaps", 0)
    return 0 if report["check"]["wrong_keys"] == 0 and history_wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the CDC pipeline: real dbt on local Spark over synthetic Debezium MySQL data.

What it does (benchmark/README.md has the details):

1. Generates deterministic Debezium MySQL JSON lines (bare payloads, no schema envelope) for
   table bench.accounts: batch 0 is the initial snapshot of --keys keys (op "r"), batch k is
   round k of updates to --update-fraction of the keys (full before and after images), some
   deletes and re-inserts of keys deleted earlier.
2. Copies the project to a temporary folder and registers the target table there
   (models/marts/bench/), so the project itself is never touched.
3. Runs dbt (target `local`: Spark inside the dbt process) with its own warehouse and
   metastore: batch 0 lands, `dbt build` runs; each round lands and `dbt build` runs again;
   then one run without new data (the fixed cost of an invocation). Each run is timed, with
   the execution time of every model (target/run_results.json) and the peak memory.
4. Checks bench__accounts against the state the generator expects, then times a full
   refresh of stg_debezium__records alone (the parsing throughput).
5. Prints a markdown summary and writes it with the raw numbers to benchmark/out/<timestamp>/.

Run it with the project's virtualenv: .venv/bin/python benchmark/run_benchmark.py --help
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

PROJECT_DIR = Path(__file__).resolve().parents[1]
DBT = PROJECT_DIR / ".venv" / "bin" / "dbt"
VENV_PYTHON = PROJECT_DIR / ".venv" / "bin" / "python"
OUT_DIR = PROJECT_DIR / "benchmark" / "out"
GNU_TIME = Path("/usr/bin/time")

SCHEMA = "bench"
MART = "bench__accounts"
LANDING_FOLDER = "debezium/json_lines"
STAGING_MODEL = "stg_debezium__records"
DBT_BUILD_ARGS = ("build", "--exclude", "test_type:unit", "test_type:data")

# Top-level entries of the project that the working copy leaves out: environments, Spark
# state, build output, caches, and the benchmark's own output.
COPY_EXCLUDED = {
    ".venv",
    ".git",
    ".landing",
    "target",
    "logs",
    "dbt_packages",
    ".pytest_cache",
    ".ruff_cache",
}

BENCH_MODEL_SQL = "{{ cdc_current_state() }}\n"
BENCH_MODELS_YAML = """\
version: 2

# Added by benchmark/run_benchmark.py to its working copy of the project (never to the project).

models:
  - name: bench__accounts
    description: Current state of MySQL table bench.accounts (synthetic Debezium JSON lines of the benchmark).
    data_tests: [cdc_one_row_per_key]
    config:
      tags: [benchmark]
      meta:
        cdc:
          source: {database: bench, table: accounts}
          keys: [id]
    columns:
      - {name: id, data_type: int, description: Account id (primary key).}
      - {name: name, data_type: string, description: Account holder.}
      - {name: balance, data_type: 'decimal(18,2)', description: Balance (a JSON number with 2 decimals).}
      - {name: status, data_type: string, description: Account status.}
      - {name: updated_at, data_type: timestamp, description: Last update (epoch milliseconds in the message).}
      - {name: _cdc, description: '{{ doc("mart_cdc_column") }}'}
      - {name: _cdc_key_bucket, description: '{{ doc("mart_cdc_key_bucket_column") }}'}
"""

# ---------------------------------------------------------------------------------------------
# Synthetic Debezium MySQL data
# ---------------------------------------------------------------------------------------------

FIRST_NAMES = (
    "Ana", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
    "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
)  # fmt: skip
LAST_NAMES = (
    "Almeida", "Brown", "Chen", "Dubois", "Eriksen", "Fischer", "Garcia", "Horvat", "Ivanova",
    "Jensen", "Kowalski", "Lopez", "Martin", "Nakamura", "O'Neil", "Petrov", "Rossi", "Silva",
)  # fmt: skip
STATUSES = ("active", "active", "active", "pending", "suspended", "vip", "closed")

START_MILLIS = 1_704_067_200_000  # 2024-01-01T00:00:00Z: the snapshot's time
FIRST_BINLOG_FILE = 8  # so that the stream crosses mysql-bin.000009 -> mysql-bin.000010
BINLOG_FILE_BYTES = 16 * 1024 * 1024  # small max_binlog_size: several rotations per run
BINLOG_EVENT_OVERHEAD = 60  # bytes of binlog event header per row event (an estimate)


@dataclass
class Account:
    name: str
    cents: int
    status: str
    updated_at: int  # epoch millis

    def image(self, key: int) -> str:
        """The row image as Debezium writes it without a schema: numbers and strings."""
        balance = f"{self.cents // 100}.{self.cents % 100:02d}"
        return (
            f'{{"id":{key},"name":{json.dumps(self.name)},"balance":{balance},'
            f'"status":{json.dumps(self.status)},"updated_at":{self.updated_at}}}'
        )

    def fingerprint(self, key: int) -> int:
        """CRC-32 of the row as Spark prints it; summed by the check query (Spark's crc32)."""
        balance = f"{self.cents // 100}.{self.cents % 100:02d}"
        text = "|".join((str(key), self.name, balance, self.status, str(self.updated_at)))
        return zlib.crc32(text.encode())


@dataclass
class Binlog:
    """A MySQL binlog position: file number and byte position, advancing with each event."""

    file_number: int = FIRST_BINLOG_FILE
    position: int = 4

    def next_event(self, size: int) -> tuple[str, int]:
        if self.position + size > BINLOG_FILE_BYTES:
            self.file_number += 1
            self.position = 4
        current = (f"mysql-bin.{self.file_number:06d}", self.position)
        self.position += size
        return current


def debezium_line(
    op: str,
    before: str | None,
    after: str | None,
    ts_ms: int,
    snapshot: str,
    binlog_file: str,
    binlog_pos: int,
    row: int,
) -> str:
    """One Debezium MySQL message, bare payload (schemas.enable=false), as one JSON line."""
    source = (
        f'{{"version":"2.5.4.Final","connector":"mysql","name":"benchserver","ts_ms":{ts_ms},'
        f'"snapshot":"{snapshot}","db":"bench","sequence":null,"table":"accounts","server_id":223344,'
        f'"gtid":null,"file":"{binlog_file}","pos":{binlog_pos},"row":{row},'
        f'"thread":{"null" if op == "r" else 7},"query":null}}'
    )
    return (
        f'{{"before":{before or "null"},"after":{after or "null"},"source":{source},'
        f'"op":"{op}","ts_ms":{ts_ms + 37},"transaction":null}}'
    )


class BatchWriter:
    """Writes one landing batch as JSON-lines files of at most `lines_per_file` lines each."""

    def __init__(self, folder: Path, batch: int, lines_per_file: int) -> None:
        self.folder = folder
        self.batch = batch
        self.lines_per_file = lines_per_file
        self.files: list[Path] = []
        self.lines = 0
        self._handle: TextIO | None = None
        self._lines_in_file = 0
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, line: str) -> None:
        if self._handle is None or self._lines_in_file >= self.lines_per_file:
            self._next_file()
        assert self._handle is not None
        self._handle.write(line)
        self._handle.write("\n")
        self._lines_in_file += 1
        self.lines += 1

    def _next_file(self) -> None:
        if self._handle is not None:
            self._handle.close()
        path = self.folder / f"bench.accounts-b{self.batch:04d}-p{len(self.files):04d}.jsonl"
        self.files.append(path)
        self._handle = path.open("w", encoding="utf-8", newline="\n")
        self._lines_in_file = 0

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


@dataclass
class Batch:
    number: int
    files: list[Path]
    lines: int
    operations: dict[str, int]
    bytes: int


@dataclass
class ExpectedState:
    """The current state the generator expects after every batch is applied."""

    rows: dict[int, Account]
    deleted: set[int]

    @property
    def balance_sum(self) -> str:
        cents = sum(account.cents for account in self.rows.values())
        return f"{cents // 100}.{cents % 100:02d}"

    @property
    def fingerprint(self) -> int:
        return sum(account.fingerprint(key) for key, account in self.rows.items())


class Generator:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.folder = folder
        self.random = random.Random(args.seed)
        self.binlog = Binlog()
        self.clock = START_MILLIS
        self.rows: dict[int, Account] = {}
        self.deleted: set[int] = set()

    def _name(self) -> str:
        return f"{self.random.choice(FIRST_NAMES)} {self.random.choice(LAST_NAMES)}"

    def _new_account(self, updated_at: int) -> Account:
        return Account(
            name=self._name(),
            cents=self.random.randint(0, 5_000_000),
            status=self.random.choice(STATUSES),
            updated_at=updated_at,
        )

    def _changed(self, account: Account, updated_at: int) -> Account:
        cents = max(0, account.cents + self.random.randint(-50_000, 50_000))
        status = self.random.choice(STATUSES) if self.random.random() < 0.2 else account.status
        name = self._name() if self.random.random() < 0.05 else account.name
        return Account(name=name, cents=cents, status=status, updated_at=updated_at)

    def snapshot(self) -> Batch:
        """Batch 0: the initial snapshot, one read (op r) per key, binlog position increasing."""
        writer = BatchWriter(self.folder / "batch-0000", 0, self.args.lines_per_file)
        for key in range(1, self.args.keys + 1):
            # Rows last changed during the year before the snapshot.
            account = self._new_account(START_MILLIS - self.random.randint(1, 365 * 86_400_000))
            self.rows[key] = account
            after = account.image(key)
            binlog_file, binlog_pos = self.binlog.next_event(len(after) + BINLOG_EVENT_OVERHEAD)
            snapshot = "last" if key == self.args.keys else ("first" if key == 1 else "true")
            writer.write(debezium_line("r", None, after, START_MILLIS, snapshot, binlog_file, binlog_pos, 0))
        writer.close()
        return self._batch(writer, Counter(r=self.args.keys))

    def round(self, number: int) -> Batch:
        """Batch `number`: updates, deletes and re-inserts, in transactions of 1 to 5 rows."""
        live = list(self.rows)
        updated = self.random.sample(live, min(len(live), round(self.args.update_fraction * self.args.keys)))
        deleted = self.random.sample(live, min(len(live), round(self.args.delete_fraction * self.args.keys)))
        previously_deleted = sorted(self.deleted)
        reinserted = self.random.sample(
            previously_deleted, round(self.args.reinsert_fraction * len(previously_deleted))
        )
        actions: dict[int, list[str]] = {}
        for key in updated:
            actions.setdefault(key, []).append("u")
        for key in deleted:  # a key both updated and deleted: the update, then the delete
            actions.setdefault(key, []).append("d")
        for key in reinserted:
            actions.setdefault(key, []).append("c")
        keys = list(actions)
        self.random.shuffle(keys)
        events = [(key, op) for key in keys for op in actions[key]]

        writer = BatchWriter(self.folder / f"batch-{number:04d}", number, self.args.lines_per_file)
        operations: Counter[str] = Counter()
        index = 0
        while index < len(events):
            transaction = events[index : index + self.random.randint(1, 5)]
            index += len(transaction)
            self.clock += self.random.randint(1, 40)
            lines: list[str] = []
            for row, (key, op) in enumerate(transaction):
                before = self.rows[key].image(key) if op in ("u", "d") else None
                if op == "u":
                    self.rows[key] = self._changed(self.rows[key], self.clock)
                elif op == "d":
                    del self.rows[key]
                    self.deleted.add(key)
                else:
                    self.rows[key] = self._new_account(self.clock)
                    self.deleted.discard(key)
                after = self.rows[key].image(key) if op in ("u", "c") else None
                lines.append(debezium_line(op, before, after, self.clock, "false", "{file}", -1, row))
                operations[op] += 1
            # One rows event per transaction: every row shares its position, `row` counts within it.
            binlog_file, binlog_pos = self.binlog.next_event(
                sum(len(line) for line in lines) + BINLOG_EVENT_OVERHEAD
            )
            for line in lines:
                writer.write(
                    line.replace('"file":"{file}","pos":-1', f'"file":"{binlog_file}","pos":{binlog_pos}', 1)
                )
        writer.close()
        return self._batch(writer, operations)

    def _batch(self, writer: BatchWriter, operations: Counter[str]) -> Batch:
        return Batch(
            number=writer.batch,
            files=writer.files,
            lines=writer.lines,
            operations=dict(sorted(operations.items())),
            bytes=sum(path.stat().st_size for path in writer.files),
        )

    def expected(self) -> ExpectedState:
        return ExpectedState(rows=dict(self.rows), deleted=set(self.deleted))


def land(batch: Batch, landing_dir: Path) -> None:
    """Moves a batch's files into the landing folder: each appears at once (a rename), landed now."""
    landing_dir.mkdir(parents=True, exist_ok=True)
    for path in batch.files:
        os.utime(path)  # the modification time is the landing time (the pipeline's landed_at)
        os.replace(path, landing_dir / path.name)


# ---------------------------------------------------------------------------------------------
# Running dbt and measuring it
# ---------------------------------------------------------------------------------------------


class TreeRssSampler(threading.Thread):
    """Samples the resident memory of a process and all its descendants every `interval` s.

    /usr/bin/time reports the largest single process among those it waited for; this adds
    the sum over the live process tree (dbt's Python plus the Spark JVM it starts).
    """

    def __init__(self, root_pid: int, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.root_pid = root_pid
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
        # (pid, parent's name, parent's statm): the tree is walked from the root down.
        stack: list[tuple[int, str, list[str]]] = [(self.root_pid, "", [])]
        while stack:
            pid, parent_name, parent_statm = stack.pop()
            try:
                statm = Path("/proc", str(pid), "statm").read_text().split()
                resident_kb = int(statm[1]) * self._page_kb
            except (OSError, IndexError, ValueError):
                continue
            stack.extend((child, names.get(pid, ""), statm) for child in children.get(pid, []))
            self._cpu_ticks[pid] = cpu_ticks.get(pid, self._cpu_ticks.get(pid, 0))
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


@dataclass
class NodeTiming:
    unique_id: str
    name: str
    resource_type: str
    status: str
    execution_time: float
    compile_seconds: float | None
    execute_seconds: float | None


@dataclass
class RunMeasure:
    label: str
    command: list[str]
    batch: int | None
    raw_records: int
    files: int
    wall_seconds: float
    dbt_elapsed_seconds: float | None
    records_per_second: float | None
    max_rss_kb_gnu_time: int | None
    cpu_seconds_gnu_time: float | None
    peak_tree_rss_kb: int
    peak_process_rss_kb: int
    peak_process: str
    cpu_seconds_tree: float
    load_average_before: float
    nodes: list[NodeTiming] = field(default_factory=list)


@dataclass
class DbtRunner:
    project: Path
    env: dict[str, str]
    dbt_vars: dict[str, Any]
    log_dir: Path

    def run(self, label: str, args: Sequence[str], check: bool = True) -> tuple[RunMeasure, str]:
        slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
        run_dir = self.log_dir / slug
        run_dir.mkdir(parents=True, exist_ok=True)
        time_file = run_dir / "gnu_time.txt"
        command = [str(DBT), *args, "--target", "local", "--vars", json.dumps(self.dbt_vars)]
        full_command = [str(GNU_TIME), "-v", "-o", str(time_file), *command]
        run_results = self.project / "target" / "run_results.json"
        run_results.unlink(missing_ok=True)
        print(f"\n== {label}: dbt {' '.join(args)}", flush=True)
        load_average = os.getloadavg()[0]
        started = time.perf_counter()
        with (run_dir / "dbt_output.txt").open("w") as output:
            process = subprocess.Popen(
                full_command,
                cwd=self.project,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            sampler = TreeRssSampler(process.pid)
            sampler.start()
            assert process.stdout is not None
            captured: list[str] = []
            for line in process.stdout:
                output.write(line)
                captured.append(line)
            returncode = process.wait()
            sampler.stop()
        wall = time.perf_counter() - started
        text = "".join(captured)
        if check and returncode != 0:
            tail = "\n".join(text.splitlines()[-60:])
            raise RuntimeError(f"dbt {' '.join(args)} failed (exit {returncode}); log in {run_dir}:\n{tail}")
        gnu_time = time_file.read_text() if time_file.exists() else ""
        elapsed, nodes = None, []
        if run_results.exists():
            shutil.copyfile(run_results, run_dir / "run_results.json")
            elapsed, nodes = read_run_results(run_results)
        measure = RunMeasure(
            label=label,
            command=command,
            batch=None,
            raw_records=0,
            files=0,
            wall_seconds=round(wall, 2),
            dbt_elapsed_seconds=elapsed,
            records_per_second=None,
            max_rss_kb_gnu_time=_gnu_time_value(gnu_time, "Maximum resident set size (kbytes)", int),
            cpu_seconds_gnu_time=_cpu_seconds(gnu_time),
            peak_tree_rss_kb=sampler.peak_tree_kb,
            peak_process_rss_kb=sampler.peak_process_kb,
            peak_process=sampler.peak_process,
            cpu_seconds_tree=sampler.cpu_seconds,
            load_average_before=round(load_average, 2),
            nodes=nodes,
        )
        print(f"   {wall:.1f} s wall, peak tree RSS {sampler.peak_tree_kb / 1024:.0f} MiB", flush=True)
        return measure, text


def _gnu_time_value(text: str, name: str, kind: type[int] | type[float]) -> Any:
    match = re.search(rf"^\s*{re.escape(name)}:\s*([0-9.]+)\s*$", text, re.MULTILINE)
    return kind(match.group(1)) if match else None


def _cpu_seconds(text: str) -> float | None:
    user = _gnu_time_value(text, "User time (seconds)", float)
    system = _gnu_time_value(text, "System time (seconds)", float)
    return round(user + system, 2) if user is not None and system is not None else None


def _seconds_between(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    parse = datetime.fromisoformat
    return round((parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds(), 3)


def read_run_results(path: Path) -> tuple[float | None, list[NodeTiming]]:
    """dbt's own elapsed time and, per executed node, its execution time (compile + execute)."""
    data = json.loads(path.read_text())
    nodes = []
    for result in data.get("results", []):
        phases = {phase["name"]: phase for phase in result.get("timing", [])}
        unique_id = result["unique_id"]
        nodes.append(
            NodeTiming(
                unique_id=unique_id,
                name=unique_id.split(".")[-1],
                resource_type=unique_id.split(".")[0],
                status=str(result.get("status")),
                execution_time=round(float(result.get("execution_time") or 0.0), 3),
                compile_seconds=_seconds_between(
                    phases.get("compile", {}).get("started_at"), phases.get("compile", {}).get("completed_at")
                ),
                execute_seconds=_seconds_between(
                    phases.get("execute", {}).get("started_at"), phases.get("execute", {}).get("completed_at")
                ),
            )
        )
    elapsed = data.get("elapsed_time")
    return (round(float(elapsed), 2) if elapsed is not None else None), nodes


def show_json(runner: DbtRunner, label: str, query: str) -> tuple[RunMeasure, list[dict[str, Any]]]:
    """Runs `dbt show --inline` and returns its rows (dbt's JSON output)."""
    measure, text = runner.run(label, ["show", "--inline", query, "--output", "json", "--limit", "100"])
    start = text.find('{\n  "show"')
    if start < 0:
        start = text.find('{"show"')
    if start < 0:
        raise RuntimeError(f"no JSON result in the output of dbt show:\n{text[-3000:]}")
    rows, _ = json.JSONDecoder().raw_decode(text[start:])
    return measure, list(rows["show"])


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------


def project_revision() -> dict[str, Any]:
    """The project's git commit and whether the working tree differs from it (read-only git calls)."""

    def git(*args: str) -> str:
        result = subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=PROJECT_DIR,
            capture_output=True,
            text=True,
            check=False,
        )
        return result.stdout.strip() if result.returncode == 0 else ""

    changed = [line for line in git("status", "--porcelain").splitlines() if not line.endswith(" benchmark/")]
    return {"commit": git("rev-parse", "--short", "HEAD") or None, "uncommitted_changes": changed}


def copy_project(destination: Path) -> None:
    """The project without its environment, Spark state and build output, plus the bench model."""

    def ignored(folder: str, names: list[str]) -> set[str]:
        if Path(folder).resolve() == PROJECT_DIR:
            return {name for name in names if name in COPY_EXCLUDED or name.startswith(".spark")}
        if Path(folder).resolve() == PROJECT_DIR / "benchmark":
            return {"out"} & set(names)
        return {name for name in names if name == "__pycache__"}

    shutil.copytree(PROJECT_DIR, destination, ignore=ignored)
    bench_models = destination / "models" / "marts" / "bench"
    bench_models.mkdir(parents=True)
    (bench_models / f"{MART}.sql").write_text(BENCH_MODEL_SQL)
    (bench_models / "_bench__models.yml").write_text(BENCH_MODELS_YAML)


def check_query(expected: ExpectedState, spot_keys: Sequence[int]) -> str:
    keys = ", ".join(str(key) for key in spot_keys)
    return f"""
        select
            count(*) as row_count,
            count(distinct id) as distinct_ids,
            cast(sum(balance) as string) as balance_sum,
            sum(crc32(concat_ws('|', cast(id as string), name, cast(balance as string), status,
                cast(unix_millis(updated_at) as string)))) as fingerprint,
            to_json(sort_array(collect_list(
                case when id in ({keys}) then
                    named_struct('id', id, 'name', name, 'balance', cast(balance as string), 'status', status,
                        'updated_at', unix_millis(updated_at), 'operation', _cdc.operation)
                end))) as spot_rows,
            (select count_if(is_deleted) from {SCHEMA}_intermediate.int_row_state_folded
                where target_table = '{MART}') as tombstones,
            (select count(*) from {SCHEMA}_intermediate.int_quarantined_records_logged) as quarantined,
            (select count(*) from {SCHEMA}_staging.{STAGING_MODEL}) as staged_records,
            (select count(*) from {SCHEMA}_intermediate.int_change_events_keyed) as keyed_changes
        from {SCHEMA}_marts.{MART}
    """


def verify(
    runner: DbtRunner, expected: ExpectedState, total_lines: int, rng: random.Random
) -> tuple[RunMeasure, dict[str, Any]]:
    live = sorted(expected.rows)
    spot_keys = sorted(rng.sample(live, min(5, len(live))) + sorted(expected.deleted)[:2])
    measure, rows = show_json(runner, "check current state", check_query(expected, spot_keys))
    actual = rows[0]
    expected_spots = [
        {
            "id": key,
            "name": expected.rows[key].name,
            "balance": f"{expected.rows[key].cents // 100}.{expected.rows[key].cents % 100:02d}",
            "status": expected.rows[key].status,
            "updated_at": expected.rows[key].updated_at,
        }
        for key in spot_keys
        if key in expected.rows
    ]
    actual_spots = [
        {name: value for name, value in row.items() if name != "operation"}
        for row in json.loads(actual["spot_rows"])
    ]
    checks = {
        "row_count": (len(expected.rows), int(actual["row_count"])),
        "distinct_ids": (len(expected.rows), int(actual["distinct_ids"])),
        "balance_sum": (expected.balance_sum, str(actual["balance_sum"])),
        "fingerprint": (expected.fingerprint, int(actual["fingerprint"])),
        "spot_rows": (expected_spots, actual_spots),
        "tombstones": (len(expected.deleted), int(actual["tombstones"])),
        "quarantined": (0, int(actual["quarantined"])),
        "staged_records": (total_lines, int(actual["staged_records"])),
        "keyed_changes": (total_lines, int(actual["keyed_changes"])),
    }
    result = {
        "ok": all(want == got for want, got in checks.values()),
        "checks": {
            name: {"expected": want, "actual": got, "ok": want == got} for name, (want, got) in checks.items()
        },
        "spot_keys": spot_keys,
    }
    return measure, result


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark the CDC pipeline: real dbt on local Spark over synthetic Debezium MySQL JSON lines.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--keys", type=int, default=200_000, help="keys in the initial snapshot (batch 0)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of changes, one landing batch and dbt run each"
    )
    parser.add_argument(
        "--update-fraction", type=float, default=0.10, help="fraction of --keys updated per round"
    )
    parser.add_argument(
        "--delete-fraction", type=float, default=0.005, help="fraction of --keys deleted per round"
    )
    parser.add_argument(
        "--reinsert-fraction",
        type=float,
        default=0.5,
        help="fraction of the keys deleted in earlier rounds that each round inserts again",
    )
    parser.add_argument("--lines-per-file", type=int, default=50_000, help="lines per landed JSON-lines file")
    parser.add_argument("--seed", type=int, default=20240101, help="seed of the data generator")
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary folder (project copy, landing, Spark state)"
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="parent of the temporary folder (none: the system temp folder)",
    )
    args = parser.parse_args(argv)
    if args.keys < 1 or args.rounds < 0 or args.lines_per_file < 1:
        parser.error("--keys and --lines-per-file must be positive, --rounds at least 0")
    for name in ("update_fraction", "delete_fraction", "reinsert_fraction"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            parser.error(f"--{name.replace('_', '-')} must be between 0 and 1")
    return args


def dbt_environment(project: Path, state_dir: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        # A Spark Connect address would turn the session method into a client of that server.
        if name not in ("SPARK_REMOTE", "CDC_TARGET", "DBT_TARGET_PATH", "DBT_PROFILES_DIR")
    }
    env |= {
        "CDC_TARGET": "local",
        "CDC_SCHEMA": SCHEMA,
        "CDC_SPARK_STATE_DIR": str(state_dir),
        "DBT_PROFILES_DIR": str(project / "profiles"),
        "PYSPARK_PYTHON": str(VENV_PYTHON),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "PYTHONWARNINGS": "ignore:Failed to set spark.sql.catalogImplementation:UserWarning",
    }
    return env


def per_second(count: int, seconds: float | None) -> float | None:
    return round(count / seconds, 1) if seconds else None


def mib(kilobytes: int | None) -> str:
    return f"{kilobytes / 1024:,.0f}" if kilobytes else "n/a"


def number(value: float | None, digits: int = 1) -> str:
    return f"{value:,.{digits}f}" if value is not None else "n/a"


def markdown_summary(report: dict[str, Any]) -> str:
    settings = report["settings"]
    runs: list[dict[str, Any]] = report["runs"]
    lines = [
        f"# CDC pipeline benchmark, {report['started_at']}",
        "",
        f"Settings: {settings['keys']:,} keys, {settings['rounds']} rounds, update fraction "
        f"{settings['update_fraction']}, delete fraction {settings['delete_fraction']}, reinsert fraction "
        f"{settings['reinsert_fraction']}, {settings['lines_per_file']:,} lines per file, seed {settings['seed']}.",
        f"Machine: {report['machine']['cpus']} CPUs, {report['machine']['memory_gib']} GiB RAM, "
        f"{report['machine']['platform']}; Spark master local[{report['spark']['cores']}], driver memory "
        f"{report['spark']['driver_memory']} (target `local`, Spark in the dbt process).",
        f"Project at commit {report['project']['commit']}"
        f"{' with uncommitted changes' if report['project']['uncommitted_changes'] else ''}. "
        f"Whole benchmark: {report['total_seconds'] / 60:.1f} min (data generation {report['generation_seconds']} s, "
        f"{len(runs) + 2} dbt invocations including the check and the staging full refresh).",
        "",
        "## Runs",
        "",
        "| run | raw records | files | wall s | dbt elapsed s | records/s (wall) | peak RSS MiB (time -v) "
        "| peak RSS MiB (process tree) | peak RSS MiB (largest process) | CPU s (time -v) "
        "| CPU s (process tree) | load avg before |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        lines.append(
            f"| {run['label']} | {run['raw_records']:,} | {run['files']} | {number(run['wall_seconds'])} "
            f"| {number(run['dbt_elapsed_seconds'])} | {number(run['records_per_second'])} "
            f"| {mib(run['max_rss_kb_gnu_time'])} | {mib(run['peak_tree_rss_kb'])} "
            f"| {mib(run['peak_process_rss_kb'])} ({run['peak_process']}) "
            f"| {number(run['cpu_seconds_gnu_time'])} | {number(run['cpu_seconds_tree'])} "
            f"| {number(run['load_average_before'], 2)} |"
        )
    staging = report["staging_full_refresh"]
    lines += [
        "",
        "## Parsing throughput (staging model alone)",
        "",
        f"`dbt run --select {STAGING_MODEL} --full-refresh` over all {staging['lines']:,} landed lines: "
        f"model {number(staging['model_seconds'])} s = **{number(staging['lines_per_second_model'], 0)} lines/s**; "
        f"whole invocation {number(staging['wall_seconds'])} s = {number(staging['lines_per_second_wall'], 0)} lines/s.",
        "",
        "## Seconds per model and run (run_results.json execution_time)",
        "",
    ]
    timed_runs = [run for run in runs if run["nodes"]]
    header = "| node | " + " | ".join(run["label"] for run in timed_runs) + " |"
    lines += [header, "|---|" + "---:|" * len(timed_runs)]
    node_ids: dict[str, float] = {}
    for run in timed_runs:
        for node in run["nodes"]:
            node_ids[node["unique_id"]] = node_ids.get(node["unique_id"], 0.0) + node["execution_time"]
    for unique_id, _ in sorted(node_ids.items(), key=lambda item: -item[1]):
        cells = []
        for run in timed_runs:
            times = [node["execution_time"] for node in run["nodes"] if node["unique_id"] == unique_id]
            cells.append(number(times[0], 2) if times else "")
        lines.append(
            f"| {unique_id.split('.')[-1]} ({unique_id.split('.')[0]}) | " + " | ".join(cells) + " |"
        )
    check = report["verification"]
    lines += [
        "",
        "## Correctness of bench__accounts",
        "",
        f"**{'OK' if check['ok'] else 'MISMATCH'}**",
        "",
        "| check | expected | actual | ok |",
        "|---|---|---|---|",
    ]
    for name, result in check["checks"].items():
        want, got = result["expected"], result["actual"]
        if name == "spot_rows":
            want, got = (
                f"{len(want)} rows",
                f"{len(got)} rows" + ("" if result["ok"] else " (differ, see JSON)"),
            )
        lines.append(f"| {name} | {want} | {got} | {'yes' if result['ok'] else 'NO'} |")
    batches = report["batches"]
    lines += [
        "",
        "## Landed batches",
        "",
        "| batch | lines | files | MiB | operations |",
        "|---:|---:|---:|---:|---|",
    ]
    for batch in batches:
        operations = ", ".join(f"{op}: {count:,}" for op, count in batch["operations"].items())
        lines.append(
            f"| {batch['number']} | {batch['lines']:,} | {len(batch['files'])} | {batch['bytes'] / 2**20:,.1f} "
            f"| {operations} |"
        )
    return "\n".join(lines) + "\n"


@dataclass
class Workspace:
    root: Path
    keep: bool

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def landing_root(self) -> Path:
        return self.root / "landing"

    @property
    def state_dir(self) -> Path:
        return self.root / "spark"

    @property
    def generated(self) -> Path:
        return self.root / "generated"


@contextmanager
def workspace(args: argparse.Namespace) -> Iterator[Workspace]:
    root = Path(tempfile.mkdtemp(prefix="cdc-benchmark-", dir=args.work_dir))
    space = Workspace(root=root, keep=args.keep)
    failed = True
    try:
        yield space
        failed = False
    finally:
        if space.keep or failed:
            print(f"\nTemporary folder kept: {root}", flush=True)
        else:
            shutil.rmtree(root, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not DBT.exists():
        print(f"{DBT} not found: run bin/setup first", file=sys.stderr)
        return 2
    if not GNU_TIME.exists():
        print(f"{GNU_TIME} not found: install GNU time (apt-get install time)", file=sys.stderr)
        return 2
    started_at = datetime.now(UTC)
    benchmark_started = time.perf_counter()
    out_dir = OUT_DIR / started_at.strftime("%Y%m%dT%H%M%SZ")
    out_dir.mkdir(parents=True)

    with workspace(args) as space:
        print(f"Working folder: {space.root}\nOutput: {out_dir}", flush=True)
        revision = project_revision()
        copy_project(space.project)

        generator = Generator(args, space.generated)
        generation_started = time.perf_counter()
        batches = [generator.snapshot()] + [generator.round(number) for number in range(1, args.rounds + 1)]
        generation_seconds = round(time.perf_counter() - generation_started, 2)
        expected = generator.expected()
        total_lines = sum(batch.lines for batch in batches)
        print(
            f"Generated {len(batches)} batches, {total_lines:,} lines in {generation_seconds} s; "
            f"expected {len(expected.rows):,} current rows ({len(expected.deleted):,} keys deleted)",
            flush=True,
        )

        runner = DbtRunner(
            project=space.project,
            env=dbt_environment(space.project, space.state_dir),
            dbt_vars={"cdc_landing_root": str(space.landing_root)},
            log_dir=out_dir / "runs",
        )
        landing_dir = space.landing_root / LANDING_FOLDER
        runs: list[RunMeasure] = []
        for batch in batches:
            land(batch, landing_dir)
            label = (
                "batch 0 (snapshot)" if batch.number == 0 else f"batch {batch.number} (round {batch.number})"
            )
            measure, _ = runner.run(label, DBT_BUILD_ARGS)
            measure.batch, measure.raw_records, measure.files = batch.number, batch.lines, len(batch.files)
            measure.records_per_second = per_second(batch.lines, measure.wall_seconds)
            runs.append(measure)
        measure, _ = runner.run("no new data", DBT_BUILD_ARGS)
        runs.append(measure)

        check_measure, verification = verify(runner, expected, total_lines, random.Random(args.seed))

        staging_measure, _ = runner.run(
            "staging full refresh", ["run", "--select", STAGING_MODEL, "--full-refresh"]
        )
        staging_measure.raw_records, staging_measure.files = total_lines, sum(len(b.files) for b in batches)
        staging_node = next((node for node in staging_measure.nodes if node.name == STAGING_MODEL), None)
        model_seconds = staging_node.execution_time if staging_node else None
        staging_measure.records_per_second = per_second(total_lines, staging_measure.wall_seconds)
        staging = {
            "lines": total_lines,
            "model_seconds": model_seconds,
            "wall_seconds": staging_measure.wall_seconds,
            "lines_per_second_model": per_second(total_lines, model_seconds),
            "lines_per_second_wall": per_second(total_lines, staging_measure.wall_seconds),
        }

        memory = re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())
        memory_kb = int(memory.group(1)) if memory else 0
        report: dict[str, Any] = {
            "started_at": started_at.isoformat(timespec="seconds"),
            "settings": {
                name: (str(value) if isinstance(value, Path) else value) for name, value in vars(args).items()
            },
            "machine": {
                "cpus": os.cpu_count(),
                "memory_gib": round(memory_kb / 2**20, 1),
                "platform": platform.platform(),
                "load_average_at_end": os.getloadavg(),
            },
            "spark": {
                "cores": os.environ.get("CDC_SPARK_CORES", "*"),
                "driver_memory": os.environ.get("CDC_SPARK_DRIVER_MEMORY", "4g"),
            },
            "project": revision,
            "work_dir": str(space.root),
            "total_seconds": round(time.perf_counter() - benchmark_started, 1),
            "generation_seconds": generation_seconds,
            "batches": [{**asdict(batch), "files": [path.name for path in batch.files]} for batch in batches],
            "runs": [asdict(run) for run in runs],
            "check_run": asdict(check_measure),
            "staging_full_refresh": staging,
            "staging_full_refresh_run": asdict(staging_measure),
            "verification": verification,
        }
        summary = markdown_summary(report)
        (out_dir / "results.json").write_text(json.dumps(report, indent=2) + "\n")
        (out_dir / "summary.md").write_text(summary)
        print("\n" + summary, flush=True)
        print(f"Written: {out_dir / 'summary.md'}, {out_dir / 'results.json'}", flush=True)
        if not verification["ok"]:
            print("bench__accounts does NOT match the expected state (see results.json)", file=sys.stderr)
            space.keep = True
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""End-to-end harness: real dbt on a real local Spark, through one Spark Connect server.

One server per test run holds a fresh warehouse and Hive metastore (.spark-test/); each
scenario builds the project into its own schemas (CDC_SCHEMA) over its own landing folder (var
cdc_landing_root), and reads the results back through a Spark Connect client. bin/test runs
the modules in two pytest-xdist workers: they share the server that the controller starts
(.spark-test/shared), and each has its own state folder (.spark-test/<worker>, for the runs
with Spark in the dbt process) and dbt target folder.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from pyspark.sql import SparkSession

from dbt_cdc_udfs.small_runs import QUICK_JIT_OPTIONS

PROJECT_DIR = Path(__file__).resolve().parents[2]
SHARED_DIR = PROJECT_DIR.parent / "shared"
SAMPLE_LANDING = PROJECT_DIR / "sample_data" / "landing"
# "gw0", "gw1" in a pytest-xdist worker; empty in a plain pytest
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
STATE_DIR = PROJECT_DIR / ".spark-test" / (WORKER or "main")
# this worker's dbt target folders (compiled SQL, the docs site) and dbt log folder
TARGET_NAME = f"pytest-{WORKER}" if WORKER else "pytest"

# A dbt run with Spark in its process (the `local` target) is a small run in a cold JVM: the
# JIT's first tier only, as bin/demo runs (README, "Small runs"). The Connect server,
# which lives through the whole session, keeps the profile's default (C2 too): through it, three
# modules took 207 s with C1 only against 223 s, some tests slower, not a clear gain. Dbt.invocation
# passes QUICK_JIT_OPTIONS (from the plugin, the options it would choose itself) for that.

# A dbt run through a Connect server that died waits for it without end (seen when the server ran
# out of code cache): a run still going after this long fails its test instead of hanging the
# suite. The longest run measured took 500 s (the unit tests, in CI, in a JVM of their own then).
DBT_RUN_TIMEOUT_S = 1800


def target_dir(schema: str, project_dir: Path = PROJECT_DIR) -> Path:
    """dbt's target folder of the invocations on one schema. One per schema: dbt parses the
    project again (about 10 s of a core) when the schema or the vars differ from those of the
    parse its target folder keeps, so a module's later runs on its schema reuse that parse."""
    return project_dir / "target" / TARGET_NAME / schema


# Spark runs on the Java of bin/test and bin/demo (bin/java-home), also under a plain pytest:
# the Connect server, every dbt run and the PySpark sessions of the tests inherit it.
os.environ["JAVA_HOME"] = subprocess.run(
    [str(PROJECT_DIR / "bin" / "java-home")], capture_output=True, text=True, check=True
).stdout.strip()
# The install's class archive (bin/spark-class-archive) when it is current for that Java, by its
# absolute path (also for a copy of the project); none otherwise, as in a fresh clone.
CLASS_SHARING = subprocess.run(
    [str(PROJECT_DIR / "bin" / "spark-class-archive"), "use-options"],
    capture_output=True,
    text=True,
    check=True,
).stdout.strip()
KAFKA_RECORD_SCHEMA = pa.schema(
    [
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("timestampType", pa.int32()),
    ]
)


# The var that declares the corpus targets (tests/corpus_targets), the tests' own current-state
# tables, for the modules that land their changes. Elsewhere they would only add their typing to
# every run's checked changes and their tables and tests to every build.
CORPUS_TARGETS = {"cdc_corpus_targets": True}


def project_build(*tests: str) -> list[str]:
    """`dbt build` arguments for the project's own models and seed, without the corpus targets
    (tests/corpus_targets), and of the data tests only those the selectors `tests` name (dbt
    build would otherwise add each selected model's tests)."""
    selected = " ".join(["resource_type:model resource_type:seed", *tests])
    return ["build", "--select", selected, "--exclude", "tag:corpus", "--indirect-selection", "empty"]


def _registry() -> dict[str, dict[str, Any]]:
    """The project's current-state tables and their meta.cdc, from the marts' YAML."""
    tables = {}
    for path in (PROJECT_DIR / "models" / "marts").rglob("_*__models.yml"):
        for model in yaml.safe_load(path.read_text()).get("models", []):
            cdc = model.get("config", {}).get("meta", {}).get("cdc")
            if cdc is not None:
                tables[model["name"]] = cdc
    return tables


def current_state_tables() -> set[str]:
    """The project's current-state tables (a meta.cdc in their YAML)."""
    return set(_registry())


def history_tables() -> set[str]:
    """The project's current-state tables that keep history (meta.cdc.history in their YAML)."""
    return {name for name, cdc in _registry().items() if cdc.get("history") is True}


def staging_models() -> list[str]:
    """The staging models every run reads (var cdc_staging_models of dbt_project.yml)."""
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    return list(project["vars"]["cdc_staging_models"])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Server:
    """A running Spark Connect server: its address, and the settings with which dbt's `local`
    target, Spark in the dbt process, shares its tables (its metastore service and warehouse)."""

    remote: str
    beside: dict[str, str]


def _start_connect_server(state_dir: Path) -> tuple[Server, Callable[[], None]]:
    """A Spark Connect server (bin/spark-connect-server) on a fresh warehouse and metastore in
    state_dir, and how to stop it."""
    shutil.rmtree(state_dir, ignore_errors=True)
    port = free_port()
    env = os.environ | {
        "CDC_SPARK_STATE_DIR": str(state_dir),
        "CDC_CONNECT_PORT": str(port),
        "CDC_SPARK_CLASS_SHARING": CLASS_SHARING,
        # the metastore service, whatever the caller's environment says: the kill test's runs in
        # the dbt process share the server's tables through it
        "CDC_METASTORE": "service",
    }
    server = str(PROJECT_DIR / "bin" / "spark-connect-server")
    started = subprocess.run([server, "start"], env=env, check=True, capture_output=True, text=True)
    print(started.stdout, end="")
    # "Hive metastore service: CDC_METASTORE_URIS=thrift://... CDC_SPARK_STATE_DIR=..."
    service = started.stdout.split("Hive metastore service:", 1)[1].split()
    beside = dict(setting.split("=", 1) for setting in service)

    def stop() -> None:
        subprocess.run([server, "stop"], env=env, check=False)

    return Server(f"sc://127.0.0.1:{port}", beside), stop


# The end-to-end modules, longest first. bin/test gives pytest-xdist's two workers whole modules
# in the order of collection (--dist loadfile --no-loadscope-reorder); handed out longest first,
# the last to start are short, and neither worker waits long for the other at the end. xdist's
# own order (most tests first) started test_killed_runs, one test of 196-267 s, near the end:
# a CI run of 8439109 had 1,870 s of tests on two workers and took 1,029 s; its durations
# replayed longest first end at 950 s (benchmark/replay_test_schedule.py, which also says when
# to change this list). Seconds per module in the fresh-clone CI runs of 7e3257f and 8439109
# (2026-12-06), which move by 20-50 % between runs.
MODULES_LONGEST_FIRST = [
    "test_sample_landing.py",  # 579, 557
    "test_batch_split.py",  # 269, 266
    "test_killed_runs.py",  # 196, 267
    "test_corpus.py",  # 199, 143
    "test_dbt_unit_tests.py",  # 96, 148
    "test_runs_with_nothing_to_do.py",  # 104, 102
    "test_bad_records.py",  # 75, 91
    "test_plain_dbt_run.py",  # 91, 72
    "test_shared_table_names.py",  # 83 (3759cda)
    "test_python_helpers.py",  # 70, 68
    "test_yaml_mistakes.py",  # 31, 45
    "test_staging_contract_drift.py",  # 28 (3759cda)
    "test_incremental_deletes.py",  # 39, 36
    "test_shard_merging.py",  # 33, 34
    "test_odd_names.py",  # 18, 21
    "test_demo_progress.py",  # 15, 18
]


def module_place(module_name: str) -> int:
    """Where a test module (its file name) runs: its place in MODULES_LONGEST_FIRST, and before
    all of them when it is not listed (the python_udfs unit tests, a new module)."""
    return MODULES_LONGEST_FIRST.index(module_name) if module_name in MODULES_LONGEST_FIRST else -1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Orders the collected tests by module (module_place). The order within a module stays."""
    items.sort(key=lambda item: module_place(item.path.name))


SHARED_SERVER = pytest.StashKey[Server]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller, before it starts each worker: one Spark Connect server for all
    workers (.spark-test/shared), stopped when the run ends. The workers' dbt runs share its
    JVM, whose compiled code a second server would compile again (with a server per worker,
    each worker's first build took 224-228 s and a later one 75-82 s, 2026-11-26)."""
    config = node.config
    if SHARED_SERVER not in config.stash:
        server, stop = _start_connect_server(PROJECT_DIR / ".spark-test" / "shared")
        config.add_cleanup(stop)
        config.stash[SHARED_SERVER] = server
    node.workerinput["cdc_spark_server"] = json.dumps(vars(config.stash[SHARED_SERVER]))


@pytest.fixture(scope="session")
def spark_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """The Spark Connect server of the whole run: the controller's under pytest-xdist, else one
    of this session's own. Each worker's own state (.spark-test/<worker>) starts empty."""
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    shared = getattr(request.config, "workerinput", {}).get("cdc_spark_server")
    if shared is not None:
        yield Server(**json.loads(shared))
        return
    server, stop = _start_connect_server(STATE_DIR)
    try:
        yield server
    finally:
        stop()


@pytest.fixture(scope="session")
def spark_remote(spark_server: Server) -> str:
    return spark_server.remote


@pytest.fixture
def spark(spark_remote: str) -> Iterator[SparkSession]:
    """A new client session per test: its table cache cannot hold files dbt has since replaced."""
    with client_session(spark_remote) as session:
        yield session


@contextmanager
def client_session(spark_remote: str) -> Iterator[SparkSession]:
    """A new Spark Connect client session, stopped on leaving (for a module fixture, which
    cannot use the per-test `spark`)."""
    session = SparkSession.builder.remote(spark_remote).create()
    try:
        yield session
    finally:
        session.stop()


def classic_spark_environment() -> dict[str, str]:
    """This process's environment for a child that starts a classic Spark driver (dbt with Spark
    in-process, bin/cluster, a client of another server): PySpark marks this process as a Connect
    client (SPARK_CONNECT_MODE_ENABLED) once a test opened a session, and a child must not
    inherit that, nor the session's SPARK_REMOTE."""
    return {
        name: value
        for name, value in os.environ.items()
        if name not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
    }


@dataclass
class Dbt:
    """Runs the project's dbt against the session's Spark Connect server."""

    server: Server

    def invocation(
        self,
        *args: str,
        schema: str,
        landing_root: Path,
        extra_vars: dict[str, Any] | None = None,
        in_process_state_dir: Path | None = None,
        in_process_beside_server: bool = False,
        project_dir: Path = PROJECT_DIR,
        thrift_port: int | None = None,
        code_generation: str | None = None,
    ) -> tuple[list[str], dict[str, str]]:
        """The dbt command line and environment: through the Connect server; with Spark in the
        dbt process (the `local` target, as bin/demo runs) on its own warehouse when
        in_process_state_dir is given, or on the server's warehouse and metastore service when
        in_process_beside_server is set; or through a Spark Thrift Server on 127.0.0.1 (the
        `cluster` target) when thrift_port is given. An in-process run compiles with C1 only
        (QUICK_JIT_OPTIONS) unless CDC_SPARK_JAVA_OPTIONS is set. code_generation ("generated"
        or "interpreted") is CDC_SPARK_CODEGEN: without it the plugin chooses by the landing's
        size, and the tests' landings are small enough to be interpreted (dbt_cdc_udfs.small_runs)."""
        target = {"CDC_TARGET": "connect", "SPARK_REMOTE": self.server.remote}
        if in_process_state_dir is not None:
            target = {"CDC_TARGET": "local", "CDC_SPARK_STATE_DIR": str(in_process_state_dir)}
        if in_process_beside_server:
            target = {"CDC_TARGET": "local", **self.server.beside}
        if thrift_port is not None:
            target = {
                "CDC_TARGET": "cluster",
                "CDC_THRIFT_HOST": "127.0.0.1",
                "CDC_THRIFT_PORT": str(thrift_port),
            }
        if target["CDC_TARGET"] == "local" and "CDC_SPARK_JAVA_OPTIONS" not in os.environ:
            # chosen here, not by the plugin's rule for a small landing (dbt_cdc_udfs.small_runs)
            target["CDC_SPARK_JAVA_OPTIONS"] = QUICK_JIT_OPTIONS
        if code_generation is not None:
            target["CDC_SPARK_CODEGEN"] = code_generation
        env = (
            classic_spark_environment()
            | target
            | {
                "CDC_SCHEMA": schema,
                "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
                "DBT_TARGET_PATH": str(target_dir(schema, project_dir)),
                "DBT_LOG_PATH": str(project_dir / "logs" / TARGET_NAME),
                "CDC_SPARK_CLASS_SHARING": CLASS_SHARING,
                # dbt-spark's session method asks for Hive support, a static config the server already has.
                "PYTHONWARNINGS": "ignore:Failed to set spark.sql.catalogImplementation:UserWarning",
            }
        )
        dbt_vars = {"cdc_landing_root": str(landing_root), **(extra_vars or {})}
        command = [str(PROJECT_DIR / ".venv" / "bin" / "dbt"), *args, "--vars", json.dumps(dbt_vars)]
        return command, env

    def run(
        self,
        *args: str,
        schema: str,
        landing_root: Path,
        extra_vars: dict[str, Any] | None = None,
        check: bool = True,
        in_process_state_dir: Path | None = None,
        project_dir: Path = PROJECT_DIR,
        thrift_port: int | None = None,
        code_generation: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Runs dbt to its end (see invocation); fails the test when dbt fails and check is set."""
        command, env = self.invocation(
            *args,
            schema=schema,
            landing_root=landing_root,
            extra_vars=extra_vars,
            in_process_state_dir=in_process_state_dir,
            project_dir=project_dir,
            thrift_port=thrift_port,
            code_generation=code_generation,
        )
        try:
            result = subprocess.run(
                command, cwd=project_dir, env=env, capture_output=True, text=True, timeout=DBT_RUN_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as timeout:
            # (TimeoutExpired keeps the output as bytes even with text=True)
            output = "".join(
                part.decode(errors="replace") if isinstance(part, bytes) else part
                for part in (timeout.stdout, timeout.stderr)
                if part
            )
            # through the Connect server, the likely cause is the server; otherwise dbt's own output says
            suspect = (
                f" is the Spark Connect server ({self.server.remote}) still up? (its log: .spark-test/*/logs/)"
                if env["CDC_TARGET"] == "connect"
                else f" (target {env['CDC_TARGET']})"
            )
            pytest.fail(
                f"dbt {' '.join(args)} still ran after {DBT_RUN_TIMEOUT_S} s and was stopped:{suspect}\n"
                + "\n".join(output.splitlines()[-60:])
            )
        if check and result.returncode != 0:
            pytest.fail(
                f"dbt {' '.join(args)} failed (exit {result.returncode}):\n"
                + "\n".join((result.stdout + result.stderr).splitlines()[-60:])
            )
        return result


@pytest.fixture(scope="session")
def dbt(spark_server: Server) -> Dbt:
    return Dbt(spark_server)


def table_partitions(spark: SparkSession, relation: str) -> list[str]:
    """The partitions Spark has registered for a table, as it names them (`_cdc_batch=3`), sorted."""
    return sorted(row[0] for row in spark.sql(f"show partitions {relation}").collect())


def text_cast_query(spark: SparkSession, query: str) -> str:
    """The query with every value cast to Spark's own string form, bytes as hex (null stays null)."""
    fields = spark.sql(query).schema.fields
    quoted = [(f"`{field.name.replace('`', '``')}`", field.dataType.typeName()) for field in fields]
    columns = ", ".join(
        f"hex({name}) as {name}" if type_name == "binary" else f"cast({name} as string) as {name}"
        for name, type_name in quoted
    )
    return f"select {columns} from ({query}) as rows_under_test"


def rows_as_text(spark: SparkSession, query: str) -> list[tuple[str | None, ...]]:
    """The query's rows with every value as Spark's own string cast, bytes as hex (null stays None)."""
    return [tuple(row) for row in spark.sql(text_cast_query(spark, query)).collect()]


def table_rows(
    spark: SparkSession, schema: str, table: str, columns: Sequence[str], order_by: Sequence[str]
) -> list[tuple[str | None, ...]]:
    """Selected columns of a current-state table, as text, in key order (re-listing its files first)."""
    spark.sql(f"refresh table {schema}_marts.{table}")
    return rows_as_text(
        spark,
        f"select {', '.join(columns)} from {schema}_marts.{table} order by {', '.join(order_by)}",
    )


def mysql_change(
    op: str,
    database: str,
    table: str,
    image: dict[str, object],
    position: int,
    ts_ms: int | None = None,
) -> dict[str, object]:
    """A bare Debezium MySQL change (op c, u or d) of one row image, at binlog position
    `position` of one binlog file; its commit time is ts_ms (default: derived from the position)."""
    commit_ms = 1_700_000_000_000 + position if ts_ms is None else ts_ms
    return {
        "before": image if op == "d" else None,
        "after": None if op == "d" else image,
        "source": {
            "connector": "mysql",
            "db": database,
            "table": table,
            "file": "mysql-bin.000001",
            "pos": position,
            "row": 0,
            "ts_ms": commit_ms,
        },
        "op": op,
        "ts_ms": commit_ms,
    }


def land_files(landing_root: Path, folder: str, files: Sequence[Path]) -> None:
    """Copies files into <landing_root>/<folder>/ as newly landed (fresh modification times)."""
    target = landing_root / folder
    target.mkdir(parents=True, exist_ok=True)
    for file in files:
        shutil.copyfile(file, target / file.name)


def land_debezium_lines(landing_root: Path, name: str, lines: Sequence[str]) -> None:
    """Lands one file `name` of Debezium JSON lines (one message per line) in the json_lines landing."""
    folder = landing_root / "debezium" / "json_lines"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(f"{line}\n" for line in lines))


def land_kafka_records(
    landing_root: Path,
    folder: str,
    file_name: str,
    topic: str,
    records: Sequence[tuple[str | None, str | None]],
    first_offset: int = 0,
) -> None:
    """Writes (key, value) JSON texts as one Parquet file of Kafka records (value None = tombstone)."""
    target = landing_root / folder
    target.mkdir(parents=True, exist_ok=True)
    timestamp = datetime(2024, 1, 1, tzinfo=UTC)
    table = pa.Table.from_pylist(
        [
            {
                "key": key.encode() if key is not None else None,
                "value": value.encode() if value is not None else None,
                "topic": topic,
                "partition": 0,
                "offset": first_offset + index,
                "timestamp": timestamp,
                "timestampType": 0,
            }
            for index, (key, value) in enumerate(records)
        ],
        schema=KAFKA_RECORD_SCHEMA,
    )
    pq.write_table(table, target / file_name)


def corpus_messages(path: Path) -> list[str]:
    """The JSON messages of a corpus file, one per line, without the licence comment that opens
    the Paimon files (test_corpus lands that too, to see it quarantined)."""
    return [line for line in path.read_text().splitlines() if line.startswith("{")]


def sample_files(folder: str) -> list[Path]:
    """The bundled sample landing files of one landing folder (hidden files excluded)."""
    return sorted(path for path in (SAMPLE_LANDING / folder).iterdir() if not path.name.startswith("."))


def copy_project(destination: Path) -> Path:
    """A copy of the project's dbt files in `destination` (created), for a test that declares
    more tables without touching the project: models, macros, seeds and the dbt tests, not the
    e2e tests, the venv or build output."""
    destination.mkdir(parents=True)
    for name in ("dbt_project.yml", "models", "macros", "seeds", "tests"):
        source = PROJECT_DIR / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("e2e", "__pycache__"))
        else:
            shutil.copyfile(source, destination / name)
    return destination

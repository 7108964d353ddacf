"""A `dbt run` or `dbt build` with nothing to do starts no Spark.

When a run or build on Spark inside the dbt process (the `local` profile) succeeds, the plugin
records a fingerprint of what it read and left: the landed files, the project's files, the
command (its selection, vars and target), the profile, and the files of the warehouse and of the
metastore. The next run or build of the same command whose fingerprint is the same would find
nothing new in any model: every staging model's landing holds only files it has ingested, and
every table has seen every staged record. It returns at once instead, with no node run, says so,
and writes an empty run_results.json. Anything that differs runs as always: a file landed or
touched, a model edited, a table written or dropped, another selection or vars, `--full-refresh`.

A JVM, a metastore client and the start hook's statements cost 15-25 s on a 2-core machine for a
run that then does nothing (README, "Performance"); listing the files costs milliseconds.

Only the in-process session is checked: a Spark Connect server, a Thrift server or a metastore
service may change the tables without this process knowing, and their warehouse may not be a
local folder. The var `cdc_skip_unchanged_runs: false` turns the check off.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

RECORD_FILE = "cdc_last_successful_run.json"
SWITCH_VAR = "cdc_skip_unchanged_runs"
_COMMANDS = frozenset(["run", "build"])
_MARK = "_cdc_unchanged_runs_skipped"
# statuses of a run whose every node did what it should (warn: a data test that warns)
_SUCCESSFUL = frozenset(["success", "pass", "warn"])
# The project files a run reads, besides its paths (model-paths, macro-paths, ...)
_PROJECT_FILES = ("dbt_project.yml", "packages.yml", "dependencies.yml", "selectors.yml")
# the parts of a fingerprint: what a run reads, then what it writes
READ_PARTS = ("settings", "project", "landing")
WRITTEN_PARTS = ("warehouse", "metastore")
PARTS = (*READ_PARTS, *WRITTEN_PARTS)
# Settings that tune how Spark runs and cannot change what the SQL reads or writes. bin/demo's
# first build records Spark's class archive and its second maps it, so CDC_SPARK_CLASS_SHARING
# differs between two demos on the same state; with it in the fingerprint the second never skipped.
_TUNING_ENVIRONMENT = frozenset(
    ["CDC_SPARK_CLASS_SHARING", "CDC_SPARK_JAVA_OPTIONS", "CDC_SPARK_DRIVER_MEMORY", "CDC_SPARK_CODEGEN"]
)
# Spark settings that choose how the same SQL runs, not what it gives: the driver's memory, and
# generated code against interpreted expressions (dbt_cdc_udfs.small_runs chooses by the size of
# the landing, so that two runs of the same state may differ in them).
_TUNING_PARAMETERS = frozenset(
    ["spark.driver.memory", "spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode"]
)
# in spark.driver.extraJavaOptions: -XX: (GC, JIT, class sharing), -Xshare, heap sizes, the JVM's
# own logging (-Xlog:cds*=off comes with the archive's recording). System properties (-D..., a
# time zone for one) stay: they can change results.
_TUNING_OPTIONS = ("-XX:", "-Xshare", "-Xlog:", "-Xmn", "-Xms", "-Xmx", "-Xss")


@dataclass(frozen=True)
class RunInputs:
    """What a run of one command reads and leaves, as local paths, and the command's settings."""

    settings: dict[str, Any]
    project_root: Path
    project_paths: tuple[Path, ...]
    landing_root: Path
    warehouse: Path
    metastore: Path
    record: Path

    def fingerprint(self, parts: tuple[str, ...] = PARTS) -> dict[str, str]:
        """sha256 of the settings, and of each part's files (path, size, modification time)."""
        roots = {
            "project": self.project_paths,
            "landing": (self.landing_root,),
            "warehouse": (self.warehouse,),
            "metastore": (self.metastore,),
        }
        digests = {}
        for part in parts:
            digest = hashlib.sha256()
            if part == "settings":
                digest.update(json.dumps(self.settings, sort_keys=True, default=str).encode())
            for path in roots.get(part, ()):
                for entry in _files(path, self._landed_files if part == "landing" else None):
                    digest.update(f"{entry}\n".encode())
            digests[part] = digest.hexdigest()
        return digests

    def landed_bytes(self) -> int:
        """The size of every landed file, in bytes, as the run finds them when it starts."""
        return sum(stat.st_size for _, stat in self._landed_files if stat is not None)

    @cached_property
    def _landed_files(self) -> list[tuple[str, os.stat_result | None]]:
        """The landed files and their stats, listed once for these inputs: the fingerprint and
        the landed bytes both read them (a large landing is many files to stat)."""
        return list(_file_stats(self.landing_root))


def covered_by_run(at_start: dict[str, str], at_end: dict[str, str]) -> dict[str, str]:
    """The fingerprint a successful run covers: what it read as it was when it started (a file
    that lands during the run is not covered, so the next run runs and stages it), what it wrote
    as it left it."""
    return {**{part: at_start[part] for part in READ_PARTS}, **{part: at_end[part] for part in WRITTEN_PARTS}}


def _file_stats(root: Path) -> Iterator[tuple[str, os.stat_result | None]]:
    """Each file under root (root itself when a file), with its stat; None for a file removed
    while listed. Nothing for a root that does not exist."""
    if root.is_file():
        yield str(root), root.stat()
        return
    for folder, _, names in os.walk(root, followlinks=True):
        for name in names:
            path = os.path.join(folder, name)
            try:
                stat: os.stat_result | None = os.stat(path)
            except FileNotFoundError:
                stat = None
            yield path, stat


def _files(root: Path, listed: list[tuple[str, os.stat_result | None]] | None = None) -> list[str]:
    """`path<TAB>size<TAB>mtime_ns` of each file under root (as `listed` by _file_stats, or
    listed now), sorted; a missing root is one line that says so, so that its appearance changes
    the fingerprint, and so is a file removed while listed (the fingerprint differs anyway)."""
    if not root.is_file() and not root.is_dir():
        return [f"{root}\tmissing"]
    return sorted(
        f"{path}\t{stat.st_size}\t{stat.st_mtime_ns}" if stat is not None else f"{path}\tgone"
        for path, stat in (listed if listed is not None else _file_stats(root))
    )


def landed_bytes(landing_root: Path, up_to: int | None = None) -> int:
    """The size of every file under the landing root, in bytes (0 when it does not exist). With
    up_to, counted only until the sum reaches it: a large landing is not listed to its end to
    find that it is large."""
    total = 0
    for _, stat in _file_stats(landing_root):
        total += stat.st_size if stat is not None else 0
        if up_to is not None and total >= up_to:
            break
    return total


def recorded_landed_bytes(record: Path) -> int:
    """landed_bytes when the last successful run started, from its record (0 without one)."""
    recorded = _recorded(record)
    value = recorded.get("landed_bytes") if recorded is not None else None
    return value if isinstance(value, int) else 0


def _local_path(location: str, project_root: Path) -> Path | None:
    """A local folder named by a path or a file: URI (relative to the project), else None."""
    parsed = urlparse(location)
    if parsed.scheme not in ("", "file"):
        return None
    path = Path(unquote(parsed.path) if parsed.scheme else location)
    return path if path.is_absolute() else project_root / path


def _derby_folder(connection_url: str, project_root: Path) -> Path | None:
    """The folder of an embedded Derby metastore (jdbc:derby:;databaseName=<folder>;...), else None."""
    if not connection_url.startswith("jdbc:derby:"):
        return None
    for part in connection_url.split(";"):
        if part.startswith("databaseName="):
            return _local_path(part.removeprefix("databaseName="), project_root)
    return None


def log_note(message: str, *, debug: bool = False) -> None:
    """Logs `message` as a dbt Note (shown by dbt's log formats; with debug, only under --debug)."""
    from dbt_common.events.base_types import EventLevel
    from dbt_common.events.functions import fire_event
    from dbt_common.events.types import Note

    fire_event(Note(msg=message), level=EventLevel.DEBUG if debug else EventLevel.INFO)


def server_side_parameters(credentials: Any) -> dict[str, str]:
    """The Spark settings of a dbt-spark profile (its server_side_parameters)."""
    return dict(getattr(credentials, "server_side_parameters", None) or {})


def spark_in_this_process(credentials: Any) -> bool:
    """True when the profile's Spark runs inside the dbt process: dbt-spark's `session` method
    without a Spark Connect remote (the `local` profile), not `connect` nor `thrift`."""
    method = getattr(credentials, "method", None)
    return (
        str(getattr(method, "value", method)) == "session"
        and not os.environ.get("SPARK_REMOTE")
        and "spark.remote" not in server_side_parameters(credentials)
    )


def run_inputs(flags: Any, project: Any, profile: Any) -> RunInputs | None:
    """The inputs of a dbt run or build (dbt's flags, project and profile; a task's RuntimeConfig
    is both) when the check applies to it, else None: another command, a full refresh, the
    switch var off, or Spark outside this process."""
    credentials = profile.credentials
    parameters = server_side_parameters(credentials)
    project_root = Path(project.project_root)
    project_vars = dict(project.vars.to_dict())
    cli_vars = dict(getattr(flags, "VARS", None) or {})
    switch = cli_vars.get(SWITCH_VAR, project_vars.get(SWITCH_VAR, True))
    if (
        getattr(flags, "WHICH", None) not in _COMMANDS
        or getattr(flags, "FULL_REFRESH", False)
        or switch is False
        or str(switch).lower() == "false"
        or not spark_in_this_process(credentials)
        or parameters.get("spark.hadoop.hive.metastore.uris")
    ):
        return None
    warehouse = _local_path(parameters.get("spark.sql.warehouse.dir", "spark-warehouse"), project_root)
    metastore = _derby_folder(
        parameters.get(
            "spark.hadoop.javax.jdo.option.ConnectionURL", "jdbc:derby:;databaseName=metastore_db"
        ),
        project_root,
    )
    landing_root = local_landing_root(flags, project)
    if warehouse is None or metastore is None or landing_root is None:
        return None
    # sorted, once each: docs-paths defaults to a set of the other paths, in no stable order
    folders = {
        *project.model_paths,
        *project.macro_paths,
        *project.seed_paths,
        *project.test_paths,
        *project.snapshot_paths,
        *project.analysis_paths,
        *project.docs_paths,
        project.packages_install_path,
        *_PROJECT_FILES,
    }
    profiles = Path(getattr(flags, "PROFILES_DIR", None) or project_root) / "profiles.yml"
    settings = {
        "command": flags.WHICH,
        **{
            name.lower(): getattr(flags, name, None)
            for name in ("SELECT", "EXCLUDE", "SELECTOR", "RESOURCE_TYPES", "EXCLUDE_RESOURCE_TYPES", "EMPTY")
        },
        "cli_vars": cli_vars,
        "target": profile.target_name,
        "schema": getattr(credentials, "schema", None),
        "server_side_parameters": _without_tuning(parameters),
        "environment": _project_environment(),
        # the code that runs the SQL: another dbt, adapter, Spark or helpers may read the same files differently
        "versions": {
            name: _version(name) for name in ("dbt-core", "dbt-spark", "pyspark", "cdc-python-udfs")
        },
    }
    return RunInputs(
        settings=settings,
        project_root=project_root,
        project_paths=(*(project_root / folder for folder in sorted(folders)), profiles),
        landing_root=landing_root,
        warehouse=warehouse,
        metastore=metastore,
        record=project_root / project.target_path / RECORD_FILE,
    )


def local_landing_root(flags: Any, project: Any) -> Path | None:
    """The run's landing root (var cdc_landing_root, given or the project's) as a local path,
    relative to the project; None when it is not set or not a local folder."""
    cli_vars = dict(getattr(flags, "VARS", None) or {})
    landing = cli_vars.get("cdc_landing_root", dict(project.vars.to_dict()).get("cdc_landing_root"))
    return _local_path(str(landing), Path(project.project_root)) if landing else None


def _project_environment() -> dict[str, str]:
    """The project's environment variables (CDC_*) less those that only tune the driver's JVM."""
    return {
        name: value
        for name, value in os.environ.items()
        if name.startswith("CDC_") and name not in _TUNING_ENVIRONMENT
    }


def _without_tuning(parameters: dict[str, str]) -> dict[str, str]:
    """The profile's Spark settings less those that only tune the driver's JVM."""
    kept = {name: value for name, value in parameters.items() if name not in _TUNING_PARAMETERS}
    if "spark.driver.extraJavaOptions" in kept:
        kept["spark.driver.extraJavaOptions"] = " ".join(
            option
            for option in kept["spark.driver.extraJavaOptions"].split()
            if not option.startswith(_TUNING_OPTIONS)
        )
    return kept


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _recorded(record: Path) -> dict[str, Any] | None:
    try:
        recorded = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, dict) else None


def _succeeded(result: Any) -> bool:
    """Every node of the run's result ran and did what it should (warnings allowed)."""
    results = list(getattr(result, "results", None) or [])
    return bool(results) and all(str(getattr(node, "status", "")) in _SUCCESSFUL for node in results)


def changed_parts(inputs: RunInputs) -> tuple[list[str], dict[str, str], dict[str, Any] | None]:
    """The parts of `inputs` that differ from the record of the last successful run (every
    part when there is none), their fingerprint now, and the record."""
    now = inputs.fingerprint()
    recorded = _recorded(inputs.record)
    before = recorded.get("fingerprint") if recorded is not None else None
    changed = [
        part for part, digest in now.items() if not isinstance(before, dict) or before.get(part) != digest
    ]
    return changed, now, recorded


def up_to_date(inputs: RunInputs) -> bool:
    """True when `inputs` are what the last successful run of the same command left."""
    changed, _, recorded = changed_parts(inputs)
    return recorded is not None and not changed


def install_unchanged_run_skip() -> None:
    """Wraps dbt's RunTask.run (dbt run and dbt build; once per process): a run whose inputs
    match the record of the last successful one returns at once; a successful run records them."""
    from dbt.task.run import RunTask

    original = RunTask.run
    if getattr(original, _MARK, False):
        return

    def run(self: Any) -> Any:
        inputs = run_inputs(self.args, self.config, self.config)
        if inputs is None:
            return original(self)
        landed_at_start = inputs.landed_bytes()
        changed, at_start, recorded = changed_parts(inputs)
        if recorded is not None and not changed:
            return _nothing_to_do(self, recorded)
        if recorded is not None:
            log_note(
                f"cdc: changed since the last successful run ({RECORD_FILE}): {', '.join(changed)}",
                debug=True,
            )
        inputs.record.unlink(missing_ok=True)  # what follows changes what the record describes
        result = original(self)
        if _succeeded(result):
            fingerprint = covered_by_run(at_start, inputs.fingerprint(WRITTEN_PARTS))
            _record(self, inputs, fingerprint, landed_at_start, result)
        return result

    setattr(run, _MARK, True)
    RunTask.run = run  # type: ignore[method-assign]


def _record(task: Any, inputs: RunInputs, fingerprint: dict[str, str], landed: int, result: Any) -> None:
    from dbt_common.invocation import get_invocation_id

    statuses = [str(node.status) for node in result.results]
    inputs.record.parent.mkdir(parents=True, exist_ok=True)
    inputs.record.write_text(
        json.dumps(
            {
                "fingerprint": fingerprint,
                "invocation_id": get_invocation_id(),
                "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "command": task.args.WHICH,
                "nodes": len(statuses),
                "warnings": statuses.count("warn"),
                # the landing's size when the run started (dbt_cdc_udfs.small_runs)
                "landed_bytes": landed,
            },
            indent=2,
        )
        + "\n"
    )


def _nothing_to_do(task: Any, recorded: dict[str, Any]) -> Any:
    """The result of a run with nothing to do: no node, run_results.json written as dbt writes it."""
    warnings = recorded.get("warnings") or 0
    log_note(
        "Nothing to do: nothing landed and nothing changed since the last successful\n"
        f"dbt {recorded.get('command')} ({recorded.get('finished_at')}, {recorded.get('nodes')} nodes"
        + (f", {warnings} warnings" if warnings else "")
        + "). No Spark was started.\n"
        f"To run anyway: --full-refresh, or --vars '{{{SWITCH_VAR}: false}}'."
    )
    result = task.get_result(
        results=[], elapsed_time=0.0, generated_at=datetime.now(UTC).replace(tzinfo=None)
    )
    if task.args.WRITE_JSON:
        result.write(task.result_path())
    return result

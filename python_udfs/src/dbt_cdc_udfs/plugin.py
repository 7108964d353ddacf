"""The dbt plugin itself (dbt_cdc_udfs's `plugins` lists it): it registers the cdc_udfs helpers in
the Spark sessions dbt opens, when a statement first needs them.

dbt-spark's `session` method (the `local` and `connect` profiles) runs each statement through
`Cursor.execute`, which gets its session from `SparkSession.builder.enableHiveSupport()` with
the profile's server-side parameters. The plugin wraps that method: before a statement that names a helper (a model that decodes geometry, or
the check `cdc_require_helpers`), it registers the helpers in that same session, once. A dbt
invocation that names none never imports pandas nor registers anything. So a plain `dbt run`
reaches them with no wrapper command. The `thrift` profile talks to a server that dbt does not
create: see python_udfs/README.md.

With Spark inside the dbt process (the `local` profile), the plugin also starts that session
while dbt parses the project (start_session_early), so that the JVM's start no longer waits
for the parse, nor the parse for the JVM; and a `dbt run` or `dbt build` that has nothing to do
(nothing landed or changed since the last successful run of the same command) starts no Spark
at all (unchanged_runs). A run with little newly landed starts that JVM with the JIT's first
tier only, a larger one with Spark's generated classes on the first tier only, and on every
target a run with almost nothing landed has Spark interpret its expressions instead of
generating code (small_runs).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from dbt.plugins.manager import dbtPlugin

from cdc_udfs import HELPER_NAMES
from dbt_cdc_udfs.small_runs import (
    QUICK_JIT_OPTIONS,
    TINY_LANDING_BYTES,
    as_connection_settings,
    code_generation_for_the_run,
    jit_options_for_the_run,
    newly_landed_bytes_up_to,
    with_java_options,
)
from dbt_cdc_udfs.unchanged_runs import (
    RunInputs,
    install_unchanged_run_skip,
    local_landing_root,
    log_note,
    run_inputs,
    server_side_parameters,
    spark_in_this_process,
    up_to_date,
)

_MARK = "_cdc_helpers_registered"


def dbt_spark_session(parameters: dict[str, str]) -> Any:
    """The session dbt-spark's `session` method runs a statement in: its builder
    (`SparkSession.builder.enableHiveSupport()`) with the profile's server-side parameters,
    `getOrCreate` (the existing session, or a new one)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for parameter, value in parameters.items():
        builder = builder.config(parameter, value)
    return builder.getOrCreate()


def install_statement_hook() -> None:
    """Wraps dbt-spark's session Cursor.execute (once per process) to register the helpers in
    the statement's session before the first statement that names one."""
    from dbt.adapters.spark.session import Cursor

    original = Cursor.execute
    if getattr(original, _MARK, False):
        return

    def execute(self: Any, sql: str, *parameters: Any) -> None:
        if any(name in sql for name in HELPER_NAMES):
            session = dbt_spark_session(self.server_side_parameters)
            if not getattr(session, _MARK, False):
                from cdc_udfs.registration import register_helpers

                register_helpers(session)
                setattr(session, _MARK, True)
        original(self, sql, *parameters)

    setattr(execute, _MARK, True)
    Cursor.execute = execute  # type: ignore[method-assign]


# the dbt commands that run SQL: the others (parse, ls, deps, clean, debug, docs serve) start no Spark
_COMMANDS_THAT_RUN_SQL = frozenset(
    ["build", "run", "test", "seed", "snapshot", "show", "compile", "run-operation", "generate", "freshness"]
)


@dataclass(frozen=True)
class _Command:
    """The dbt command being run, as the plugin's start-up reads it once for all its choices."""

    credentials: Any
    # a run or build on Spark in this process, which keeps a record of its last success (unchanged_runs)
    inputs: RunInputs | None
    # what the rules of code generation and of the JIT weigh: the bytes landed since that record,
    # or every landed byte without one (a full refresh reads them all); None when the landing is
    # not a local folder (small_runs.newly_landed_bytes_up_to)
    newly_landed: int | None


def _this_command() -> _Command | None:
    """The command dbt runs (flags, profile and project from click's context), or None when it
    runs no SQL."""
    import click

    context = click.get_current_context(silent=True)
    objects = context.obj if context is not None and isinstance(context.obj, dict) else {}
    flags, project, profile = objects.get("flags"), objects.get("project"), objects.get("profile")
    if getattr(flags, "WHICH", None) not in _COMMANDS_THAT_RUN_SQL or project is None or profile is None:
        return None
    inputs = run_inputs(flags, project, profile)
    landed = newly_landed_bytes_up_to(local_landing_root(flags, project), inputs)
    return _Command(profile.credentials, inputs, landed)


def choose_code_generation(command: _Command) -> None:
    """Adds the Spark settings of small_runs.code_generation_for_the_run to the profile's
    server-side parameters, which every session dbt-spark opens for the command is given (the
    in-process session, a Spark Connect session, a Thrift server's session). A wrong
    CDC_SPARK_CODEGEN stops the command with a message that says what to set."""
    from dbt_common.exceptions import DbtRuntimeError

    parameters = getattr(command.credentials, "server_side_parameters", None)
    if parameters is None:
        return
    try:
        chosen = code_generation_for_the_run(dict(parameters), command.newly_landed)
    except ValueError as wrong:
        raise DbtRuntimeError(str(wrong)) from None
    if chosen:
        method = getattr(command.credentials, "method", None)
        parameters.update(as_connection_settings(chosen, str(getattr(method, "value", method))))
        log_note(
            f"cdc_udfs: less than {TINY_LANDING_BYTES // 1024} KiB landed, or CDC_SPARK_CODEGEN=interpreted:"
            " Spark interprets expressions instead of generating code",
            debug=True,
        )


def start_session_early(command: _Command) -> None:
    """Starts dbt-spark's in-process session (the `session` method without a Spark Connect
    remote) in a background thread when dbt loads the project, with the profile's server-side
    parameters, and opens its metastore client with one `show databases`.

    dbt loads plugins before it parses the project; its first statement comes 2-3 s later and
    used to start the JVM, SparkContext and Hive metastore client only then (8.3 s on the
    benchmark's machine). dbt-spark gets its session from the same builder
    (`SparkSession.builder.enableHiveSupport()`, the profile's parameters, `getOrCreate`), whose
    lock makes dbt's first statement wait for this start instead of starting a second one.
    Anything that fails here is left for that first statement to report as it always did.
    Not when the run has nothing to do (unchanged_runs): then no Spark starts. A run with
    little newly landed gets the JIT's first tier only, a larger one Spark's generated classes on
    the first tier only (small_runs).
    """
    if not spark_in_this_process(command.credentials):
        return
    if command.inputs is not None and up_to_date(command.inputs):
        return
    parameters = server_side_parameters(command.credentials)
    chosen = jit_options_for_the_run(command.newly_landed)
    if chosen == QUICK_JIT_OPTIONS:
        log_note(
            "cdc_udfs: little landed since the last successful run (or at all, on a full refresh):"
            " the JIT's first tier only",
            debug=True,
        )
    elif chosen is not None:
        log_note("cdc_udfs: Spark's generated classes are compiled by the JIT's first tier only", debug=True)
    for_the_run = with_java_options(parameters, chosen)
    threading.Thread(
        target=_start_session,
        args=(for_the_run,),
        name="cdc-spark-start",
        daemon=True,
    ).start()


def _start_session(parameters: dict[str, str]) -> None:
    try:
        session = dbt_spark_session(parameters)
        log_note("cdc_udfs: the Spark session was started while dbt parsed the project", debug=True)
        session.sql("show databases").collect()
    except Exception:  # dbt's first statement starts the session again and reports what fails
        return


class CdcHelpersPlugin(dbtPlugin):
    """Installs the statement hook and the skip of unchanged runs, chooses between generated
    code and interpreted expressions, and starts the in-process Spark session early, when dbt
    loads the project."""

    def initialize(self) -> None:
        install_statement_hook()
        install_unchanged_run_skip()
        command = _this_command()
        if command is not None:
            choose_code_generation(command)
            start_session_early(command)

"""dbt plugin that registers the cdc_udfs helpers in the Spark sessions dbt opens, when a
statement first needs them.

dbt imports every installed module whose name starts with `dbt_` and instantiates the
`plugins` it lists when it loads a project (dbt.plugins.manager; an experimental interface of
dbt-core). dbt-spark's `session` method (the `local` and `connect` profiles) runs each
statement through `Cursor.execute`, which gets its session from
`SparkSession.builder.enableHiveSupport()` with the profile's server-side parameters. The plugin
wraps that method: before a statement that names a helper (a model that decodes geometry, or
the check `cdc_require_helpers`), it registers the helpers in that same session, once. A dbt
invocation that names none never imports pandas nor registers anything. So a plain `dbt run`
reaches them with no wrapper command. The `thrift` profile talks to a server that dbt does not
create: see python_udfs/README.md.
"""

from __future__ import annotations

from typing import Any

from dbt.plugins.manager import dbtPlugin

from cdc_udfs import HELPER_NAMES

_MARK = "_cdc_helpers_registered"


def install_statement_hook() -> None:
    """Wraps dbt-spark's session Cursor.execute (once per process) to register the helpers in
    the statement's session before the first statement that names one."""
    from dbt.adapters.spark.session import Cursor
    from pyspark.sql import SparkSession

    original = Cursor.execute
    if getattr(original, _MARK, False):
        return

    def execute(self: Any, sql: str, *parameters: Any) -> None:
        if any(name in sql for name in HELPER_NAMES):
            # the session the statement runs in: dbt-spark's own builder and parameters
            builder = SparkSession.builder.enableHiveSupport()
            for parameter, value in self.server_side_parameters.items():
                builder = builder.config(parameter, value)
            session = builder.getOrCreate()
            if not getattr(session, _MARK, False):
                from cdc_udfs.registration import register_helpers

                register_helpers(session)
                setattr(session, _MARK, True)
        original(self, sql, *parameters)

    setattr(execute, _MARK, True)
    Cursor.execute = execute  # type: ignore[method-assign]


class CdcHelpersPlugin(dbtPlugin):
    """Installs the statement hook when dbt loads the project."""

    def initialize(self) -> None:
        install_statement_hook()


plugins = [CdcHelpersPlugin]

"""dbt plugin that registers the cdc_udfs helpers in every Spark session dbt opens.

dbt imports every installed module whose name starts with `dbt_` and instantiates the
`plugins` it lists when it loads a project (dbt.plugins.manager; an experimental interface of
dbt-core). dbt-spark's `session` method (the `local` and `connect` profiles) gets its session
from `SparkSession.builder.getOrCreate()` before each statement; the plugin wraps that call so
that each session gets the helpers once, before its first statement. So a plain `dbt run`
reaches them with no wrapper command. The `thrift` profile talks to a server that dbt does not
create: see the README for registering the helpers there.
"""

from __future__ import annotations

from typing import Any

from dbt.plugins.manager import dbtPlugin
from pyspark.sql.session import SparkSession

from cdc_udfs import register_helpers

_MARK = "_cdc_helpers_registered"


def install_session_hook() -> None:
    """Wraps SparkSession.Builder.getOrCreate (once per process) to register the helpers."""
    builder_class: Any = SparkSession.Builder
    original = builder_class.getOrCreate
    if getattr(original, _MARK, False):
        return

    def get_or_create(self: Any) -> SparkSession:
        session = original(self)
        if not getattr(session, _MARK, False):
            register_helpers(session)
            setattr(session, _MARK, True)
        return session

    setattr(get_or_create, _MARK, True)
    builder_class.getOrCreate = get_or_create


class CdcHelpersPlugin(dbtPlugin):
    """Installs the session hook when dbt loads the project."""

    def initialize(self) -> None:
        install_session_hook()


plugins = [CdcHelpersPlugin]

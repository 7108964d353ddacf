"""dbt plugin that registers the cdc_udfs helpers in the Spark sessions dbt opens, and decides
how each run starts Spark (dbt_cdc_udfs.plugin).

dbt imports every installed module whose name starts with `dbt_` and instantiates the
`plugins` it lists when it loads a project (dbt.plugins.manager; an experimental interface of
dbt-core). The plugin's module imports dbt (about 1 s), so it is imported only when dbt asks
for `plugins`: a script that only reads a setting of a submodule (bin/demo reads
small_runs.QUICK_JIT_OPTIONS) imports no dbt.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`plugins`, the list dbt reads, imported on first access (PEP 562)."""
    if name == "plugins":
        from dbt_cdc_udfs.plugin import CdcHelpersPlugin

        return [CdcHelpersPlugin]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

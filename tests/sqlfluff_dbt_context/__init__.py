"""The dbt context sqlfluff's jinja templater renders the project with (see .sqlfluff).

Linting renders models without Spark: `execute` is false, as in dbt's own parse phase, so
the project's macros skip every query and the registry is empty. sqlfluff's dbt builtins
supply ref, source, config, var, is_incremental and this.
"""

from __future__ import annotations

import datetime as _datetime
import re as _re
from types import SimpleNamespace
from typing import Any, NoReturn


def _raise_compiler_error(message: str) -> NoReturn:
    raise RuntimeError(message)


def _env_var(name: str, default: str = "") -> str:
    return default


def _print(*_: Any) -> str:
    return ""


execute = False
project_name = "cdc_lakehouse"
graph: dict[str, dict[str, Any]] = {"nodes": {}, "sources": {}}
model = SimpleNamespace(name="this_model", config={})
run_started_at = _datetime.datetime(2024, 1, 1, tzinfo=_datetime.UTC)
modules = SimpleNamespace(re=_re, datetime=_datetime)
exceptions = SimpleNamespace(raise_compiler_error=_raise_compiler_error, warn=_print)
target = SimpleNamespace(name="lint", schema="cdc", type="spark")
env_var = _env_var
log = _print
print = _print

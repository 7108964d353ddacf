"""dbt finds the plugin through the package's `plugins` (dbt_cdc_udfs/__init__.py), which imports
the plugin's module, and with it dbt, only when asked: bin/demo reads a setting of
dbt_cdc_udfs.small_runs without importing dbt."""

from __future__ import annotations

import subprocess
import sys

import pytest
from dbt.plugins.manager import dbtPlugin


def test_a_submodule_imports_without_dbt() -> None:
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from dbt_cdc_udfs.small_runs import QUICK_JIT_OPTIONS;"
            " print(sorted(name for name in sys.modules if name == 'dbt' or name.startswith('dbt.')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "[]", imported.stdout


def test_dbt_finds_the_plugin() -> None:
    import dbt_cdc_udfs
    from dbt_cdc_udfs.plugin import CdcHelpersPlugin

    assert dbt_cdc_udfs.plugins == [CdcHelpersPlugin]
    assert issubclass(CdcHelpersPlugin, dbtPlugin)
    with pytest.raises(AttributeError, match="no attribute 'plugin_list'"):
        _ = dbt_cdc_udfs.plugin_list

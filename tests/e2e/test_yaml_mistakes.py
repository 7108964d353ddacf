"""A mistake in the marts' YAML stops a run before any model runs, and says which model, what
was given and what was expected. Each mistake is declared in a copy of the project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Dbt, copy_project

SCHEMA = "it_yaml_mistakes"


def mart_yaml(columns: list[dict[str, Any]], keys: list[str], source: Any = None) -> dict[str, Any]:
    source = source if source is not None else {"database": "shop", "table": "items"}
    return {
        "version": 2,
        "models": [
            {
                "name": "mistaken__items",
                "description": "A table declared with a mistake.",
                "config": {"meta": {"cdc": {"source": source, "keys": keys}}},
                "columns": columns,
            }
        ],
    }


MISTAKES = {
    "unknown_type": (
        mart_yaml([{"name": "id", "data_type": "int"}, {"name": "price", "data_type": "money"}], ["id"]),
        ["column 'price'", "data_type 'money' is not supported", "expected one of"],
    ),
    "key_not_a_column": (
        mart_yaml([{"name": "id", "data_type": "int"}], ["item_id"]),
        ["key column 'item_id' is not among the declared columns id"],
    ),
    "encoding_that_does_not_fit": (
        mart_yaml(
            [
                {"name": "id", "data_type": "int"},
                {"name": "name", "data_type": "string", "config": {"meta": {"cdc_encoding": "epoch_millis"}}},
            ],
            ["id"],
        ),
        ["column 'name'", "cdc_encoding 'epoch_millis' does not apply to string"],
    ),
    "source_with_table_and_pattern": (
        mart_yaml(
            [{"name": "id", "data_type": "int"}],
            ["id"],
            [{"database": "shop", "table": "items"}, {"table": "items_0", "table_pattern": "items_\\d+"}],
        ),
        [
            "needs exactly one of table and table_pattern",
            "table_pattern / database_pattern (regular expressions)",
        ],
    ),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_yaml_mistake_stops_the_run_before_any_model(dbt: Dbt, tmp_path: Path, mistake: str) -> None:
    project = copy_project(tmp_path / "project")
    marts = project / "models" / "marts" / "mistaken"
    marts.mkdir(parents=True)
    declaration, expected_phrases = MISTAKES[mistake]
    (marts / "_mistaken__models.yml").write_text(json.dumps(declaration))
    (marts / "mistaken__items.sql").write_text("{{ cdc_current_state() }}\n")

    result = dbt.run(
        "run", schema=SCHEMA, landing_root=tmp_path / "landing", project_dir=project, check=False
    )
    output = result.stdout + result.stderr

    assert result.returncode != 0, f"the run must fail on the {mistake}:\n{output[-3000:]}"
    for phrase in ["model 'mistaken__items'", *expected_phrases]:
        assert phrase in output, f"the error names {phrase!r}:\n{output[-3000:]}"
    assert "START sql" not in output, f"no model may start before the registry is checked:\n{output[-3000:]}"

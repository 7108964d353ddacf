"""Runs dbt commands one after the other in one Python process, so that they share its Spark
session: with the `local` target, Spark runs inside this process, and a second `dbt` command
would start a second JVM and plan its first queries cold. bin/demo runs its build and its look
at the result (`run-operation cdc_show_current_state`) this way: the look took 4.2 s after the
build instead of 18.4 s on its own (the demo's warehouse, 2026-11-25).

    python bin/dbt_sequence.py --log-format json build --select x -- run-operation cdc_show_current_state

The commands are separated by `--`; each is what would follow `dbt` on the command line. Stops
at the first command that does not succeed. Exit status as dbt's: 0 if every command
succeeded, 1 if one failed, 2 if dbt could not run it.
"""

from __future__ import annotations

import sys

from dbt.cli.main import dbtRunner

SEPARATOR = "--"


def commands_of(argv: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for arg in argv:
        if arg == SEPARATOR:
            commands.append([])
        else:
            commands[-1].append(arg)
    if any(not command for command in commands):
        raise SystemExit(
            f"dbt_sequence.py: an empty command in {argv}; expected dbt commands separated by {SEPARATOR}"
        )
    return commands


def main(argv: list[str]) -> int:
    for command in commands_of(argv):
        result = dbtRunner().invoke(command)
        if result.exception is not None:  # dbt has logged it
            return 2
        if not result.success:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A run with little newly landed compiles with the JIT's first tier only, a larger run compiles
Spark's generated classes with the first tier only, and a run with almost nothing landed
interprets its expressions instead of generating code for them.

A `dbt run` or `dbt build` starts a new JVM that meets every statement for the first time. On
a small increment most of the run is that warm-up, and HotSpot's second JIT tier (C2) spends
about as much CPU compiling as the run spends working, on a two-core machine beside the work.
On a large landing C2's faster code pays: the benchmark's full build ran at 0.12x the hand fold
with the first tier only against 0.18x with both (README, "Small runs").

So when the files under the landing root total less than SMALL_LANDING_BYTES more than when the
last successful run started (dbt_cdc_udfs.unchanged_runs records it; with no record every landed
byte is new, as on a full refresh), the plugin starts the in-process JVM with QUICK_JIT_OPTIONS after the profile's
options. Any other run it starts with GENERATED_CODE_ON_FIRST_TIER_OPTIONS: both tiers, but the
classes Spark generates for each statement (COMPILER_DIRECTIVES) are compiled by C1 alone. C2
spent 1-2 s of a core on each of their largest methods, for statements that run once; a method
C2 may not compile goes from C1's profiling code to C1's optimised code instead. The benchmark's
full build (1.1M events, 2026-12-06, three runs each, alternated): 71.9 s instead of 76.5 s of
dbt's elapsed time, 124 CPU s of the JVM instead of 134, C2's own 27 s instead of 36 s, the
peak 40-60 MiB lower (docs/performance_log.md). Only when the JIT is not chosen already: a set
`CDC_SPARK_JAVA_OPTIONS` (bin/demo and the tests set it; set it to "" for the profile's
default) is the choice of who runs.

Generated code: for each statement Spark writes Java for its expressions and compiles it with
Janino, then HotSpot compiles that again; on a few hundred records that costs more than
evaluating them. When the landing's files total less than TINY_LANDING_BYTES more than when the
last successful run started (every landed byte with no record, on a full refresh, or through
a Spark Connect or Thrift server), the run's session gets INTERPRETED_EXPRESSIONS, on every
target whose landing is a local folder. Spark's own SQL tests run both ways, and results are the
same; from some ten thousand records on generated code pays (staging's insert of the benchmark's
+1%, 10,263 events, took 8.39 s interpreted against 5.19 s; docs/performance_log.md,
2026-11-25). `CDC_SPARK_CODEGEN=generated` or `interpreted`, or either setting in the profile,
is the choice of who runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from dbt_cdc_udfs.unchanged_runs import RunInputs, landed_bytes, recorded_landed_bytes

QUICK_JIT_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"
# The benchmark's runs from one state, alternated (2026-11-29): +1% (7.2 MB of Debezium JSON)
# 35.5/36.8 s with the first tier only against 37.9/42.2 s with both, +10% (70.8 MB) 52.1/56.8 s
# against 64.3/53.3 s, a third less CPU each; the full build (697 MB) ran a third slower with
# the first tier only, and a first build of 272 MB 9-15 % slower. The bound is near the lower end.
SMALL_LANDING_BYTES = 96 * 1024 * 1024
# HotSpot reads the file when the JVM starts (a missing one stops it): shipped with this package,
# named by its absolute path, so that it is found from any working folder.
COMPILER_DIRECTIVES = Path(__file__).resolve().with_name("compiler_directives.json")
GENERATED_CODE_ON_FIRST_TIER_OPTIONS = (
    f"-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile={COMPILER_DIRECTIVES}"
)
JIT_CHOICE_ENVIRONMENT = "CDC_SPARK_JAVA_OPTIONS"
_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def newly_landed_bytes(inputs: RunInputs) -> int:
    """Bytes landed since the last successful run started (every landed byte when none is recorded)."""
    return max(0, inputs.landed_bytes() - recorded_landed_bytes(inputs.record))


def jit_options_for_the_run(newly_landed: int | None) -> str | None:
    """The JIT options the plugin adds to the profile's for the run's JVM (see the module):
    QUICK_JIT_OPTIONS when less than SMALL_LANDING_BYTES landed since the last successful run
    started (newly_landed: newly_landed_bytes_up_to; without a record, as on a full refresh,
    every landed byte), else GENERATED_CODE_ON_FIRST_TIER_OPTIONS (also
    with newly_landed None: a landing that is not a local folder); None when who runs chose
    with CDC_SPARK_JAVA_OPTIONS."""
    if JIT_CHOICE_ENVIRONMENT in os.environ:
        return None
    if newly_landed is not None and newly_landed < SMALL_LANDING_BYTES:
        return QUICK_JIT_OPTIONS
    return GENERATED_CODE_ON_FIRST_TIER_OPTIONS


def with_jit_for_the_run(parameters: dict[str, str], newly_landed: int | None) -> dict[str, str]:
    """The profile's Spark settings for the run's JVM: with jit_options_for_the_run's options
    after the driver's Java options, or as they are when it chooses none."""
    return with_java_options(parameters, jit_options_for_the_run(newly_landed))


def with_java_options(parameters: dict[str, str], options: str | None) -> dict[str, str]:
    """The Spark settings `parameters` with `options` after the driver's Java options; as they
    are when options is None."""
    if options is None:
        return parameters
    combined = f"{parameters.get(_JAVA_OPTIONS, '')} {options}".strip()
    return {**parameters, _JAVA_OPTIONS: combined}


# Sample builds alternated from one state (2026-12-05, the sample landing, 296 KB): in a new JVM
# in the dbt process 75.0 and 70.7 s against 84.5 and 90.4 s; through a warm Spark Connect
# server 44.7 and 41.7 s (48 and 39 CPU s of the server) against 49.3 and 47.1 s (52 and 48).
TINY_LANDING_BYTES = 1024 * 1024
INTERPRETED_EXPRESSIONS = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}
CODE_GENERATION_CHOICE_ENVIRONMENT = "CDC_SPARK_CODEGEN"
_CHOICES = ("generated", "interpreted")
# A Spark Thrift Server applies to the session it opens only the settings named so (Hive's
# session configuration); dbt-spark's `session` method sets each one as it is named.
_THRIFT_SESSION_SETTING = "set:hiveconf:"


def newly_landed_bytes_up_to(landing_root: Path | None, inputs: RunInputs | None) -> int | None:
    """What both rules compare the run's newly landed bytes with their bound by
    (TINY_LANDING_BYTES for the code, SMALL_LANDING_BYTES for the JIT): those since the last
    successful run started when the run keeps a record (inputs), else every landed byte (a full
    refresh reads them all), counted up to the larger bound, which is as exact as either rule
    needs; None when the landing root is not a local folder (the landing may then be anywhere,
    of any size)."""
    if inputs is not None:
        return newly_landed_bytes(inputs)
    if landing_root is None or not landing_root.is_dir():
        return None
    return landed_bytes(landing_root, up_to=max(TINY_LANDING_BYTES, SMALL_LANDING_BYTES))


def code_generation_for_the_run(parameters: dict[str, str], newly_landed: int | None) -> dict[str, str]:
    """The Spark settings to add to the profile's for the run: INTERPRETED_EXPRESSIONS when less
    than TINY_LANDING_BYTES landed (newly_landed, None when unknown) or who runs chose it with
    CDC_SPARK_CODEGEN=interpreted; nothing when the profile sets either setting itself or
    CDC_SPARK_CODEGEN=generated. Any other CDC_SPARK_CODEGEN is a ValueError that says what to set.
    The settings are named as dbt-spark's `session` method passes them (see as_connection_settings)."""
    choice = os.environ.get(CODE_GENERATION_CHOICE_ENVIRONMENT, "").strip().lower()
    if choice and choice not in _CHOICES:
        raise ValueError(
            f"{CODE_GENERATION_CHOICE_ENVIRONMENT} is {os.environ[CODE_GENERATION_CHOICE_ENVIRONMENT]!r}:"
            f" set it to {' or '.join(_CHOICES)}, or unset it to let the size of the landing decide"
        )
    chosen_by_profile = any(
        name in parameters or f"{_THRIFT_SESSION_SETTING}{name}" in parameters
        for name in INTERPRETED_EXPRESSIONS
    )
    if chosen_by_profile or choice == "generated":
        return {}
    if choice == "interpreted" or (newly_landed is not None and newly_landed < TINY_LANDING_BYTES):
        return dict(INTERPRETED_EXPRESSIONS)
    return {}


def as_connection_settings(settings: dict[str, str], method: str) -> dict[str, str]:
    """Spark settings as dbt-spark's connection `method` must name them for the session it opens
    to have them: as they are for `session` (in-process, Spark Connect), prefixed with
    set:hiveconf: for a Thrift server (`thrift`, `http`)."""
    if method in ("thrift", "http"):
        return {f"{_THRIFT_SESSION_SETTING}{name}": value for name, value in settings.items()}
    return dict(settings)

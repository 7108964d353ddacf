"""A run with little newly landed compiles with the JIT's first tier only.

A `dbt run` or `dbt build` starts a new JVM that meets every statement for the first time. On
a small increment most of the run is that warm-up, and HotSpot's second JIT tier (C2) spends
about as much CPU compiling as the run spends working, on a two-core machine beside the work.
On a large landing C2's faster code pays: the benchmark's full build ran at 0.12x the hand fold
with the first tier only against 0.18x with both (README, "Small runs").

So when the files under the landing root total less than SMALL_LANDING_BYTES more than when the
last successful run started (dbt_cdc_udfs.unchanged_runs records it; with no record every landed
byte is new), the plugin starts the in-process JVM with QUICK_JIT_OPTIONS after the profile's
options. Only when the JIT is not chosen already: a set `CDC_SPARK_JAVA_OPTIONS` (bin/demo and
the tests set it; set it to "" for the profile's default) is the choice of who runs.
"""

from __future__ import annotations

import os

from dbt_cdc_udfs.unchanged_runs import RunInputs, landed_bytes, recorded_landed_bytes

QUICK_JIT_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"
# The benchmark's runs from one state, alternated (2026-11-29): +1% (7.2 MB of Debezium JSON)
# 35.5/36.8 s with the first tier only against 37.9/42.2 s with both, +10% (70.8 MB) 52.1/56.8 s
# against 64.3/53.3 s, a third less CPU each; the full build (697 MB) ran a third slower with
# the first tier only, and a first build of 272 MB 9-15 % slower. The bound is near the lower end.
SMALL_LANDING_BYTES = 96 * 1024 * 1024
JIT_CHOICE_ENVIRONMENT = "CDC_SPARK_JAVA_OPTIONS"
_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def newly_landed_bytes(inputs: RunInputs) -> int:
    """Bytes landed since the last successful run started (every landed byte when none is recorded)."""
    return max(0, landed_bytes(inputs.landing_root) - recorded_landed_bytes(inputs.record))


def with_jit_for_the_run(parameters: dict[str, str], inputs: RunInputs | None) -> dict[str, str]:
    """The profile's Spark settings for the run's JVM: with QUICK_JIT_OPTIONS added to the
    driver's Java options when little landed (see the module), else as they are."""
    if inputs is None or JIT_CHOICE_ENVIRONMENT in os.environ:
        return parameters
    if newly_landed_bytes(inputs) >= SMALL_LANDING_BYTES:
        return parameters
    options = f"{parameters.get(_JAVA_OPTIONS, '')} {QUICK_JIT_OPTIONS}".strip()
    return {**parameters, _JAVA_OPTIONS: options}

"""The driver of bin/spark-connect-server and `bin/cluster up --connect`: a Spark application
whose Connect plugin serves Spark Connect, kept until its JVM stops.

    spark-submit [--conf ...] bin/spark_connect_driver.py

It starts its Spark context with the Connect plugin and room for 4,000 generated classes (Spark's
default is 100; the sample's build alone generates about 950), so the scripts that submit it
pass only the settings of their own deployment.

Why not Spark's own `SparkConnectServer` (sbin/start-connect-server.sh): its main sets
`spark.sql.artifact.isolation.alwaysApplyClassloader=true` in the root session, which every
Connect session inherits, so each session runs its statements under a class loader of its own.
Spark's cache of generated classes is keyed by that class loader, and each dbt invocation is a
new Connect session: every build compiled all of its generated code again (947 classes for the
sample's build, the third build in a row as many as the first). This driver leaves the setting
unset, and a later build reuses the classes an earlier one compiled (70 compiled instead of 949;
docs/performance_log.md, 2026-12-04, late evening).
"""

from __future__ import annotations

import time

from py4j.protocol import Py4JError
from pyspark.sql import SparkSession

CONNECT_SETTINGS = {
    "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
    "spark.sql.codegen.cache.maxEntries": "4000",
}


def main() -> None:
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in CONNECT_SETTINGS.items():  # before the context starts: both are read there
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    context = spark.sparkContext._jsc.sc()  # type: ignore[union-attr]
    # spark-submit's JVM is the driver and this process its child: when the JVM stops (bin/
    # spark-connect-server stop), the gateway goes and this process ends.
    try:
        while not context.isStopped():
            time.sleep(2)
    except (Py4JError, ConnectionError):  # the gateway went with the JVM: nothing left to serve
        return


if __name__ == "__main__":
    main()

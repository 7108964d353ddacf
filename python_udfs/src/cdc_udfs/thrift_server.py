"""A Spark Thrift Server whose SQL session has the cdc_udfs helpers registered.

dbt's `cluster` profile talks to a Thrift server that dbt does not create, so the dbt plugin
cannot register the helpers there. This starts the server from a PySpark driver instead: it
builds the session (Hive support, the configuration given), registers the helpers in it, then
starts HiveThriftServer2 on that session (`startWithContext`) in single-session mode, so that
every JDBC/Thrift connection (dbt's included) shares the session and sees the helpers. The
helpers' Python runs in the Spark workers of this driver, so the workers need the package
(the Python that runs this module, or PYSPARK_PYTHON).

    python -m cdc_udfs.thrift_server --host 127.0.0.1 --port 10000 \\
        --conf spark.master=spark://127.0.0.1:7077 --conf spark.sql.warehouse.dir=/data/warehouse

Prints `listening on <host>:<port>` when the server accepts connections and runs until it is
stopped (SIGTERM or SIGINT).
"""

from __future__ import annotations

import argparse
import signal
import socket
import threading
import time

from pyspark.sql import SparkSession

from cdc_udfs.registration import register_helpers


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=10000, help="Thrift port (default 10000)")
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, as spark-submit --conf",
    )
    return parser.parse_args(argv)


def start(host: str, port: int, settings: dict[str, str]) -> SparkSession:
    """Builds the session, registers the helpers, starts the Thrift server on it."""
    builder = SparkSession.builder.appName("cdc-thrift-server").enableHiveSupport()
    for key, value in {
        **settings,
        "spark.sql.hive.thriftServer.singleSession": "true",
        "hive.server2.thrift.bind.host": host,
        "hive.server2.thrift.port": str(port),
    }.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    register_helpers(spark)
    jvm = spark._jvm  # type: ignore[attr-defined]
    jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2.startWithContext(
        spark._jsparkSession.sqlContext()  # type: ignore[attr-defined]
    )
    return spark


def wait_until_listening(host: str, port: int, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            probe.settimeout(1.0)
            if probe.connect_ex((host, port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"the Thrift server did not listen on {host}:{port} within {timeout_s:.0f} s")


def main(argv: list[str] | None = None) -> None:
    args = parse_arguments(argv)
    settings = dict(setting.split("=", 1) for setting in args.conf)
    spark = start(args.host, args.port, settings)
    wait_until_listening(args.host, args.port)
    print(f"listening on {args.host}:{args.port}", flush=True)
    stopped = threading.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signal_number, lambda *_: stopped.set())
    stopped.wait()
    spark.stop()


if __name__ == "__main__":
    main()

"""The lineage site (`dbt docs generate`) made for people, and checked in a real browser.

python bin/docs_site.py patch TARGET_DIR
    The site's graph opens on the pipeline: dbt's docs page shows every resource type by
    default, and this project's data and unit tests (over a hundred nodes) hid the models.
    Removes `test` and `unit_test` from the graph's default selection in
    TARGET_DIR/index.html; both stay in the resource filter under the graph.

python bin/docs_site.py check TARGET_DIR [--screenshot PNG] [--model NAME]
    Serves TARGET_DIR on 127.0.0.1, opens it in headless Chromium (the Debian package
    `chromium`) through the DevTools protocol, and checks that the overview page loads with
    no error in the console, that the lineage graph shows the project's models and no test,
    and that a model's page lists its columns. Prints one line per check and exits 1 when
    one fails; with --screenshot, saves the graph as a PNG.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import http.server
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import websocket  # websocket-client: the DevTools protocol is JSON over a websocket

# (dbt's code, the pipeline's) in the docs page's script: the default selection of resource
# types, and the full graph (the graph button), which starts from every type the filter offers.
PATCHES = (
    (
        'resource_types:["model","seed","snapshot","source","test","unit_test","analysis","exposure","metric",'
        '"semantic_model","saved_query","function"],depth:1}',
        'resource_types:["model","seed","snapshot","source","analysis","exposure","metric",'
        '"semantic_model","saved_query","function"],depth:1}',
    ),
    (
        'A.showFullGraph=function(e){A.orientation="fullscreen",A.expanded=!0;var t=r.assign({},l.options);',
        'A.showFullGraph=function(e){A.orientation="fullscreen",A.expanded=!0;'
        "var t=r.assign({},l.options,{resource_types:l.selection.clean.resource_types});",
    ),
)
DOCS_PAGE_GLITCHES = ("/%7B%7B%20getIcon(", "/$%7Brequire(")
GRAPH_SERVICE_JS = (
    "angular.element(document.querySelector('[ng-app]') || document.body).injector().get('graph')"
)
GRAPH_NODES_JS = """
JSON.stringify(SERVICE.graph.elements
  .filter(e => e.group === 'nodes').map(e => [e.data.resource_type, e.data.name || e.data.label]))
""".replace("SERVICE", GRAPH_SERVICE_JS)


def patch(target: Path) -> None:
    index = target / "index.html"
    html = index.read_text()
    for original, pipeline in PATCHES:
        if html.count(pipeline) == 1 and original not in html:
            continue  # patched already
        if html.count(original) != 1:
            sys.exit(
                f"{index}: dbt's docs page changed ({original[:60]}... not found once): update bin/docs_site.py"
            )
        html = html.replace(original, pipeline)
    index.write_text(html)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No request log: the checks print what matters."""


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/index.html"
    finally:
        server.shutdown()


class Browser:
    """Headless Chromium driven through the DevTools protocol, one page."""

    def __init__(self) -> None:
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            sys.exit("Chromium not found: apt-get install chromium (bin/setup does for the tests)")
        self.profile = tempfile.mkdtemp(prefix="cdc-docs-chromium-")
        port = free_port()
        self.process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1600,1000",
                f"--remote-debugging-port={port}",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        page = self._page(port)
        self.socket = websocket.create_connection(
            page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True
        )
        self.next_id = 0
        self.console_errors: list[str] = []
        self.page_glitches: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _page(self, port: int) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                    pages = [target for target in json.load(response) if target.get("type") == "page"]
                if pages:
                    return pages[0]
            time.sleep(0.2)
        raise RuntimeError("Chromium did not open its DevTools port")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self._note(message)

    def _note(self, message: dict[str, Any]) -> None:
        """Keeps what the page reports as an error: uncaught exceptions, console.error, failed loads."""
        params = message.get("params", {})
        if message.get("method") == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.console_errors.append(
                str(details.get("exception", {}).get("description") or details.get("text"))
            )
        elif message.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.console_errors.append(
                " ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"])
            )
        elif message.get("method") == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            text = f"{entry.get('text')} ({entry.get('url', '')})"
            # dbt's docs page asks for two URLs it never renders (an image src written as
            # {{ getIcon(...) }} and a favicon as ${require(...)}): its own, harmless 404s
            if any(glitch in entry.get("url", "") for glitch in DOCS_PAGE_GLITCHES):
                self.page_glitches.append(text)
            else:
                self.console_errors.append(text)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def open(self, url: str, ready_js: str, timeout: float = 60) -> None:
        """Navigates to url and waits until ready_js is true (the page's data has loaded)."""
        self.call("Page.navigate", url=url)
        self.wait_for(ready_js, timeout)

    def wait_for(self, ready_js: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):
                if self.evaluate(f"!!({ready_js})"):
                    return
            time.sleep(0.5)
        raise RuntimeError(f"not ready after {timeout:.0f} s: {ready_js}")

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=30)
        shutil.rmtree(self.profile, ignore_errors=True)


def check(target: Path, screenshot: Path | None, model: str) -> bool:
    manifest = json.loads((target / "manifest.json").read_text())
    project = manifest["metadata"]["project_name"]
    models = sorted(node["name"] for node in manifest["nodes"].values() if node["resource_type"] == "model")
    columns = list(manifest["nodes"][f"model.{project}.{model}"]["columns"])
    results: list[tuple[bool, str]] = []
    browser = Browser()
    try:
        with served(target) as url:
            browser.open(f"{url}#!/overview", "/CDC lakehouse|Welcome/.test(document.body.innerText)")
            text = browser.evaluate("document.body.innerText")
            results.append(
                (
                    "Where the quarantine is" in text and "Welcome!" not in text,
                    "the overview page is the project's own",
                )
            )

            # the graph as a person opens it: the graph button at the bottom right
            browser.evaluate("document.querySelector('[ng-click=\"onLauncherClick()\"]').click()")
            browser.wait_for(
                f"{GRAPH_SERVICE_JS}.graph.elements.length > 0 && {GRAPH_SERVICE_JS}.orientation == 'fullscreen'"
            )
            time.sleep(3)  # the layout animates
            shown = json.loads(browser.evaluate(GRAPH_NODES_JS))
            shown_models = sorted(name for kind, name in shown if kind == "model")
            tests = [name for kind, name in shown if kind in ("test", "unit_test")]
            results.append(
                (shown_models == models, f"the graph shows the {len(models)} models ({len(shown)} nodes)")
            )
            results.append((not tests, f"the graph shows no test by default ({len(tests)} shown)"))
            if screenshot:
                browser.screenshot(screenshot)

            browser.open(
                f"{url}#!/model/model.{project}.{model}",
                f"document.body.innerText.includes({json.dumps(columns[-1])})",
            )
            page_text = browser.evaluate("document.body.innerText")
            missing = [column for column in columns if column not in page_text]
            results.append(
                (not missing, f"{model}'s page lists its {len(columns)} columns (missing: {missing})")
            )
        results.append((not browser.console_errors, f"no error in the console {browser.console_errors[:5]}"))
        if browser.page_glitches:
            print(
                f"note: {len(browser.page_glitches)} requests of dbt's docs page for URLs it never renders (its own 404s)"
            )
    finally:
        browser.close()
    for passed, what in results:
        print(f"{'ok  ' if passed else 'FAIL'} {what}")
    return all(passed for passed, _ in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    patch_parser = commands.add_parser("patch", help="open the graph on the pipeline, without tests")
    patch_parser.add_argument("target", type=Path)
    check_parser = commands.add_parser("check", help="check the site in headless Chromium")
    check_parser.add_argument("target", type=Path)
    check_parser.add_argument("--screenshot", type=Path)
    check_parser.add_argument("--model", default="hr__employees")
    args = parser.parse_args(argv)
    if args.command == "patch":
        patch(args.target)
        return 0
    return 0 if check(args.target, args.screenshot, args.model) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Shared fixtures for Sesame's end-to-end tests.

Every test gets its own ``sesame serve --port 0`` process with a fresh data
directory, so tests never share users, codes, rate-limit counters or keys.

Configure the server per test with the ``sesame_env`` marker::

    @pytest.mark.sesame_env(SESAME_RATE_LIMIT_START_PER_RECIPIENT="2")
    def test_something(sesame): ...

or start extra servers with the ``sesame_factory`` fixture. The other fixtures: ``helper``
(a local SMTP server or Twilio endpoint), ``database_url`` (an empty PostgreSQL database) and
``pair`` (two instances sharing one). What tests do with a server (start a code, exchange it,
refresh, read a code from a mail) is in ``flows.py``.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from flows import SHARED_ISSUER

HERE = Path(__file__).resolve().parent
# Not resolve()d: .build/debug is a symlink that a rebuild may repoint.
DEFAULT_BIN = Path(os.path.normpath(HERE / ".." / ".." / ".build" / "debug" / "sesame"))

READY_TIMEOUT = 30.0  # seconds to wait for "ready in N ms"
BIN_WAIT = 90.0  # the binary is rebuilt now and then; wait for it to reappear
LISTEN_RE = re.compile(r"Sesame is listening on (127\.0\.0\.1):(\d+)")
ISSUER_RE = re.compile(r"^\s*issuer:\s*(\S+)\s*$")
READY_RE = re.compile(r"ready in \d+ ms")

# Every process we start, so that even an interrupted run (Ctrl-C during a
# test, where fixture teardown may not complete) leaves no server behind.
_PROCESSES: list = []


@atexit.register
def _kill_leftovers() -> None:
    for process in _PROCESSES:
        if process.poll() is None:
            process.kill()

# Defaults applied to every server unless a test overrides them: every test
# talks from 127.0.0.1, so the per-IP limit of /passwordless/start (50/h)
# would otherwise couple unrelated requests within one test.
BASE_ENV = {
    "SESAME_RATE_LIMIT_START_PER_IP": "1000",
    # The suite reads codes from the console outbox, also on servers with an https issuer,
    # which counts as public and would otherwise refuse to log codes.
    "SESAME_ALLOW_CONSOLE_DELIVERY": "true",
}


def sesame_binary() -> Path:
    """Path of the server binary: $SESAME_BIN or ../../.build/debug/sesame."""
    path = Path(os.environ.get("SESAME_BIN") or DEFAULT_BIN)
    deadline = time.monotonic() + BIN_WAIT
    while not (path.is_file() and os.access(path, os.X_OK)):
        if time.monotonic() > deadline:
            pytest.fail(f"sesame binary not found at {path} (set SESAME_BIN)")
        time.sleep(1.0)
    return path


def run_sesame(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """``sesame ARGS`` with no server: the caller's environment without its SESAME_* variables,
    plus ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    clean.update(env or {})
    return subprocess.run([str(sesame_binary()), *args], env=clean, capture_output=True, text=True, timeout=timeout)


@dataclass
class SesameServer:
    """A running ``sesame serve`` process and helpers to drive it."""

    binary: Path
    data_dir: Path
    env: dict = field(repr=False)
    process: subprocess.Popen = field(repr=False)
    host: str
    port: int
    issuer: str
    client_id: str = ""
    stdout_lines: list = field(default_factory=list, repr=False)

    # -- addresses -------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def domain(self) -> str:
        """What auth0-python calls ``domain`` (used with protocol="http")."""
        return f"{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    # -- CLI against the same data directory -----------------------------
    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run ``sesame ARGS --data-dir DIR`` with the server's environment."""
        proc = subprocess.run(
            [str(self.binary), *args, "--data-dir", str(self.data_dir)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"sesame {' '.join(args)} exited {proc.returncode}\n"
                f"stdout: {proc.stdout}\nstderr: {proc.stderr}"
            )
        return proc

    def cli_json(self, *args: str):
        """Run a CLI command with ``--json`` and parse its output."""
        return json.loads(self.cli(*args, "--json").stdout)

    def outbox(self, limit: int = 100) -> list:
        """Console-outbox messages, newest first, once nothing waits in the durable outbox
        (a start answers before the server's worker sends)."""
        self.wait_for_deliveries()
        return self.cli_json("outbox", "--limit", str(limit))

    def deliveries(self, *args: str) -> list:
        """``sesame admin deliveries list ARGS --json``: the durable outbox, newest first."""
        return self.cli_json("admin", "deliveries", "list", *args)

    def wait_for_deliveries(self, timeout: float = 10.0) -> None:
        """Waits until no delivery is pending (sent, failed or suppressed)."""
        deadline = time.monotonic() + timeout
        while self.deliveries("--status", "pending") and time.monotonic() < deadline:
            time.sleep(0.05)

    def last_message(self, recipient: str) -> dict:
        """Newest outbox message sent to ``recipient``."""
        for message in self.outbox():
            if message["recipient"] == recipient:
                return message
        raise AssertionError(f"no outbox message for {recipient}")

    def last_code(self, recipient: str) -> str:
        """The code of the newest outbox message sent to ``recipient``."""
        return self.last_message(recipient)["code"]

    def apps(self) -> list:
        return self.cli_json("admin", "apps", "list")

    def logs(self) -> str:
        log = self.data_dir / "server.stderr.log"
        out = "".join(self.stdout_lines)
        err = log.read_text(errors="replace") if log.exists() else ""
        return f"--- stdout ---\n{out}\n--- stderr ---\n{err}"

    # -- lifecycle -------------------------------------------------------
    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def watch_banner(process: subprocess.Popen) -> tuple:
    """Drains the server's stdout for the life of the process, so it can never block on a
    full pipe, and reads its banner: returns ``(lines, state, ready)``, where ``state`` gets
    ``host``, ``port`` and ``issuer`` and ``ready`` is set on "ready in N ms" (or at EOF)."""
    lines: list = []
    state = {"host": None, "port": None, "issuer": None}
    ready = threading.Event()

    def pump() -> None:
        for line in process.stdout:
            lines.append(line)
            if m := LISTEN_RE.search(line):
                state["host"], state["port"] = m.group(1), int(m.group(2))
            elif m := ISSUER_RE.match(line):
                state["issuer"] = m.group(1)
            elif READY_RE.search(line):
                ready.set()
        ready.set()  # EOF: process ended

    threading.Thread(target=pump, name="sesame-stdout", daemon=True).start()
    return lines, state, ready


def _start(data_dir: Path, env_overrides: dict, args: tuple, binary: Path | None = None) -> SesameServer:
    binary = binary or sesame_binary()
    data_dir.mkdir(parents=True, exist_ok=True)
    # Inherit PATH/HOME etc. but not stray SESAME_* settings from the caller's
    # shell, so every run starts from the same configuration.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env.update(BASE_ENV)
    env.update({k: str(v) for k, v in env_overrides.items()})
    stderr_log = open(data_dir / "server.stderr.log", "wb")
    process = subprocess.Popen(
        [str(binary), "serve", "--port", "0", "--data-dir", str(data_dir), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr_log,
        text=True,
        bufsize=1,
    )
    stderr_log.close()
    _PROCESSES.append(process)

    lines, state, ready = watch_banner(process)

    def fail(reason: str) -> None:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        err = (data_dir / "server.stderr.log").read_text(errors="replace")
        pytest.fail(f"sesame did not start: {reason}\nstdout:\n{''.join(lines)}\nstderr:\n{err}")

    if not ready.wait(READY_TIMEOUT):
        fail(f"no 'ready in' line within {READY_TIMEOUT}s")
    if process.poll() is not None or state["port"] is None:
        fail(f"exited with {process.poll()} before listening")

    server = SesameServer(
        binary=binary,
        data_dir=data_dir,
        env=env,
        process=process,
        host=state["host"],
        port=state["port"],
        issuer=state["issuer"] or "",
        stdout_lines=lines,
    )
    if not server.issuer:
        server.issuer = requests.get(server.url("/.well-known/openid-configuration"), timeout=10).json()["issuer"]
    try:
        default_apps = [a for a in server.apps() if a.get("default")]
        assert len(default_apps) == 1, f"expected one default app, got {default_apps}"
        server.client_id = default_apps[0]["client_id"]
    except BaseException:
        server.stop()
        raise
    return server


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "sesame_env(**env): environment variables for the test's sesame server"
    )
    config.addinivalue_line(
        "markers", "sesame_args(*args): extra command-line arguments for `sesame serve`"
    )
    config.addinivalue_line(
        "markers", "waits_beside_the_rest: a test that mostly waits (an outage, a lease running "
        "out) on SQLite with wide bounds, so it may run beside the tests that need the machine"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Groups for ``--dist loadgroup``, the mode scripts/test runs the files that restart
    PostgreSQL, time answers or load the machine in: they go to one worker, one after another
    (the group "alone"), and the tests marked ``waits_beside_the_rest`` to the other. Runs
    first, before pytest-xdist reads the groups; other modes of distribution ignore them."""
    for item in items:
        beside = item.get_closest_marker("waits_beside_the_rest") is not None
        item.add_marker(pytest.mark.xdist_group("waiting" if beside else "alone"))


@pytest.fixture
def sesame_factory(tmp_path):
    """Start servers on demand (``binary=`` another build of sesame, such as the previous
    release's); every one is terminated at teardown."""
    servers: list = []

    def start(env: dict | None = None, args: tuple = (), name: str | None = None,
              binary: Path | None = None) -> SesameServer:
        data_dir = tmp_path / (name or f"sesame-{len(servers)}")
        server = _start(data_dir, env or {}, tuple(args), binary)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def database_url() -> str:
    """A new, empty PostgreSQL database on the server SESAME_TEST_POSTGRES_URL names, whose
    `postgres` role may create databases (scripts/test starts one)."""
    base = os.environ.get("SESAME_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("SESAME_TEST_POSTGRES_URL is not set")
    parts = urlsplit(base)
    name = "e2e_" + uuid.uuid4().hex[:12]
    subprocess.run(
        ["psql", "-h", parts.hostname, "-p", str(parts.port or 5432), "-U", "postgres", "-qc",
         f"CREATE DATABASE {name} OWNER {parts.username}"],
        check=True, capture_output=True)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def pair(sesame_factory, database_url):
    """Two servers on one new PostgreSQL database with the same issuer, as behind a load
    balancer: ``a, b = pair``."""
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER}
    first = sesame_factory(env=env, name="a")
    second = sesame_factory(env=env, name="b")
    return first, second


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


HELPER_LISTENING_RE = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
HELPER_READY_TIMEOUT = 60.0  # seconds; a starved 2-core machine has taken over 30


def helper_port(process: subprocess.Popen, script: str) -> int:
    """Reads the "… listening on 127.0.0.1:PORT" line a helper prints once it listens, and keeps
    draining its output after that so it never blocks on a full pipe."""
    found: dict = {}
    listening = threading.Event()

    def pump() -> None:
        for line in process.stdout:
            if not listening.is_set() and (m := HELPER_LISTENING_RE.search(line)):
                found["port"] = int(m.group(1))
                listening.set()
        listening.set()  # EOF: the helper ended

    threading.Thread(target=pump, name=f"{script}-stdout", daemon=True).start()
    if not listening.wait(HELPER_READY_TIMEOUT) or "port" not in found:
        process.kill()
        err = process.stderr.read() if process.stderr else ""
        pytest.fail(f"{script} did not report its port within {HELPER_READY_TIMEOUT} s "
                    f"(exit {process.poll()}): {err}")
    return found["port"]


@pytest.fixture
def helper():
    """Starts a helper script of this directory and returns its port:
    ``helper("smtp_sink.py", "--out", str(path))`` (a mail server that appends each mail to
    a JSON-lines file) or ``helper("twilio_mock.py", "--log", …)`` (Twilio's Messages API).
    The helper binds port 0 and says which port it got, so tests running side by side never
    race for a port. ``port=`` starts it on that port instead (a server already configured
    for a provider that was down until now). Read what they received with
    ``flows.read_jsonl``. Every helper is stopped at teardown."""
    processes = []

    def start(script: str, *args: str, port: int | None = None) -> int:
        process = subprocess.Popen(
            [sys.executable, str(HERE / script), "--port", str(port or 0), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(process)
        return helper_port(process, script)

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def sesame(request, sesame_factory) -> SesameServer:
    """A fresh Sesame server for this test (see ``sesame_env``/``sesame_args``)."""
    env_marker = request.node.get_closest_marker("sesame_env")
    args_marker = request.node.get_closest_marker("sesame_args")
    env = dict(env_marker.kwargs) if env_marker else {}
    args = tuple(args_marker.args) if args_marker else ()
    return sesame_factory(env=env, args=args, name="sesame")


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the server's output to failing tests' reports."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and "sesame" in getattr(item, "funcargs", {}):
        server = item.funcargs["sesame"]
        if isinstance(server, SesameServer):
            report.sections.append(("sesame server output", server.logs()))


# -- real browser -------------------------------------------------------
PAGES = Path(__file__).resolve().parent / "pages"
CHROMIUM = os.environ.get("SESAME_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def serve_pages(host: str):
    """Serves Tests/e2e/pages on http://HOST:<port>: an app's own web origin."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(PAGES))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()


class _TestBrowser:
    """The worker's Chromium as one test sees it: the contexts the test opens are closed when it
    ends, so tests share the browser process but never cookies, storage or authenticators."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self._contexts: list = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def close_contexts(self) -> None:
        for context in self._contexts:
            with contextlib.suppress(Exception):
                context.close()

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium, headless, driven by Playwright: one per test process (each pytest-xdist
    worker starts its own), since a launch costs about a second."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM:
        pytest.fail("chromium is not installed: apt-get install -y chromium (scripts/test does this as root)")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium):
    """The worker's Chromium, with this test's contexts closed after it."""
    view = _TestBrowser(chromium)
    yield view
    view.close_contexts()

"""The release tarball (`scripts/release`) as an operator installs it.

Unpacks `$SESAME_RELEASE_TARBALL` into a temporary folder, checks what it holds, and runs the
binary from there (`./sesame serve`, the working directory the unpacked folder, no SESAME_*
variables) against a fresh data directory: discovery, the hosted pages (which need the
resources folder beside the binary), one complete email-code sign-in through the console
outbox, and the sample configuration. Also: the binary needs no Swift shared library, and
`systemd-analyze verify` accepts the unit.

scripts/test builds the tarball (`bash scripts/release`) and sets the variable; without it
every test here is skipped.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

import flows
from conftest import _PROCESSES, READY_TIMEOUT, SesameServer, watch_banner

TARBALL = os.environ.get("SESAME_RELEASE_TARBALL")
pytestmark = pytest.mark.skipif(
    not TARBALL,
    reason="SESAME_RELEASE_TARBALL is not set: run `bash scripts/release` and set it to the path it prints "
    "(scripts/test does both)")

RESOURCES = "Sesame_SesameServer.resources"
#: What an operator finds in the unpacked folder (scripts/release, INSTALL.md).
CONTENTS = ["sesame", RESOURCES, "README.md", "LICENSE", "CHANGELOG.md", "INSTALL.md", "deploy/sesame.service",
            "deploy/sesame.json"]
#: Appended to the unpacked stylesheet, so a page served with it proves the server read the
#: resources beside the binary (the binary would otherwise fall back to its build folder,
#: which exists on the machine that built it).
MARKER = "/* unpacked-from-the-release-tarball */"


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory) -> Path:
    """The tarball's one top-level folder, unpacked with tar as an operator would."""
    tarball = Path(TARBALL)
    assert tarball.is_file(), f"SESAME_RELEASE_TARBALL={TARBALL} is not a file"
    root = tmp_path_factory.mktemp("release")
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(root)], check=True)
    entries = list(root.iterdir())
    assert len(entries) == 1 and entries[0].is_dir(), f"expected one folder in the tarball, got {entries}"
    return entries[0]


def start(folder: Path, data_dir: Path, *args: str) -> SesameServer:
    """`./sesame serve --port 0 --data-dir DATA ARGS` with `folder` as the working directory and
    no SESAME_* variables; returns once it prints "ready in"."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    stderr_log = data_dir.parent / f"{data_dir.name}.stderr.log"
    with open(stderr_log, "wb") as stderr:
        process = subprocess.Popen(
            ["./sesame", "serve", "--port", "0", "--data-dir", str(data_dir), *args], cwd=folder, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1)
    _PROCESSES.append(process)
    lines, state, ready = watch_banner(process)
    if not ready.wait(READY_TIMEOUT) or process.poll() is not None or state["port"] is None:
        process.kill()
        pytest.fail(f"./sesame serve did not start\nstdout:\n{''.join(lines)}\nstderr:\n"
                    f"{stderr_log.read_text(errors='replace')}")
    server = SesameServer(binary=folder / "sesame", data_dir=data_dir, env=env, process=process,
                          host=state["host"], port=state["port"], issuer=state["issuer"] or "",
                          stdout_lines=lines)
    return server


@pytest.fixture
def served(unpacked, tmp_path):
    """A server run from the unpacked folder on a fresh data directory."""
    stylesheet = unpacked / RESOURCES / "Resources" / "assets" / "sesame.css"
    if MARKER not in stylesheet.read_text():
        with open(stylesheet, "a") as f:
            f.write("\n" + MARKER + "\n")
    server = start(unpacked, tmp_path / "data")
    try:
        server.client_id = next(a for a in server.apps() if a.get("default"))["client_id"]
        yield server
    finally:
        server.stop()


def test_the_tarball_holds_what_install_md_lists(unpacked):
    assert re.fullmatch(rf"sesame-[A-Za-z0-9._+-]+-linux-{re.escape(platform.machine())}", unpacked.name), unpacked.name
    for name in CONTENTS:
        assert (unpacked / name).exists(), f"{name} is missing from {sorted(p.name for p in unpacked.iterdir())}"
    assert os.access(unpacked / "sesame", os.X_OK)
    assert (unpacked / RESOURCES / "Resources" / "templates" / "login.mustache").is_file()
    assert "Apache License" in (unpacked / "LICENSE").read_text()
    assert "Version 2.0" in (unpacked / "LICENSE").read_text()
    sample = json.loads((unpacked / "deploy" / "sesame.json").read_text())
    assert sample["issuer"].startswith("https://")
    unit = (unpacked / "deploy" / "sesame.service").read_text()
    for line in ["DynamicUser=yes", "StateDirectory=sesame", "ProtectSystem=strict", "NoNewPrivileges=yes",
                 "ExecStart=/opt/sesame/sesame serve --data-dir %S/sesame --config /etc/sesame/sesame.json"]:
        assert line in unit.splitlines(), f"the unit lacks {line}"


def test_the_name_the_binary_and_the_changelog_agree_on_the_version(unpacked):
    """The tarball is named for the version the binary reports (`sesame --version`: the tag's
    version, or the checked-in one with -dev, and the commit), and CHANGELOG.md has its entry."""
    printed = subprocess.run(["./sesame", "--version"], cwd=unpacked, capture_output=True, text=True, timeout=30)
    match = re.fullmatch(r"sesame (\S+) \(commit (\S+)\)", printed.stdout.strip())
    assert match, (printed.returncode, printed.stdout, printed.stderr)
    version, commit = match.groups()
    assert unpacked.name == f"sesame-{version}-linux-{platform.machine()}"
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?", version), version
    assert commit != "unknown", "scripts/release passes the commit to the build"
    released = re.split(r"[-+]", version)[0]
    assert f"## [{released}]" in (unpacked / "CHANGELOG.md").read_text()
    assert f"Built from commit {commit}" in (unpacked / "INSTALL.md").read_text()


def test_the_binary_needs_no_swift_shared_library(unpacked):
    linked = subprocess.run(["ldd", str(unpacked / "sesame")], capture_output=True, text=True, check=True).stdout
    assert "not found" not in linked, linked
    assert not re.search(r"libswift|libFoundation|libdispatch|libBlocksRuntime", linked), linked
    # Nor URLSession's libcurl: the client commands send through AsyncHTTPClient, and libcurl's
    # chain of libraries held 5.5 MB of an idle server's memory.
    assert "libcurl" not in linked, linked


def test_a_server_runs_from_the_unpacked_folder(served):
    discovery = requests.get(served.url("/.well-known/openid-configuration"), timeout=10)
    assert discovery.status_code == 200, discovery.text
    assert discovery.json()["issuer"] == served.issuer
    assert requests.get(served.url("/.well-known/jwks.json"), timeout=10).json()["keys"]

    # The hosted pages: templates and assets from the resources folder beside the binary.
    query = {"client_id": served.client_id, "redirect_uri": "http://localhost:3000/callback",
             "response_type": "code", "scope": "openid email", "state": "st-1",
             "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
    page = requests.get(served.url("/authorize"), params=query, timeout=10)
    assert page.status_code == 200, page.text
    assert "text/html" in page.headers["content-type"]
    assert 'action="/authorize/start"' in page.text
    welcome = requests.get(served.url("/welcome"), timeout=10)
    assert welcome.status_code == 200, welcome.text
    stylesheet = requests.get(served.url("/assets/sesame.css"), timeout=10)
    assert stylesheet.status_code == 200
    assert MARKER in stylesheet.text, "the stylesheet did not come from the unpacked resources folder"

    # One complete email-code sign-in, the code read from the console outbox (`sesame outbox`).
    email = "release@example.com"
    assert flows.start_code(served, email).status_code == 200
    code = served.last_code(email)
    tokens = flows.tokens_for_code(served, email, code, scope=flows.FULL_SCOPE)
    profile = flows.userinfo(served, tokens["access_token"])
    assert profile.status_code == 200, profile.text
    assert profile.json()["email"] == email
    assert flows.refresh(served, tokens["refresh_token"]).status_code == 200


def test_the_sample_configuration_starts(unpacked, tmp_path):
    server = start(unpacked, tmp_path / "data", "--config", "deploy/sesame.json")
    try:
        assert server.issuer == json.loads((unpacked / "deploy" / "sesame.json").read_text())["issuer"]
        banner = "".join(server.stdout_lines)
        assert re.search(r"email codes:\s+smtp", banner), banner
        # A public server (https issuer, a trusted proxy) never prints SMS codes to its log.
        assert re.search(r"sms codes:\s+none: refused", banner), banner
        assert requests.get(server.url("/health"), timeout=10).json()["status"] == "ok"
    finally:
        server.stop()
    assert server.process.returncode == 0, f"SIGTERM should end serve cleanly, got {server.process.returncode}"


def test_a_named_configuration_file_must_exist(unpacked, tmp_path):
    """Why the install steps copy the sample to /etc/sesame before the first start."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    result = subprocess.run(
        ["./sesame", "serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--config", str(tmp_path / "none.json")],
        cwd=unpacked, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 78, (result.returncode, result.stdout, result.stderr)
    assert "none.json" in result.stderr


def test_systemd_accepts_the_unit(unpacked, tmp_path):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed")
    # `verify` checks that ExecStart's binary exists: point it at the unpacked one.
    unit = tmp_path / "sesame.service"
    unit.write_text((unpacked / "deploy" / "sesame.service").read_text()
                    .replace("/opt/sesame/sesame", str(unpacked / "sesame")))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "sesame.service" in line]
    assert result.returncode == 0 and not complaints, result.stdout + result.stderr

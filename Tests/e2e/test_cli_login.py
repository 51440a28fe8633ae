"""``sesame login``, ``whoami`` and ``logout``: a person at a terminal, against a real server.

The CLI is built on the Swift SDK (``SesameClient``), so these also exercise the SDK over a
real socket from another process.
"""

from __future__ import annotations

import html
import json
import os
import pty
import re
import select
import stat
import subprocess
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests


def login(sesame, tmp_path, *args, codes, recipient):
    """Runs ``sesame login ARGS`` on a pseudo-terminal, as a person would, answering each
    ``Code:`` prompt from ``codes`` (a callable given the prompt's number; ``None`` answers
    with the code the server sent). Returns the status, what the terminal showed, and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(sesame.binary), "login", *args, "--domain", sesame.base_url, "--client-id", sesame.client_id],
        stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env, close_fds=True)
    os.close(slave)
    seen = b""
    prompt = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if master in ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            seen += chunk
            while seen.count(b"Code: ") > prompt:
                prompt += 1
                answer = codes(prompt) or sesame.last_code(recipient)
                os.write(master, (answer + "\n").encode())
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    return proc.returncode, seen.decode(errors="replace"), proc.stderr.read().decode()


def cli(sesame, tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return subprocess.run([str(sesame.binary), *args], env=env, capture_output=True, text=True, timeout=60)


def test_email_login_whoami_logout(sesame, tmp_path):
    status, out, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: None,
                             recipient="ana@example.com")
    assert status == 0, err
    assert "Signed in as ana@example.com." in out
    session = tmp_path / "config" / "sesame" / "session.json"
    assert stat.S_IMODE(session.stat().st_mode) == 0o600, "the tokens are readable only by their owner"

    who = cli(sesame, tmp_path, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    body = json.loads(who.stdout)
    assert body["email"] == "ana@example.com" and body["user_id"].startswith("email|")
    plain = cli(sesame, tmp_path, "whoami")
    assert plain.stdout.startswith("ana@example.com")

    out = cli(sesame, tmp_path, "logout")
    assert out.returncode == 0 and "Signed out." in out.stdout
    after = cli(sesame, tmp_path, "whoami")
    assert after.returncode == 1 and after.stderr.strip() == "not signed in"


def test_sms_login(sesame, tmp_path):
    status, out, err = login(sesame, tmp_path, "sms", "+15551234567", codes=lambda n: None, recipient="+15551234567")
    assert status == 0, err
    assert "Signed in as +15551234567." in out


def test_wrong_codes_reprompt_then_exit_readably(sesame, tmp_path):
    """A typo gets another prompt; once the code is used up the command ends with a message,
    exit status 1 and no stack trace."""
    status, out, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: "000000",
                             recipient="ana@example.com")
    assert status == 1
    assert out.count("Code: ") == 3
    assert "Wrong email or verification code." in err and "used up" in err
    assert "Fatal error" not in err and "Stack" not in err


def test_prompts_follow_the_servers_attempt_cap(sesame, tmp_path):
    """The CLI does not guess how many tries a code has: with max_attempts 5 it prompts five
    times and stops when the server says the code is used up."""
    sesame.cli("admin", "connections", "update", "email", "--max-attempts", "5")
    status, out, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: "000000",
                             recipient="ana@example.com")
    assert status == 1
    assert out.count("Code: ") == 5
    assert "used up" in err


def test_bad_domain_is_a_usage_error(sesame, tmp_path):
    out = cli(sesame, tmp_path, "login", "email", "ana@example.com", "--domain", "ftp://x", "--client-id", "c")
    assert out.returncode != 0 and "--domain must be an http:// or https:// URL" in out.stderr


def test_device_key_register_then_sign_in_after_logout(sesame, tmp_path):
    """TouchIDAuth's flow at a terminal: register while signed in, sign out (the key stays),
    then sign in with the key alone after confirming presence."""
    status, _, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: None, recipient="ana@example.com")
    assert status == 0, err
    args = ["--domain", sesame.base_url, "--client-id", sesame.client_id]
    registered = cli(sesame, tmp_path, "login", "device-key", "--register", *args)
    assert registered.returncode == 0, registered.stderr
    assert "Registered this machine's device key (ES256)" in registered.stdout
    key = tmp_path / "config" / "sesame" / "device-key.json"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert cli(sesame, tmp_path, "logout").returncode == 0

    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    declined = subprocess.run([str(sesame.binary), "login", "device-key"], input="n\n", env=env,
                              capture_output=True, text=True, timeout=60)
    assert declined.returncode == 1 and "Confirm it's you [y/N]" in declined.stdout
    assert declined.stderr.strip() == "not confirmed"
    signed_in = subprocess.run([str(sesame.binary), "login", "device-key"], input="y\n", env=env,
                               capture_output=True, text=True, timeout=60)
    assert signed_in.returncode == 0, signed_in.stderr
    assert "Signed in as ana@example.com." in signed_in.stdout
    assert cli(sesame, tmp_path, "whoami").stdout.startswith("ana@example.com")


def test_passkey_signup_prompts_for_the_email_then_signs_in(sesame, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    args = ["--domain", sesame.base_url, "--client-id", sesame.client_id]
    signup = subprocess.run([str(sesame.binary), "login", "passkey", "--signup", *args], input="ana@example.com\n",
                            env=env, capture_output=True, text=True, timeout=60)
    assert signup.returncode == 0, signup.stderr
    assert "Email: " in signup.stdout and "Signed in as ana@example.com." in signup.stdout
    passkeys = tmp_path / "config" / "sesame" / "passkeys.json"
    assert stat.S_IMODE(passkeys.stat().st_mode) == 0o600
    assert cli(sesame, tmp_path, "logout").returncode == 0
    again = cli(sesame, tmp_path, "login", "passkey")
    assert again.returncode == 0, again.stderr
    assert "Signed in as ana@example.com." in again.stdout


def test_passkey_login_without_a_passkey_is_a_message(sesame, tmp_path):
    out = cli(sesame, tmp_path, "login", "passkey", "--domain", sesame.base_url, "--client-id", sesame.client_id)
    assert out.returncode == 1 and "sign up first" in out.stderr


@pytest.mark.sesame_env(SESAME_RATE_LIMIT_START_PER_RECIPIENT="1")
def test_rate_limited_start_is_a_message(sesame, tmp_path):
    status, _, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: None, recipient="ana@example.com")
    assert status == 0, err
    status, out, err = login(sesame, tmp_path, "email", "ana@example.com", codes=lambda n: None, recipient="ana@example.com")
    assert status == 1 and "Code: " not in out
    assert "Too many requests" in err and "Fatal error" not in err


def test_unreachable_server_is_a_message(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    binary = os.environ.get("SESAME_BIN") or str(Path(__file__).resolve().parents[2] / ".build" / "debug" / "sesame")
    out = subprocess.run([binary, "login", "email", "ana@example.com", "--domain", "http://127.0.0.1:9", "--client-id", "c"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "could not be reached" in out.stderr


def start_magic_link_login(sesame, tmp_path, address: str) -> subprocess.Popen:
    """Starts ``sesame login magic-link ADDRESS`` with its output on a pipe, as a script would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return subprocess.Popen(
        [str(sesame.binary), "login", "magic-link", address, "--domain", sesame.base_url, "--client-id",
         sesame.client_id],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def confirm_on_other_device(link: str, number: str) -> requests.Response:
    """Opens a mailed link the way a phone's browser does and answers its match question."""
    phone = requests.Session()
    page = phone.get(link, timeout=10)
    assert page.status_code == 200 and "Number on your other screen" in page.text, page.text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    fields = {name: html.unescape(value) for name, value in fields.items()}
    fields["match"] = number
    return phone.post(urljoin(link, "/passwordless/verify_redirect"), data=fields, timeout=10)


def test_magic_link_login_confirmed_on_another_device(sesame, tmp_path):
    """``sesame login magic-link``: the terminal shows a number and waits; the person opens the
    mailed link elsewhere, types the number, and the terminal is signed in."""
    proc = start_magic_link_login(sesame, tmp_path, "ana@example.com")
    try:
        first = proc.stdout.readline()
        number = re.search(r"enter this number: (\d\d)", first)
        assert number, first
        link = sesame.last_message("ana@example.com")["link"]
        assert requests.get(link, timeout=10).status_code == 200  # a mail scanner's GET spends nothing
        done = confirm_on_other_device(link, number.group(1))
        assert "signed in on your other screen" in done.text
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Signed in as ana@example.com." in out
    who = cli(sesame, tmp_path, "whoami")
    assert who.stdout.startswith("ana@example.com")


def test_magic_link_login_refused_with_a_wrong_number(sesame, tmp_path):
    """A stranger's link (this terminal asked, someone else's screen answers wrongly) ends the
    wait at once with a readable message."""
    proc = start_magic_link_login(sesame, tmp_path, "bo@example.com")
    try:
        number = re.search(r"enter this number: (\d\d)", proc.stdout.readline()).group(1)
        wrong = "00" if number != "00" else "01"
        refused = confirm_on_other_device(sesame.last_message("bo@example.com")["link"], wrong)
        assert refused.status_code == 403 and "did not match" in refused.text
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 1
    assert "The sign-in was refused on the other device." in err

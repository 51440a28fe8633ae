"""The README's walkthrough, run as written.

Every fenced ```sh / ```bash / ```console block of README.md is taken from the file itself and
run, in order, by one bash session in a directory whose `./sesame-data` is a running server's
(what `swift run sesame serve` creates), then each answer is checked against what the README
shows. A README change that breaks an example fails here.

The substitutions, and nothing else (see ``SUBSTITUTIONS`` and ``as_run``):

* `swift run sesame ARGS` runs the built binary (`.build/debug/sesame`, or $SESAME_BIN): the
  same program without rebuilding it;
* a URL written `localhost:3000` (the default port) reaches the test's server on its own port,
  since port 3000 may be taken on a shared machine; the default application's callback
  `http://localhost:3000/callback` is left alone (it names the application, not this server);
* `sesame outbox` first waits until the server has sent what is queued (a person reads their
  inbox seconds after asking; a script is faster than the server's delivery worker).

The first block must stay the two commands a newcomer types first. Lines written `# {…}` or
`# text` right after a command are the answer the README shows: a JSON object's fields must all
be there with the values shown (`…` stands for any rest of a value), and a line of text must
match with digits and spaces free. Every `curl` must answer 2xx.
"""

from __future__ import annotations

import json
import re
import subprocess
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests

README = Path(__file__).resolve().parents[2] / "README.md"
SHELL = {"sh", "bash", "console"}
MARK = "@@@answer@@@"
DEFAULT_CALLBACK = "http://localhost:3000/callback"
FIRST_COMMANDS = ["swift run sesame serve", "bash scripts/test"]


def fenced() -> list:
    """Every fenced block of the README as (language, body), in order."""
    found, language, body = [], None, []
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            if language is None:
                language, body = line[3:].strip(), []
            else:
                found.append((language, "\n".join(body) + "\n"))
                language = None
        elif language is not None:
            body.append(line)
    return found


def blocks() -> list:
    """The README's shell blocks, in order."""
    return [body for language, body in fenced() if language in SHELL]


def commands(block: str) -> list:
    """A block's commands without their trailing comments."""
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def as_run(block: str, port: int) -> str:
    """``block`` with the substitutions the module docstring lists, and a marker printed where
    the README shows an answer (a `# ` line that is not a command's own comment)."""
    script = block.replace("swift run sesame", "sesame_cli")
    script = re.sub(r"(?<![\w/:])localhost:3000(?!/callback)", f"localhost:{port}", script)
    lines = []
    for line in script.splitlines():
        if line.startswith("# "):
            lines.append(f"printf '\\n{MARK}\\n'")
        lines.append(line)
    lines.append(f"printf '\\n{MARK}\\n'")
    return "\n".join(lines)


def shown_answers(block: str) -> list:
    """What the README shows after each command of ``block`` (None where it shows nothing)."""
    return [line[2:] for line in block.splitlines() if line.startswith("# ")] + [None]


PRELUDE = r"""
set -e
sesame_cli() {
  if [ "$1" = outbox ]; then
    for _ in $(seq 100); do
      [ "$("$SESAME_BIN" admin deliveries list --status pending --json)" = "[]" ] && break
      sleep 0.1
    done
  fi
  "$SESAME_BIN" "$@"
}
curl() { command curl --write-out '%{stderr}@@@status %{http_code}\n' "$@"; }
"""


def matches_json(shown: str, answer) -> list:
    """The fields of ``shown`` (JSON with `…` for any rest) that ``answer`` does not match."""
    wrong = []
    for name, value in json.loads(shown).items():
        got = answer.get(name) if isinstance(answer, dict) else None
        if isinstance(value, str) and "…" in value:
            ok = isinstance(got, str) and got.startswith(value.split("…")[0])
        else:
            ok = got == value
        if not ok:
            wrong.append(f"{name}: shown {value!r}, answered {got!r}")
    return wrong


def matches_text(shown: str, answer: str) -> bool:
    pattern = r"\s+".join(re.escape(word) for word in shown.split())
    pattern = re.sub(r"\d", r"\\d", pattern)
    return re.search(pattern, answer) is not None


def test_first_block_is_serve_then_the_tests():
    assert commands(blocks()[0]) == FIRST_COMMANDS


@pytest.fixture
def walkthrough(sesame_factory):
    """The server of the walkthrough: its data directory is `./sesame-data` of the directory
    the commands run in, as `swift run sesame serve` leaves it."""
    return sesame_factory(name="sesame-data")


def run_walkthrough(server, cwd: Path) -> tuple:
    """Runs every block after the first; returns (answers per block, statuses, variables)."""
    scripts = [as_run(block, server.port) for block in blocks()[1:]]
    separator = f"printf '\\n@@@block@@@\\n'\n"
    variables = "printf '\\n@@@vars@@@\\n'; printf '%s\\n' \"$CLIENT_ID\" \"$VERIFIER\""
    script = PRELUDE + ("\n" + separator).join(scripts) + "\n" + variables
    env = dict(server.env, SESAME_BIN=str(server.binary))
    done = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    out, _, tail = done.stdout.partition("@@@vars@@@\n")
    statuses = [int(s) for s in re.findall(r"@@@status (\d+)", done.stderr)]
    answers = [[part.strip() for part in block.split(MARK)][:-1] for block in out.split("@@@block@@@")]
    return answers, statuses, tail.split("\n")


def test_the_walkthrough_runs_as_written(walkthrough, tmp_path):
    assert (tmp_path / "sesame-data").is_dir()
    answers, statuses, (client_id, verifier, *_) = run_walkthrough(walkthrough, tmp_path)
    assert statuses and all(200 <= status < 300 for status in statuses), statuses
    assert client_id == walkthrough.client_id

    for block, shown_list, got_list in zip(blocks()[1:], [shown_answers(b) for b in blocks()[1:]], answers):
        assert len(got_list) == len(shown_list), (block, got_list)
        for shown, got in zip(shown_list, got_list):
            if shown is None:
                continue
            if shown.startswith("{"):
                answer = json.loads(got)
                assert not matches_json(shown, answer), (shown, got, matches_json(shown, answer))
            else:
                assert matches_text(shown, got), (shown, got)

    # The blocks without a shown answer: discovery and keys, and the link's start.
    discovery, end = json.JSONDecoder().raw_decode(answers[3][-1])
    keys = json.loads(answers[3][-1][end:])
    assert discovery["issuer"] and discovery["authorization_endpoint"] and keys["keys"]
    assert json.loads(answers[4][-1])["email"] == "ana@example.com"

    open_magic_link(walkthrough, verifier)


def open_magic_link(server, verifier: str) -> None:
    """The prose after the magic-link example: opening the link shows a confirm page;
    confirming redirects to the callback with a code and `state=xyz`, which exchanges with
    `grant_type=authorization_code`, the same `redirect_uri` and the PKCE verifier."""
    link = server.last_message("ana@example.com")["link"]
    browser = requests.Session()
    page = browser.get(link, timeout=10)
    assert page.status_code == 200, page.text
    assert "not an allowed callback" not in page.text, page.text
    form = re.search(r'<form[^>]*method="post"[^>]*action="([^"]+)"(.*?)</form>', page.text, re.S)
    assert form, page.text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2)))
    fields = {name: unescape(value) for name, value in fields.items()}
    confirmed = browser.post(urljoin(link, unescape(form.group(1))), data=fields, allow_redirects=False, timeout=10)
    assert confirmed.status_code in (302, 303), confirmed.text
    location = confirmed.headers["Location"]
    assert location.startswith(DEFAULT_CALLBACK + "?"), location
    query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    assert query["state"] == "xyz" and query["code"]
    tokens = requests.post(server.url("/oauth/token"), data={
        "grant_type": "authorization_code", "client_id": server.client_id, "code": query["code"],
        "redirect_uri": DEFAULT_CALLBACK, "code_verifier": verifier}, timeout=10)
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["id_token"]


def test_the_shown_banner_is_the_one_printed(walkthrough):
    """The unlabelled block after "Start the server" shows the banner: each of its labels is
    one `serve` prints."""
    banner = next(body for language, body in fenced() if not language and "$ swift run sesame serve" in body)
    printed = "".join(walkthrough.stdout_lines)
    for line in banner.splitlines()[2:]:
        label = line.split(":")[0].strip() if line.startswith("  ") else line.split()[0]
        assert label in printed, (label, printed)

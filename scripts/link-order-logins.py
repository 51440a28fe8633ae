"""The requests scripts/link-order profiles: discovery, then three email-code logins, each
followed by userinfo and a refresh grant. Arguments: base URL, client_id, the sesame binary
(to read the console outbox) and the data directory."""
import json, subprocess, sys, time, urllib.request
base, client, binary, data = sys.argv[1:]

def call(path, body=None, bearer=None):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode() if body else None)
    request.add_header("content-type", "application/json")
    if bearer:
        request.add_header("authorization", "Bearer " + bearer)
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")

for path in ["/.well-known/openid-configuration", "/.well-known/jwks.json", "/health/live"]:
    call(path)
for n in range(3):
    email = f"order{n}.{time.time_ns()}@example.com"  # new recipients: the start limits are per address
    call("/passwordless/start", {"client_id": client, "connection": "email", "email": email, "send": "code"})
    code = None
    for _ in range(300):  # the message is written by the delivery worker, a moment later
        messages = json.loads(subprocess.run([binary, "outbox", "--data-dir", data, "--to", email, "--json"],
                                             capture_output=True, text=True, check=True).stdout)
        code = next((message["code"] for message in messages if message.get("code")), None)
        if code:
            break
        time.sleep(0.1)
    tokens = call("/oauth/token", {"grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp",
                                   "client_id": client, "username": email, "otp": code, "realm": "email",
                                   "scope": "openid profile email offline_access"})
    call("/userinfo", bearer=tokens["access_token"])
    call("/oauth/token", {"grant_type": "refresh_token", "client_id": client,
                          "refresh_token": tokens["refresh_token"]})

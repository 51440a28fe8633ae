"""The Swift SDK is a package an app adds on its own: published from Clients/Swift by
scripts/release-sdk, it resolves nothing but swift-crypto (and swift-crypto's swift-asn1).

What this guards: an app that adds the SDK resolving the server's packages (Hummingbird,
PostgreSQL, SQLite, NIO), as it did when the client lived in the server's package.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"swift-crypto", "swift-asn1"}

APP_MANIFEST = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [.package(url: "file://{repository}", from: "1.0.0")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "SesameClient", package: "sesame-swift")])]
)
"""


def identities(node: dict) -> set:
    found = set()
    for dependency in node.get("dependencies", []):
        found.add(dependency["identity"])
        found |= identities(dependency)
    return found


def test_an_app_that_adds_the_released_sdk_resolves_only_swift_crypto(tmp_path):
    repository = tmp_path / "sesame-swift.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(repository)], check=True)
    released = subprocess.run(["bash", "scripts/release-sdk", "1.0.0", str(repository)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    assert released.returncode == 0, released.stderr
    app = tmp_path / "App"
    (app / "Sources" / "App").mkdir(parents=True)
    (app / "Package.swift").write_text(APP_MANIFEST.replace("{repository}", str(repository)))
    (app / "Sources" / "App" / "main.swift").write_text("import SesameClient\n")
    shown = subprocess.run(["swift", "package", "show-dependencies", "--format", "json"], cwd=app,
                           capture_output=True, text=True, timeout=600)
    assert shown.returncode == 0, shown.stderr
    resolved = identities(json.loads(shown.stdout))
    assert "sesame-swift" in resolved
    not_allowed = resolved - ALLOWED - {"sesame-swift"}
    assert not not_allowed, f"the SDK pulls in {sorted(not_allowed)}"


def test_the_sdk_manifest_names_only_swift_crypto():
    """The same, read from the manifest in this tree (no release needed)."""
    manifest = (ROOT / "Clients" / "Swift" / "Package.swift").read_text()
    urls = [line.split('"')[1] for line in manifest.splitlines() if ".package(url:" in line]
    assert urls == ["https://github.com/apple/swift-crypto.git"]

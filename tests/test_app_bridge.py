"""The MCP Apps host bridge the inspector ships (``static/app-bridge.js.gz``).

It is a prebuilt bundle of ``@modelcontextprotocol/ext-apps``'s AppBridge; ``vendor/app-bridge``
holds the pinned recipe. The shipped file is a gzip-compressed ES module with the exports the
page imports and a header naming the pinned versions, and it is exactly what the recipe builds
(that needs node and npm: skipped locally without them, a failure on CI).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "vendor" / "app-bridge"
BUNDLE = ROOT / "src" / "toolwire" / "inspector" / "static" / "app-bridge.js.gz"
VENV = ROOT / ".venv"
EXPORTS = {
    "AppBridge",
    "PostMessageTransport",
    "buildAllowAttribute",
    "getToolUiResourceUri",
    "isToolVisibilityAppOnly",
    "isToolVisibilityModelOnly",
    "RESOURCE_MIME_TYPE",
    "RESOURCE_URI_META_KEY",
    "SUPPORTED_PROTOCOL_VERSIONS",
}


def _script() -> str:
    return gzip.decompress(BUNDLE.read_bytes()).decode("utf-8")


def _pinned() -> dict[str, str]:
    manifest = json.loads((RECIPE / "package.json").read_text(encoding="utf-8"))
    return {**manifest["dependencies"], **manifest["devDependencies"]}


def test_the_recipe_pins_exact_versions_and_loads_jitless_first() -> None:
    pinned = _pinned()
    assert pinned["@modelcontextprotocol/ext-apps"] == "2.0.4"
    assert set(pinned) == {
        "@modelcontextprotocol/ext-apps",
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/core",
        "zod",
        "esbuild",
    }
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in pinned.values()), pinned
    lock = json.loads((RECIPE / "package-lock.json").read_text(encoding="utf-8"))
    for name, version in pinned.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    imports = re.findall(r"^import\b.*$", (RECIPE / "entry.js").read_text(), re.M)
    assert imports[0] == 'import "./jitless.js";'
    assert "config({ jitless: true })" in (RECIPE / "jitless.js").read_text()


def test_the_shipped_bundle_is_an_es_module_with_the_bridge_exports() -> None:
    script = _script()
    last = re.findall(r"export\{([^}]*)\};?\s*$", script)
    assert last, script[-300:]
    names = {item.split(" as ")[-1].strip() for item in last[0].split(",")}
    assert names == EXPORTS
    assert re.search(r"\bimport\s*[\w{*\"(]", script.split("*/", 1)[1]) is None  # no bare imports


def test_the_shipped_bundle_names_the_pinned_versions_and_their_licences() -> None:
    header = _script().split("*/", 1)[0]
    assert header.startswith("/*!\n * MCP Apps host bridge")
    assert header.endswith("\n ")  # the header closes on its own line, before the code
    for name, version in _pinned().items():
        assert f"{name} {version}" in header, name
    assert "Rebuild with: python vendor/app-bridge/build.py" in header
    assert "--- zod ---" in header
    assert "Permission is hereby granted, free of charge" in header  # the MIT text
    assert "Apache License" in header  # the MCP packages' licence


# Loads the bundle in node with the Function constructor watched, and answers a view's
# ui/initialize through AppBridge over an in-memory transport: zod validates the request, and
# jitless zod must not build code from strings (in a page without 'unsafe-eval' that is a CSP
# violation).
NODE_SMOKE = """
const built = [];
globalThis.Function = new Proxy(Function, {
  construct(target, args) { built.push(args); return Reflect.construct(target, args); },
});
const bridgeModule = await import(process.argv[1]);
const bridge = new bridgeModule.AppBridge(
  null, { name: "toolwire", version: "0" }, { openLinks: {} });
let answered;
const answer = new Promise((resolve) => { answered = resolve; });
const transport = { async start() {}, async send(message) { answered(message); }, async close() {} };
await bridge.connect(transport);
transport.onmessage({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {
  protocolVersion: bridgeModule.SUPPORTED_PROTOCOL_VERSIONS[0],
  appInfo: { name: "view", version: "1" }, appCapabilities: {} } });
const reply = await answer;
await bridge.close();
console.log(JSON.stringify({ exports: Object.keys(bridgeModule).sort(), reply, built }));
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is needed to load the app bridge")
        pytest.skip("node is not installed; install it with: apt-get install nodejs")
    return node


@pytest.mark.timeout(60)
def test_the_bundle_loads_and_answers_a_view_without_building_code_from_strings(
    tmp_path: Path,
) -> None:
    module = tmp_path / "app-bridge.mjs"
    module.write_text(_script(), encoding="utf-8")
    argv = [_node(), "--input-type=module", "--eval", NODE_SMOKE, module.as_uri()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=50)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert set(seen["exports"]) == EXPORTS
    assert seen["reply"]["id"] == 1
    assert seen["reply"]["result"]["hostInfo"] == {"name": "toolwire", "version": "0"}
    assert seen["built"] == []  # zod is jitless: no new Function(...)


@pytest.mark.timeout(600)
def test_the_shipped_bundle_is_what_the_recipe_builds() -> None:
    """``build.py --check`` rebuilds from the lock file (npm ci, esbuild) and compares."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail("node and npm are needed to rebuild the app bridge")
        pytest.skip("node and npm are not installed; install them with: apt-get install nodejs npm")
    env = {**os.environ, "npm_config_cache": str(VENV / "app-bridge" / "npm-cache")}
    argv = [sys.executable, str(RECIPE / "build.py"), "--check"]
    argv += ["--workdir", str(VENV / "app-bridge" / "build")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is up to date" in done.stdout

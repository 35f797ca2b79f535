"""The declared dependency ranges hold at their lower end (issue #14 item 3).

A fresh venv gets this checkout with every direct dependency pinned to the lowest version pyproject.toml
allows (and the newest of everything else, as pip resolves it for a user whose environment already
holds old copies): `krouter ask` on the demo vault, `--help`, `init`, and an MCP stdio session with the
official client must all work. The normal suite covers the upper end (it runs on the newest allowed).
Needs the package index: skipped when it cannot be reached.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Talks to the server over stdio with the client API that mcp 2.0 already has.
MCP_SESSION = """
import json, sys, anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=["mcp", "--vault", "demo"], env=dict(__import__("os").environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        result = await session.call_tool("krouter_ask", {"question": "which database do we use"})
        print(json.dumps({"tools": tools, "text": result.content[0].text}))

anyio.run(main)
"""


def lowest_pins() -> list[str]:
    """``name==version`` for each runtime dependency's lower bound in pyproject.toml."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for dep in deps:
        match = re.match(r"^([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9a-zA-Z.]*)", dep)
        assert match, f"{dep!r} has no lower bound: every dependency needs one, tested here"
        pins.append(f"{match[1]}=={match[2]}")
    return pins


def run(
    *args: str | Path, env: dict[str, str] | None = None, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


@pytest.fixture(scope="module")
def lowest_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("lowest")
    venv = base / "venv"
    made = run(sys.executable, "-m", "venv", venv)
    assert made.returncode == 0, made.stderr
    pip = [venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check"]
    pins = lowest_pins()
    # The index must answer before we blame the ranges for a failed install.
    probe = run(
        *pip, "download", "--no-deps", "--only-binary=:all:", "-d", base / "probe", pins[-1], timeout=120
    )
    if probe.returncode != 0:
        pytest.skip(f"package index unreachable: {probe.stderr.strip().splitlines()[-1:]}")
    constraints = base / "lowest.txt"
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    installed = run(*pip, "install", "-q", "-c", constraints, REPO)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    frozen = run(*pip, "freeze").stdout.lower()
    for pin in pins:
        assert pin.lower().replace("_", "-") in frozen.replace("_", "-"), (pin, frozen)
    return venv


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KROUTER_")}
    for name in ("CACHE", "STATE", "CONFIG"):
        (tmp / name).mkdir(exist_ok=True)
        env[f"KROUTER_{name}_DIR"] = str(tmp / name)
    return env


def test_lowest_versions_answer_serve_and_init(lowest_venv: Path, tmp_path: Path) -> None:
    krouter = lowest_venv / "bin" / "krouter"
    env = _env(tmp_path)
    asked = run(krouter, "ask", "which database do we use", "--vault", "demo", "--json", env=env, timeout=120)
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert json.loads(asked.stdout)["cited"][0]["path"] == "Decisions/Primary database.md"
    helped = run(krouter, "ask", "-h", env=env, timeout=60)
    assert helped.returncode == 0 and "Usage: krouter ask [OPTIONS] QUESTION" in helped.stdout, helped.stderr
    made = run(krouter, "init", tmp_path / "notes", env=env, timeout=60)
    assert made.returncode == 0 and "recorded as the default vault" in made.stdout, made.stderr
    served = run(lowest_venv / "bin" / "python", "-c", MCP_SESSION, krouter, env=env, timeout=120)
    assert served.returncode == 0, served.stderr[-3000:]
    out = json.loads(served.stdout)
    assert out["tools"] == ["krouter_ask", "krouter_read", "krouter_status", "krouter_teach"]
    assert out["text"].startswith("cite: Decisions/Primary database.md")

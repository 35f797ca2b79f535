"""The agent surfaces and operations: only the tool definitions load the MCP SDK, moved modules leave no
alias, the files read as package data are where the code reads them, and ARCHITECTURE.md shows the
trees as they are (imports and cycles of every module: test_layout.py)."""

from __future__ import annotations

import ast
import importlib.util
from importlib import resources
from pathlib import Path

import pytest

import krouter

PACKAGE = Path(krouter.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "vault_template" not in p.parts}


def test_the_mcp_sdk_is_imported_by_the_tool_definitions_alone() -> None:
    # The command, the service and the rest of the package stay importable without loading the SDK.
    sdk_users = sorted(
        m
        for m, path in MODULES.items()
        if any(
            (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "mcp")
            or (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "mcp" for a in n.names))
            for n in ast.parse(path.read_text(encoding="utf-8")).body
        )
    )
    assert sdk_users == ["krouter.agents.mcp.strict", "krouter.agents.mcp.tools"]


def test_moved_modules_leave_no_alias_behind() -> None:
    # Callers use the new paths; an old path that still imports would be a shim to keep in step.
    for old in (
        "krouter.mcp_server",
        "krouter.mcp_tools",
        "krouter.recall",
        "krouter.setup_agents",
        "krouter.session_import",
        "krouter.redaction",
        "krouter.watch",
        "krouter.watch_lease",
        "krouter.ask_socket",
        "krouter.units",
        "krouter.check",
        "krouter.vault_init",
        "krouter.config_cli",
    ):
        assert importlib.util.find_spec(old) is None, old


def test_agent_snippets_are_package_data() -> None:
    snippets = resources.files("krouter.agents").joinpath("snippets")
    assert sorted(p.name for p in snippets.iterdir()) == ["AGENTS.md", "CLAUDE.md", "SKILL.md", "krouter.mdc"]


def _documented_tree(top: str) -> set[str]:
    """The paths of the fenced tree that starts with ``top`` in docs/ARCHITECTURE.md (folders end in /)."""
    text = (PACKAGE.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split(f"```\n{top}\n", 1)[1].split("```", 1)[0]
    stack = [(-1, top)]
    out: set[str] = set()
    for line in block.splitlines():
        name = line.split()[0] if line.strip() else ""
        if not name.endswith((".py", "/")):
            continue  # a description carried over to the next line
        indent = len(line) - len(line.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        path = stack[-1][1] + name
        out.add(path)
        if name.endswith("/"):
            stack.append((indent, path))
    return out


@pytest.mark.parametrize("top", ["agents/", "ops/"])
def test_the_architecture_doc_shows_the_subsystem_tree_as_it_is(top: str) -> None:
    folder = PACKAGE / top
    actual = {
        p.relative_to(PACKAGE).as_posix() + ("/" if p.is_dir() else "")
        for p in folder.rglob("*")
        if "__pycache__" not in p.parts and p.name != "__init__.py" and (p.is_dir() or p.suffix == ".py")
    }
    assert _documented_tree(top) == actual

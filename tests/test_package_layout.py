"""The package's layout: the agent surfaces and operations load from any entry point, no module-level
import cycle anywhere in ``krouter``, and the files read as package data are where the code reads them."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import krouter

PACKAGE = Path(krouter.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "vault_template" not in p.parts}
SUBSYSTEMS = sorted(m for m in MODULES if m.startswith(("krouter.agents", "krouter.ops")))


def _load_time_imports(module: str) -> set[str]:
    """The krouter modules that importing ``module`` runs: its top-level imports (not those inside
    functions or under ``if TYPE_CHECKING``) and, for each, the packages above it."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named: set[str] = set()

    def scan(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    scan(node.body)
                    scan(node.orelse)
            elif isinstance(node, ast.Try):
                scan(node.body)
            elif isinstance(node, ast.Import):
                named.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    named.add(sub if sub in MODULES else base)

    scan(ast.parse(path.read_text(encoding="utf-8")).body)
    out: set[str] = set()
    for name in named:
        parts = name.split(".")
        out.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return {m for m in out if m in MODULES and m != module}


@pytest.mark.parametrize("module", SUBSYSTEMS)
def test_each_agent_and_operations_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    # Imported first, a module in a cycle meets its partner half-initialised and fails here.
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_no_module_level_import_cycle_in_the_package() -> None:
    graph = {m: _load_time_imports(m) for m in MODULES}
    # The parser sees the imports it is meant to check: a split module's parts, a sibling package's module.
    assert graph["krouter.agents.mcp.tools"] >= {"krouter.agents.mcp.service", "krouter.agents.mcp"}
    assert "krouter.ops.ask_socket.protocol" in graph["krouter.ops.ask_socket.client"]
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for dep in sorted(graph[module]):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(MODULES):
        visit(module, ())


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
    assert sdk_users == ["krouter.agents.mcp.tools"]


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

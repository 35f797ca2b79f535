"""The learner package loads from any entry point and its modules import each other without a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import krouter.learner

PACKAGE = Path(krouter.learner.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _learner_imports(module: str) -> set[str]:
    """The learner modules that ``module`` imports at load time (imports inside functions left out)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "krouter.learner":
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("krouter.learner."):
            out.add(str(node.module).rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith("krouter.learner."))
    return out


@pytest.mark.parametrize("module", MODULES)
def test_each_learner_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    # Imported first, a module in a cycle meets its partner half-initialised and fails here.
    proc = subprocess.run(
        [sys.executable, "-c", f"import krouter.learner.{module}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_learner_modules_import_each_other_without_a_cycle() -> None:
    graph = {m: _learner_imports(m) for m in MODULES}
    assert graph["nightly"] >= {"verify", "journal"}  # the parser sees the imports it is meant to check
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for dep in sorted(graph[module]):
            visit(dep, (*path, module))
        done.add(module)

    for module in MODULES:
        visit(module, ())

"""Shared test set-up: every test runs with its own cache, state and config directories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import krouter.index.refresh


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point indexes, the query log and config.toml at fresh tmp dirs, never at the user's own."""
    base = tmp_path_factory.mktemp("krouter-home")
    for name in ("CACHE", "STATE", "CONFIG"):
        folder = base / name.lower()
        folder.mkdir()
        monkeypatch.setenv(f"KROUTER_{name}_DIR", str(folder))
    # A vault named by the developer's environment must not leak into tests that rely on defaults.
    monkeypatch.delenv("KROUTER_VAULT", raising=False)
    # The semantic second opinion changes what near-miss questions get: its own tests turn it on
    # (test_semantic); every other test checks the lexical router, as a plain `pip install krouter`.
    monkeypatch.setenv("KROUTER_SEMANTIC", "off")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault of one note (``Note.md``), for the import tests that write sessions into it; a module that
    needs pages of its own defines its own ``vault``, which takes precedence."""
    v = tmp_path / "vault"
    v.mkdir()
    (v / "Note.md").write_text("# Note\n\nSomething.\n", encoding="utf-8")
    return v


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every full walk of a vault made through the index, counted (the real walk still runs)."""
    seen: list[str] = []
    real = krouter.index.refresh.walk

    def counting(root: Path, *args: object, **kwargs: object) -> Iterator[object]:
        seen.append(str(root))
        return real(root, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(krouter.index.refresh, "walk", counting)
    return seen


@pytest.fixture
def table_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The generation of every page table a Router loads (or patches), in order (the real load runs)."""
    from krouter.routing import router as router_module

    seen: list[int] = []
    real = router_module.load_tables

    def counted(index: object, folders: list[str], previous: object = None) -> object:
        loaded = real(index, folders, previous)  # type: ignore[arg-type]
        seen.append(loaded.generation)
        return loaded

    monkeypatch.setattr(router_module, "load_tables", counted)
    return seen


@pytest.fixture
def teaching_writes_at_once() -> None:
    """``pending_triggers = "none"``: an agent's verified pick is written at once, as before pending
    triggers (D50), for the tests of the write path itself; ``test_teach_pending`` tests the hold."""
    from krouter import config

    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")

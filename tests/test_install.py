"""install.sh end to end, in a throwaway HOME, from KROUTER_SOURCE=<this checkout>.

One module-scoped install (a fresh venv costs about a minute) runs the whole life cycle once, and each
test checks one claim about it: NO_TIMER installs no units; krouter answers on the demo vault; the units
are written and verify; a second run changes nothing; --uninstall keeps the vault and the query log
and removes the cache; a later --uninstall --purge-logs, with the venv gone, removes the query log.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SH = ROOT / "install.sh"
UNITS = ("krouter-learn.service", "krouter-learn.timer", "krouter-watch.service")
QUESTION = "which database do we use"

# The real HOME's pip settings (index mirrors, find-links) and pip cache: a new HOME must keep them, or
# the install would need a network this machine may not have, and would rebuild every wheel.
_REAL_HOME = Path.home()
_PIP_CONFIGS = (".config/pip/pip.conf", ".pip/pip.conf")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="install.sh is for POSIX systems")


def _pip_cache_dir() -> str:
    if os.environ.get("PIP_CACHE_DIR"):
        return os.environ["PIP_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or str(_REAL_HOME / ".cache")
    return str(Path(base) / "pip")


def _make_home(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    for rel in _PIP_CONFIGS:
        if (_REAL_HOME / rel).is_file():
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(_REAL_HOME / rel, home / rel)
    return home


def _env(home: Path, **extra: str) -> dict[str, str]:
    """The caller's environment with HOME moved and everything that points at the real user removed.

    XDG_RUNTIME_DIR and the bus address go too, so systemctl --user can never touch a real user manager.
    """
    drop = ("XDG_", "KROUTER_", "DBUS_SESSION_BUS_ADDRESS", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(home), PIP_CACHE_DIR=_pip_cache_dir(), **extra)
    return env


def _shells() -> list[str]:
    """sh, and dash too when present (the strictest common /bin/sh)."""
    return ["sh"] + (["dash"] if shutil.which("dash") else [])


def _install(home: Path, *args: str, sh: str = "sh", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sh, str(INSTALL_SH), *args],
        env=_env(home, **env),
        stdin=subprocess.DEVNULL,  # not a terminal: the "person in a checkout" rule must not fire
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@dataclass
class LifeCycle:
    """What each stage of the install life cycle left behind, recorded once for all the tests."""

    home: Path
    vault: Path
    vault2: Path
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    asks: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    units: dict[str, dict[str, bytes]] = field(default_factory=dict)
    vault_before: dict[str, str] = field(default_factory=dict)
    venv_python_inode: dict[str, int] = field(default_factory=dict)
    query_log: dict[str, bool] = field(default_factory=dict)
    cache: dict[str, bool] = field(default_factory=dict)
    # How a watcher started by hand ended after --uninstall: its exit code, or None if it outlived it.
    hand_watcher_exit: int | None = None
    # A project `krouter setup --write` was run in: its files before, after setup (digests).
    project: Path | None = None
    project_before: dict[str, str] = field(default_factory=dict)
    project_set_up: dict[str, str] = field(default_factory=dict)

    @property
    def venv(self) -> Path:
        return self.home / ".local/share/krouter/venv"

    @property
    def link(self) -> Path:
        return self.home / ".local/bin/krouter"

    @property
    def unit_dir(self) -> Path:
        return self.home / ".config/systemd/user"

    @property
    def state_dir(self) -> Path:
        return self.home / ".local/state/krouter"

    @property
    def cache_dir(self) -> Path:
        return self.home / ".cache/krouter"

    def ask(self, stage: str) -> None:
        self.asks[stage] = subprocess.run(
            [str(self.link), "ask", QUESTION, "--vault", "demo", "--json"],
            env=_env(self.home),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def snapshot(self, stage: str) -> None:
        self.units[stage] = {
            p.name: p.read_bytes() for p in sorted(self.unit_dir.glob("*")) if self.unit_dir.is_dir()
        }
        self.query_log[stage] = (self.state_dir / "queries.jsonl").is_file()
        self.cache[stage] = self.cache_dir.is_dir()
        python = self.venv / "bin/python"
        if python.exists():
            self.venv_python_inode[stage] = (self.venv / "pyvenv.cfg").stat().st_ino


@pytest.fixture(scope="module")
def life(tmp_path_factory: pytest.TempPathFactory) -> LifeCycle:
    base = tmp_path_factory.mktemp("install")
    cycle = LifeCycle(home=_make_home(base / "home"), vault=base / "notes", vault2=base / "other notes")
    shutil.copytree(ROOT / "vault_template", cycle.vault)
    cycle.vault_before = _tree_digest(cycle.vault)
    sh = _shells()[-1]
    src = {"KROUTER_SOURCE": str(ROOT)}

    # 1. Fresh install, NO_TIMER=1 even though --timer and --watch are asked for: it must win.
    cycle.runs["no_timer"] = _install(
        cycle.home, "--timer", "--watch", "--vault", str(cycle.vault), sh=sh, KROUTER_NO_TIMER="1", **src
    )
    cycle.snapshot("no_timer")
    cycle.ask("no_timer")
    # 2. Opt in to the timer and the watcher (upgrades the same venv), with the vault from the env.
    cycle.runs["timer"] = _install(
        cycle.home, "--timer", "--watch", sh="sh", KROUTER_VAULT=str(cycle.vault), **src
    )
    cycle.snapshot("timer")
    # 3. The same again: nothing may change.
    cycle.runs["again"] = _install(
        cycle.home, "--timer", "--watch", sh=sh, KROUTER_VAULT=str(cycle.vault), **src
    )
    cycle.snapshot("again")
    cycle.ask("again")
    # 3b. A lookup-only run (no timer flags, not a terminal) naming another vault: the units installed
    # earlier are re-rendered for it, not left naming the old one.
    shutil.copytree(ROOT / "vault_template", cycle.vault2)
    cycle.runs["lookup_only"] = _install(cycle.home, sh=sh, KROUTER_VAULT=str(cycle.vault2), **src)
    cycle.snapshot("lookup_only")
    # 3c. A watcher started by hand, as the installer advises where systemd is not reachable.
    watcher = subprocess.Popen(
        [str(cycle.link), "watch", "--vault", str(cycle.vault2)],
        env=_env(cycle.home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: any(cycle.cache_dir.rglob("*.watch")) or watcher.poll() is not None)
    # 3d. A project the installed krouter was set up in, with the user's own CLAUDE.md.
    cycle.project = base / "project"
    cycle.project.mkdir()
    (cycle.project / "CLAUDE.md").write_text("# House rules\n\nRun make test.\n", encoding="utf-8")
    cycle.project_before = _tree_digest(cycle.project)
    cycle.runs["setup"] = subprocess.run(
        [str(cycle.link), "setup", "claude-code", "--write", *_project_args(cycle)],
        env=_env(cycle.home),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    cycle.project_set_up = _tree_digest(cycle.project)
    # 4. Uninstall (without --purge-logs).
    cycle.runs["uninstall"] = _install(cycle.home, "--uninstall", sh=sh)
    try:
        cycle.hand_watcher_exit = watcher.wait(timeout=30)
    except subprocess.TimeoutExpired:
        watcher.kill()
        watcher.wait()
    cycle.snapshot("uninstall")
    # 5. Purge the logs afterwards: the venv is gone, the state dir must still be found.
    cycle.runs["purge"] = _install(cycle.home, "--uninstall", "--purge-logs", sh=sh)
    cycle.snapshot("purge")
    return cycle


def _project_args(cycle: LifeCycle) -> list[str]:
    return ["--project", str(cycle.project), "--vault", str(cycle.vault2)]


def _ok(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 0, f"exit {run.returncode}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"


def test_every_stage_succeeds(life: LifeCycle) -> None:
    for run in life.runs.values():
        _ok(run)


def test_no_timer_installs_no_units(life: LifeCycle) -> None:
    assert life.units["no_timer"] == {}
    assert "installing no units" in life.runs["no_timer"].stdout


def test_installer_says_what_it_does(life: LifeCycle) -> None:
    first = life.runs["no_timer"].stdout
    # pip's quiet minute is announced, not silent.
    assert "pip is installing KRouter" in first
    # A vault was named (--vault): the last hint is about it, never "(the demo vault)".
    assert f"(vault {life.vault})" in first and "demo" not in first
    for run in life.runs.values():
        out = run.stdout + run.stderr
        assert not ("installing the nightly learner too" in out and "no units installed" in out), out
    # A vault is configured (KROUTER_VAULT): the hint is about it, not the demo vault.
    again = life.runs["again"].stdout
    assert f"(vault {life.vault})" in again and "demo" not in again


def test_lookup_only_run_rerenders_earlier_units(life: LifeCycle) -> None:
    _ok(life.runs["lookup_only"])
    before, after = life.units["again"], life.units["lookup_only"]
    assert set(after) == set(before) and after != before
    for name, text in after.items():
        if name.endswith(".service"):
            assert str(life.vault2).encode() in text and str(life.vault).encode() + b"'" not in text, name


def test_krouter_on_path_answers_the_demo_vault(life: LifeCycle) -> None:
    for stage in ("no_timer", "again"):
        run = life.asks[stage]
        _ok(run)
        receipt = json.loads(run.stdout)
        assert receipt["decision"] in ("cite", "redirect"), receipt
        assert json.dumps(receipt, ensure_ascii=False).count("Primary database") >= 1


def test_timer_run_writes_templated_units(life: LifeCycle) -> None:
    units = life.units["timer"]
    assert sorted(units) == sorted(UNITS)
    service = units["krouter-learn.service"].decode()
    assert f'ExecStart="{life.venv}/bin/krouter" learn --vault "{life.vault.resolve()}"' in service
    assert f'"{life.state_dir}"' in service
    assert not re.search(r"@[A-Z_]+@", service)
    out = life.runs["timer"].stdout
    assert "not reachable" in out  # no user manager here: says so, and what to do
    # ... for each unit it wrote: the walkthrough found the watcher left out of that advice.
    assert "enable --now krouter-learn.timer" in out and "enable --now krouter-watch.service" in out
    assert "' watch --vault '" in out


def test_second_run_is_idempotent(life: LifeCycle) -> None:
    assert "upgrading KRouter" in life.runs["again"].stdout
    assert life.units["again"] == life.units["timer"]
    assert life.venv_python_inode["again"] == life.venv_python_inode["no_timer"]  # same venv, not rebuilt


def test_uninstall_keeps_vault_and_query_log(life: LifeCycle) -> None:
    assert not life.venv.exists()
    assert not life.link.exists() and not life.link.is_symlink()
    assert life.units["uninstall"] == {}
    assert _tree_digest(life.vault) == life.vault_before
    assert life.query_log["again"] and life.query_log["uninstall"]  # the asks were logged, and kept


def test_uninstall_stops_a_watcher_started_by_hand(life: LifeCycle) -> None:
    # Left running, it served lookups from a removed install (issue 16's walkthrough: an orphan).
    assert life.hand_watcher_exit is not None
    assert "stopped the krouter watch" in life.runs["uninstall"].stdout


def test_uninstall_takes_krouter_out_of_the_projects_it_was_set_up_in(life: LifeCycle) -> None:
    # Left in, .mcp.json and CLAUDE.md started the krouter of a venv that is gone.
    assert life.runs["setup"].returncode == 0, life.runs["setup"].stderr
    assert ".mcp.json" in life.project_set_up and life.project_set_up != life.project_before
    assert life.project is not None and _tree_digest(life.project) == life.project_before
    assert "removed: .mcp.json" in life.runs["uninstall"].stdout
    assert "agent configs that may still start" not in life.runs["uninstall"].stdout


def test_uninstall_removes_the_cache(life: LifeCycle) -> None:
    assert life.cache["again"] and not life.cache["uninstall"]  # the asks built an index; it is gone
    assert f"removed {life.cache_dir}" in life.runs["uninstall"].stdout


def test_purge_logs_after_uninstall_removes_the_state_dir(life: LifeCycle) -> None:
    assert not life.state_dir.exists()
    assert f"removed {life.state_dir}" in life.runs["purge"].stdout


def test_units_pass_systemd_analyze_verify(life: LifeCycle, tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd provides it)")
    # The venv is gone after uninstall; verify needs ExecStart= to exist, so stand a stub in its place.
    unit_dir = tmp_path / "units"
    unit_dir.mkdir()
    for name, text in life.units["timer"].items():
        (unit_dir / name).write_bytes(text)
    stub = life.venv / "bin" / "krouter"
    stub.parent.mkdir(parents=True)
    stub.write_text("#!/bin/sh\n")
    stub.chmod(0o755)
    runtime = tmp_path / "runtime"  # the user manager needs one; no real session is touched
    runtime.mkdir(mode=0o700)
    try:
        run = subprocess.run(
            [analyze, "--user", "verify", *UNITS],
            cwd=unit_dir,
            env={**_env(life.home), "XDG_RUNTIME_DIR": str(runtime)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        shutil.rmtree(life.venv.parent)
    assert run.returncode == 0 and not run.stderr.strip(), run.stderr

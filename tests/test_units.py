"""The service unit templates and install.sh's fast paths: no venv is built here (test_install does that).

Rendering goes through krouter.ops.units, which install.sh calls; systemd-analyze checks the result where it
is installed, and the exposure score is held under the figure SECURITY.md reports.
"""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krouter.ops import units

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SH = ROOT / "install.sh"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is not installed (apt-get install systemd provides it)"
)
# SECURITY.md reports the scores; a change that loosens the sandbox past these must update it.
MAX_EXPOSURE = {"krouter-learn.service": 1.5, "krouter-watch.service": 0.8}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "my notes 100%"  # a space and a `%`: both need care in a unit file
    folder.mkdir()
    (folder / "a.md").write_text("# A\n", encoding="utf-8")
    return folder


def _analyze(args: list[str], cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    runtime = tmp_path / "runtime"  # the --user manager wants one; no real session is touched
    runtime.mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(
        [str(ANALYZE), "--user", *args],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(runtime)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_systemd_units_render_with_quoted_paths(tmp_path: Path, vault: Path) -> None:
    written = units.write_units("systemd", tmp_path / "out", vault, ["learn", "watch"])
    assert sorted(p.name for p in written) == sorted(
        ["krouter-learn.service", "krouter-learn.timer", "krouter-watch.service"]
    )
    learn = (tmp_path / "out" / "krouter-learn.service").read_text(encoding="utf-8")
    escaped = str(vault.resolve()).replace("%", "%%")
    assert f'learn --vault "{escaped}"' in learn
    assert f'BindPaths="{escaped}"' in learn
    assert not re.search(r"@[A-Z_]+@", learn)


def test_only_the_chosen_jobs_are_written(tmp_path: Path, vault: Path) -> None:
    written = units.write_units("systemd", tmp_path, vault, ["watch"])
    assert [p.name for p in written] == ["krouter-watch.service"]


@pytest.mark.parametrize("bad", ['with"quote', "back\\slash", "dollar$HOME", "new\nline", "co:lon"])
def test_unsafe_paths_are_refused(tmp_path: Path, bad: str) -> None:
    folder = tmp_path / bad
    folder.mkdir()
    with pytest.raises(units.UnitError):
        units.write_units("systemd", tmp_path / "out", folder, ["learn"])


def test_the_demo_vault_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from krouter import config
    from krouter.config import bundled_vault

    with pytest.raises(units.UnitError, match="demo vault"):
        units.write_units("systemd", tmp_path, bundled_vault(), ["learn"])
    # A docs review: installed from a checkout, the package has its own copy of the demo, and the
    # checkout's (the README's first command names it) was taken: the timer then failed every night.
    installed = tmp_path / "site-packages" / "krouter" / "vault_template"
    shutil.copytree(bundled_vault(), installed)
    clone = bundled_vault()
    monkeypatch.setattr(config, "bundled_vault", lambda: installed)
    with pytest.raises(units.UnitError, match="demo vault"):
        units.write_units("systemd", tmp_path / "units", clone, ["learn", "watch"])


def test_units_are_written_durably_through_fresh_temp_files(
    tmp_path: Path, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep", encoding="utf-8")
    # A fixed temp name known in advance could be planted as a symlink; a fresh one never is.
    (out / ".krouter-watch.service.tmp").symlink_to(victim)
    synced: list[int] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    units.write_units("systemd", out, vault, ["watch"])
    assert victim.read_text(encoding="utf-8") == "keep"
    assert "ExecStart=" in (out / "krouter-watch.service").read_text(encoding="utf-8")
    assert len(synced) == 2  # the unit, then its folder


def test_launchd_plists_parse_and_carry_the_paths(tmp_path: Path) -> None:
    folder = tmp_path / "R&D <notes>"  # XML-special characters must be escaped, not break the plist
    folder.mkdir()
    units.write_units("launchd", tmp_path / "agents", folder, ["learn", "watch"])
    learn = plistlib.loads((tmp_path / "agents" / "com.krouter.learn.plist").read_bytes())
    assert learn["Label"] == "com.krouter.learn"
    assert learn["ProgramArguments"][-1] == str(folder.resolve())
    assert learn["ProgramArguments"][-2] == str(Path(sys.prefix) / "bin" / "krouter")
    assert learn["StartCalendarInterval"] == {"Hour": 3, "Minute": 30}
    watch = plistlib.loads((tmp_path / "agents" / "com.krouter.watch.plist").read_bytes())
    assert watch["ProgramArguments"][1:] == ["watch", "--vault", str(folder.resolve())]


def test_path_command_prints_the_dirs(capsys: pytest.CaptureFixture[str], monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("KROUTER_STATE_DIR", str(tmp_path / "state"))
    assert units.main(["path", "state"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "state")
    assert units.main(["path", "vault"]) == 0
    assert capsys.readouterr().out == "\n"  # nothing configured: empty, so install.sh can test for it


@needs_analyze
def test_rendered_units_pass_systemd_analyze_verify(tmp_path: Path, vault: Path) -> None:
    out = tmp_path / "out"
    units.write_units("systemd", out, vault, ["learn", "watch"])
    if not (Path(sys.prefix) / "bin" / "krouter").exists():
        pytest.skip("verify needs ExecStart= to exist; krouter is not installed in this environment")
    run = _analyze(
        ["verify", "krouter-learn.service", "krouter-learn.timer", "krouter-watch.service"], out, tmp_path
    )
    assert run.returncode == 0 and not run.stderr.strip(), run.stderr


@needs_analyze
@pytest.mark.parametrize("unit", sorted(MAX_EXPOSURE))
def test_sandbox_exposure_stays_low(tmp_path: Path, vault: Path, unit: str) -> None:
    out = tmp_path / "out"
    units.write_units("systemd", out, vault, ["learn", "watch"])
    run = _analyze(["security", "--offline=true", unit], out, tmp_path)
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+)", run.stdout)
    if match is None:
        pytest.skip(f"this systemd-analyze cannot score units offline: {run.stderr.strip()[:200]}")
    assert float(match.group(1)) <= MAX_EXPOSURE[unit], run.stdout


# ---------------------------------------------------------------- install.sh without building a venv


def _sh(*args: str, env: dict[str, str] | None = None, shell: str = "sh") -> subprocess.CompletedProcess[str]:
    base = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"}
    return subprocess.run(
        [shell, str(INSTALL_SH), *args],
        env={**base, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _fake_python(tmp_path: Path, version: str, has_venv: bool) -> Path:
    """A stand-in interpreter: answers the version check, and the venv check as told."""
    fake = tmp_path / "python3"
    major, minor = version.split(".")
    fake.write_text(
        "#!/bin/sh\n"
        'case "$2" in\n'
        f"  *version_info\\ \\>=*) [ {minor} -ge 11 ] && exit 0 || exit 1 ;;\n"
        f'  *print*) echo "{major}.{minor}"; exit 0 ;;\n'
        f'  "import venv, ensurepip") exit {0 if has_venv else 1} ;;\n'
        "esac\n"
        "exit 0\n"
    )
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("shell", ["sh", "dash"])
def test_old_python_gives_a_clear_error(tmp_path: Path, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    run = _sh(env={"KROUTER_PYTHON": str(_fake_python(tmp_path, "3.9", True))}, shell=shell)
    assert run.returncode == 1
    assert "Python 3.9" in run.stderr and "3.11 or newer" in run.stderr


def test_missing_venv_module_gives_a_clear_error(tmp_path: Path) -> None:
    run = _sh(env={"KROUTER_PYTHON": str(_fake_python(tmp_path, "3.12", False))})
    assert run.returncode == 1
    assert "venv" in run.stderr and "apt install python3.12-venv" in run.stderr


def test_no_python_on_path_gives_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    for tool in ("uname", "dirname", "grep", "sh"):  # what the script needs before it looks for python
        if shutil.which(tool):
            (empty / tool).symlink_to(shutil.which(tool))
    run = _sh(env={"PATH": str(empty)})
    assert run.returncode == 1 and "needs Python 3.11 or newer" in run.stderr


def test_bad_options_are_refused() -> None:
    # A usage error exits 2, as krouter's own do; 1 is left for a failed install.
    run = _sh("--hepl")
    assert run.returncode == 2 and "unknown option: --hepl (see --help)" in run.stderr
    run = _sh("--purge-logs")
    assert run.returncode == 2 and "only goes with --uninstall" in run.stderr
    run = _sh("--vault")
    assert run.returncode == 2 and "--vault needs a folder" in run.stderr
    assert _sh("--help").returncode == 0


@pytest.mark.parametrize("shell", ["sh", "dash", "bash"])
def test_install_sh_parses(shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    assert subprocess.run([shell, "-n", str(INSTALL_SH)], check=False).returncode == 0


def test_install_sh_is_shellcheck_clean() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    run = subprocess.run(
        ["shellcheck", "-s", "sh", str(INSTALL_SH)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout


def _uninstall_home(tmp_path: Path) -> Path:
    """A HOME with KRouter's default cache and state dirs filled, and no venv (already removed)."""
    home = tmp_path / "home"
    for rel in (".cache/krouter/indexes", ".local/state/krouter"):
        (home / rel).mkdir(parents=True)
    (home / ".cache/krouter/indexes/notes.sqlite3").write_text("terms of private notes", encoding="utf-8")
    (home / ".local/state/krouter/queries.jsonl").write_text("{}\n", encoding="utf-8")
    return home


def test_uninstall_removes_the_cache_and_keeps_the_state(tmp_path: Path) -> None:
    home = _uninstall_home(tmp_path)
    run = _sh("--uninstall", env={"HOME": str(home)})
    assert run.returncode == 0, run.stderr
    assert not (home / ".cache/krouter").exists()
    assert "indexes and jieba cache" in run.stdout
    assert (home / ".local/state/krouter/queries.jsonl").is_file()
    assert "--purge-logs deletes it" in run.stdout


def test_purge_logs_works_after_the_venv_is_gone(tmp_path: Path) -> None:
    home = _uninstall_home(tmp_path)
    assert _sh("--uninstall", env={"HOME": str(home)}).returncode == 0
    run = _sh("--uninstall", "--purge-logs", env={"HOME": str(home)})
    assert run.returncode == 0, run.stderr
    assert not (home / ".local/state/krouter").exists()
    assert "could not find" not in run.stderr


@pytest.mark.skipif(sys.platform == "darwin", reason="the Linux defaults are checked here")
@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"XDG_STATE_HOME": "@/xdg-state", "XDG_CACHE_HOME": "@/xdg-cache"},
        {"XDG_STATE_HOME": "relative/is-ignored", "XDG_CACHE_HOME": ""},
        {"KROUTER_STATE_DIR": "@/own/krouter", "KROUTER_CACHE_DIR": "@/own-cache/krouter"},
    ],
)
def test_uninstall_finds_the_dirs_krouter_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overrides: dict[str, str]
) -> None:
    from krouter import config

    home = tmp_path / "home"
    env = {"HOME": str(home), **{k: v.replace("@", str(tmp_path)) for k, v in overrides.items()}}
    for name in ("KROUTER_STATE_DIR", "KROUTER_CACHE_DIR", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    state, cache = config.state_dir(), config.cache_dir()  # what krouter itself would use
    for folder in (state, cache):
        folder.mkdir(parents=True)
        (folder / "data").write_text("x", encoding="utf-8")
    run = _sh("--uninstall", "--purge-logs", env=env)
    assert run.returncode == 0, run.stderr
    assert not state.exists() and not cache.exists()


def test_uninstall_never_deletes_an_override_not_named_krouter(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "precious.txt").write_text("mine", encoding="utf-8")
    run = _sh("--uninstall", "--purge-logs", env={"HOME": str(home), "KROUTER_STATE_DIR": str(home)})
    assert run.returncode == 0, run.stderr
    assert (home / "precious.txt").read_text(encoding="utf-8") == "mine"
    assert "delete it by hand" in run.stderr

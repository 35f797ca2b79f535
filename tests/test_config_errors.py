"""A config.toml KRouter cannot read is an error everywhere, never a silent fallback to the defaults.

The defaults log every question and ignore nothing: falling back to them over a typo in one setting
("semantic = "of"") indexed and cited the pages the user's ``ignore`` patterns leave out, and logged the
questions of a user who had turned the log off. So a lookup refuses to run until the file is fixed,
and says which file and which setting (as git does over a broken .git/config).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner
from waiting import wait_for, write

from krouter import Router, config
from krouter.cli import app
from krouter.errors import ConfigError
from krouter.routing import querylog

runner = CliRunner()

BROKEN = {
    "a wrong value": 'semantic = "of"\n',
    "a wrong type": "query_log = 'no'\n",
    "not TOML": 'learn_model = "claude\n',
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root / "Team" / "Salaries.md", "# Salaries\n\nEveryone earns 90k a year.\n")
    write(root / "Runbooks" / "Deploy.md", "# Deploy\n\nDeploys go out with fly deploy from main.\n")
    return root


def settings(text: str) -> None:
    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_text(text, encoding="utf-8")


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_a_broken_setting_stops_the_lookup_and_says_where(vault: Path, problem: str) -> None:
    settings('ignore = ["Team/"]\nquery_log = false\n' + BROKEN[problem])
    result = runner.invoke(app, ["ask", "how much does everyone earn", "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert "config.toml" in result.stderr and "90k" not in result.stdout
    assert "Team/Salaries.md" not in result.stdout
    assert not querylog.log_path().exists()


def test_the_library_raises_rather_than_index_what_the_user_left_out(vault: Path) -> None:
    settings('ignore = ["Team/"]\nsemantic = "of"\n')
    with pytest.raises(ConfigError, match="semantic"), Router(vault) as router:
        router.ask("how much does everyone earn")
    settings('ignore = ["Team/"]\nsemantic = "off"\n')
    with Router(vault) as router:
        assert router.ask("how much does everyone earn").decision == "refuse"


def test_status_names_the_broken_file(vault: Path) -> None:
    settings('semantic = "of"\n')
    result = runner.invoke(app, ["status", "--vault", str(vault)])
    assert result.exit_code == 1 and "config.toml" in result.stderr and "'semantic'" in result.stderr


def test_an_mcp_call_says_the_settings_are_broken_until_they_are_fixed(vault: Path) -> None:
    from krouter.agents.mcp.replies import ask_result
    from krouter.agents.mcp.service import VaultService

    service = VaultService(vault, debounce=0.05, rescan=3600)
    service.start()

    def cited() -> str | None:
        out = asyncio.run(service.run(lambda r: ask_result(r, "how much does everyone earn", 3)))
        return out["cited"][0]["path"] if out["decision"] == "cite" else None

    def refused_for_config() -> bool:
        try:
            cited()
        except ConfigError:
            return True
        return False

    try:
        assert cited() == "Team/Salaries.md"
        settings('ignore = ["Team/"]\nsemantic = "of"\n')
        wait_for(refused_for_config)
        settings('ignore = ["Team/"]\n')
        wait_for(lambda: not refused_for_config() and cited() is None)
    finally:
        service.close()

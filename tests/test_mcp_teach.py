"""krouter_teach over a real stdio MCP session (official client): checked, written, undoable, bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_stdio import server_params, text_of
from typer.testing import CliRunner

from krouter.cli import app
from krouter.routing.phrasings import MAX_PHRASINGS

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")

PAGES = {
    "Runbooks/Code review.md": "---\ntitle: Code review\n---\n# Code review\n\n"
    "Every pull request needs two approvals before it can be merged.\n",
    "Runbooks/Payments API timeouts.md": "---\ntitle: Payments API timeouts\n---\n# Payments API timeouts\n\n"
    "The read timeout for Stripe calls is 10 seconds.\n",
    "Search/Search service.md": "# Search service\n\nThe search service indexes invoices every night.\n",
    "Runbooks/Email API timeouts.md": "# Email API timeouts\n\nThe Postmark API timeout is 5 seconds for all calls.\n",
    "Clippings/Approvals.md": "A merge should need at most one sign-off, says this article.\n",
}
MERGE_Q = "How many sign-offs does a merge need?"
QUOTE = "Every pull request needs two approvals before it can be merged."


def make_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_teach_over_stdio(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    before = snapshot(vault)
    params = server_params(vault)
    taught: dict[str, str] = {}

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=30) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                schema = tools["krouter_teach"].input_schema
                assert set(schema["required"]) == {"question", "path", "quote"}
                assert "phrasings" in schema["properties"]

                async def ask(q: str) -> dict[str, Any]:
                    result = await client.call_tool("krouter_ask", {"question": q})
                    assert result.structured_content is not None
                    return result.structured_content

                refused = await ask(MERGE_Q)
                assert refused["decision"] == "refuse"
                # The refusal names the closest pages with their lines, and says to read and teach.
                assert f"{refused['closest']!r} (line " in refused["next_step"]
                assert "krouter_read" in refused["next_step"] and "krouter_teach" in refused["next_step"]
                # Refused checks: nothing written, and the reply says why.
                for args, why in (
                    (
                        {"path": "Runbooks/Code review.md", "quote": "Merges need three sign-offs."},
                        "not on the page",
                    ),
                    ({"path": "../outside.md", "quote": QUOTE}, "leaves the vault"),
                    (
                        {
                            "path": "Clippings/Approvals.md",
                            "quote": "A merge should need at most one sign-off, says this article.",
                        },
                        "clippings",
                    ),
                ):
                    res = await client.call_tool("krouter_teach", {"question": MERGE_Q, **args})
                    assert not res.is_error and why in text_of(res), text_of(res)
                    assert text_of(res).startswith("not taught, nothing written")
                over = await client.call_tool(
                    "krouter_teach",
                    {
                        "question": MERGE_Q,
                        "path": "Runbooks/Code review.md",
                        "quote": QUOTE,
                        "phrasings": [f"p{n}" for n in range(MAX_PHRASINGS + 1)],
                    },
                )
                assert over.is_error and f"at most {MAX_PHRASINGS}" in text_of(over)
                assert snapshot(vault) == before

                res = await client.call_tool(
                    "krouter_teach", {"question": MERGE_Q, "path": "Runbooks/Code review.md", "quote": QUOTE}
                )
                reply = text_of(res)
                assert reply.startswith("taught: added the trigger"), reply
                taught["run"] = reply.split("(run ", 1)[1].split(";", 1)[0]
                # The server sees its own edit: the next wording cites the page.
                nxt = await ask("how many sign-offs does a merge need before it lands")
                assert nxt["decision"] == "cite" and nxt["cited"][0]["path"] == "Runbooks/Code review.md"

                # A neighbour: the page holds a real sentence, but lacks 'search', which another page holds.
                res = await client.call_tool(
                    "krouter_teach",
                    {
                        "question": "What's the timeout for calls to the search API?",
                        "path": "Runbooks/Payments API timeouts.md",
                        "quote": "The read timeout for Stripe calls is 10 seconds.",
                        "phrasings": ["The read timeout for Stripe calls is 10 seconds."],
                    },
                )
                assert "neighbour" in text_of(res), text_of(res)

    anyio.run(session)
    res = CliRunner().invoke(app, ["learn", "--list"])
    assert taught["run"] in res.output and "Runbooks/Code review.md" in res.output
    assert CliRunner().invoke(app, ["learn", "--undo", taught["run"]]).exit_code == 0
    assert snapshot(vault) == before


def test_read_sends_a_page_once_and_teach_replies_with_typed_fields(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    params = server_params(vault)

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=30) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert tools["krouter_teach"].output_schema is not None
                assert "run_id" in tools["krouter_teach"].output_schema["properties"]
                read = await client.call_tool("krouter_read", {"path": "Runbooks/Code review.md"})
                # The page text once, as text: no structured copy of it.
                assert read.structured_content is None
                assert QUOTE in text_of(read)
                res = await client.call_tool(
                    "krouter_teach",
                    {"question": MERGE_Q, "path": "Runbooks/Code review.md", "quote": "Not on the page."},
                )
                assert res.structured_content is not None
                assert res.structured_content["status"] == "not-taught"
                assert res.structured_content["run_id"] is None and res.structured_content["reason"]

    anyio.run(session)


@pytest.mark.parametrize("pending", ["none", "all"])
def test_teach_never_writes_into_the_demo_vault(tmp_path: Path, pending: str) -> None:
    """A documentation audit: `krouter teach --vault demo` refuses (the demo vault lives inside the
    installed package), but `krouter_teach` on a server started with `--vault demo` edited the package's
    page, or, by default, held a pick that neither --accept nor --reject could then close."""
    from krouter.config import bundled_vault
    from krouter.learner import pending as holds

    assert CliRunner().invoke(app, ["config", "set", "pending_triggers", pending]).exit_code == 0
    demo = bundled_vault()
    before = snapshot(demo)
    page = "Runbooks/Payments API timeout.md"
    line = next(
        s.strip() for s in (demo / page).read_text(encoding="utf-8").splitlines() if "times out after" in s
    )

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(server_params("demo"), read_timeout_seconds=30) as client:
                res = await client.call_tool(
                    "krouter_teach", {"question": "paystream connect limit", "path": page, "quote": line}
                )
                assert res.structured_content is not None
                assert res.structured_content["status"] == "not-taught", text_of(res)
                assert "demo vault is read-only" in res.structured_content["reason"]

    anyio.run(session)
    assert snapshot(demo) == before
    assert not holds.open_holds(demo)


def test_a_hold_an_earlier_version_made_in_the_demo_vault_can_be_rejected(tmp_path: Path) -> None:
    """Such a hold could be neither accepted nor rejected ("the bundled demo vault is read-only"): a reject
    writes no page, and closes it; an accept is still refused."""
    from krouter.config import bundled_vault
    from krouter.learner import pending as holds

    demo = bundled_vault()
    kept = holds.hold(
        demo,
        "Runbooks/Payments API timeout.md",
        "paystream limit",
        "x.",
        source="agent",
        lane="agent",
        model="-",
    )
    accepted = CliRunner().invoke(app, ["learn", "--accept", str(kept["pending"])])
    assert accepted.exit_code == 2 and "read-only" in accepted.output
    rejected = CliRunner().invoke(app, ["learn", "--reject", str(kept["pending"])])
    assert rejected.exit_code == 0, rejected.output
    assert not holds.open_holds(demo)

"""``krouter recall-context``: a proactive-recall hook for agents (Claude Code ``UserPromptSubmit``).

Reads the user's prompt on stdin and prints a short block naming the page of the vault that answers it —
only when the router would cite. Most prompts are not questions about the user's notes, so silence is
the usual and correct output: a refusal prints nothing at all.

A hook runs on every turn, so this command must never get in the agent's way: no model, no network, a
hard time bound, and any failure (bad input, missing vault, broken index) is logged to stderr and ends
with exit 0 and empty stdout.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from krouter.cli_options import NamedVaultOption
from krouter.safe_text import clean, visible_text

if TYPE_CHECKING:
    from krouter.receipt import Receipt

log = logging.getLogger("krouter.recall")

DEFAULT_TIMEOUT_S = 3.0
# Long prompts are mostly pasted code or logs; the question, if any, is near the start.
MAX_PROMPT_CHARS = 2000
MAX_STDIN_BYTES = 1_000_000


def prompt_from_input(raw: str) -> str:
    """The prompt text: the ``prompt`` field of hook JSON, or the input itself when it is plain text."""
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        if isinstance(data, dict):
            prompt = data.get("prompt")
            return prompt.strip() if isinstance(prompt, str) else ""
    return raw


def resolve_vault(vault: Path | None) -> Path | None:
    """The vault named by --vault, $KROUTER_VAULT or config.toml; None when the user named none.

    Unlike ``krouter ask``, the hook does not fall back to the bundled demo vault: recalling demo pages
    into a real session would be noise.
    """
    if vault is not None:
        return vault.expanduser()
    env = os.environ.get("KROUTER_VAULT")
    if env:
        return Path(env).expanduser()
    from krouter.config import load_config

    return load_config().vault


def render(receipt: Receipt, vault: Path) -> str:
    """The block printed into the agent's context for a cited page (empty for a refusal).

    The suggested ``krouter read`` names ``vault``: the agent's shell may lack the hook's
    $KROUTER_VAULT, and without it the read would go to another vault (the demo one, by default).
    """
    top = receipt.top
    if receipt.decision != "cite" or top is None:
        return ""
    lines = [
        "<krouter-recall>",
        f"The user's notes may answer this: {top.path} ({top.title}), line {top.line}.",
    ]
    if top.snippet:
        lines.append(f"  > {top.snippet}")
    if top.via:
        lines.append(f"  (the older page {top.via} was replaced by this one; do not rely on the old one)")
    read = shlex.join(["krouter", "read", "--vault", str(vault), top.path])
    lines.append(f"Read it before relying on it (krouter_read, or: {read}), and cite the path.")
    lines.append("</krouter-recall>")
    return "\n".join(lines)


def recall(prompt: str, vault: Path) -> str:
    """Look the prompt up and return the block to print (empty when the router refuses)."""
    from krouter.router import Router

    prompt = prompt[:MAX_PROMPT_CHARS]
    with Router(vault) as router:
        # decide(), not ask(): every prompt of every session is not a question to the vault, and
        # logging them all would bury the learner's real weak questions under chat.
        return render(router.decide(prompt, k=1), router.root)


def _log_to_stderr() -> None:
    logger = logging.getLogger("krouter")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("krouter recall-context: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def recall_command(
    vault: NamedVaultOption = None,
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0.1, max=60.0, help="Give up (silently) after this many seconds."),
    ] = DEFAULT_TIMEOUT_S,
) -> None:
    """Hook for agents: print a short block citing the page that answers the prompt on stdin, or nothing.

    Accepts Claude Code UserPromptSubmit hook JSON ({"prompt": ...}) or plain text. Always exits 0.
    """
    _log_to_stderr()
    result: list[str] = []

    def work() -> None:
        try:
            raw = sys.stdin.buffer.read(MAX_STDIN_BYTES).decode("utf-8", errors="replace")
            prompt = clean(prompt_from_input(raw))
            if not prompt or prompt.startswith("/"):  # empty, or an agent slash command
                return
            root = resolve_vault(vault)
            if root is None:
                log.info("no vault configured (--vault, KROUTER_VAULT or config.toml); staying silent")
                return
            result.append(recall(prompt, root))
        except Exception as exc:  # a hook must never fail the agent's turn
            log.warning("staying silent after an error: %s: %s", type(exc).__name__, exc)

    # A daemon thread bounds the latency: a first-time index build of a huge vault must not stall a turn.
    thread = threading.Thread(target=work, name="krouter-recall", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        log.warning("no answer within %.1fs; staying silent (run `krouter index` to warm the index)", timeout)
        sys.stdout.flush()
        sys.stderr.flush()
        # Skip interpreter shutdown, which would wait on the worker's open SQLite transaction; the
        # transaction rolls back on its own.
        os._exit(0)
    if result and result[0]:
        typer.echo(visible_text(result[0]))

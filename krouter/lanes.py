"""How the learner calls a model ("lanes"): prompt in, text out. A lane never touches the vault.

- ``api``: the official ``anthropic`` SDK, with a timeout and bounded retries. Nothing runs locally.
- ``claude``: the Claude Code CLI in print mode with every tool disabled, no MCP servers, in an empty
  temporary working directory and a minimal environment.
- any other command: refused unless ``KROUTER_ALLOW_UNCONFINED=1``; its output is still only parsed as
  a proposal, like every other lane's.

Any failure to get an answer (HTTP 4xx/5xx, timeout, a CLI that exits non-zero) raises LaneError, which
the learner reports as "uncertain" and never as "no page answers".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from typing import Any, Protocol

from krouter.errors import KRouterError

DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
MAX_TOKENS = 2048
UNCONFINED_ENV = "KROUTER_ALLOW_UNCONFINED"
# Only what a CLI needs to find itself, its login (under HOME) and a temp folder; no tokens or other
# settings from the user's shell.
_PASS_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


class LaneError(KRouterError):
    """The model could not be asked or did not answer: the outcome is uncertain, nothing is written."""


class Lane(Protocol):
    """A way to ask a model one question and get its text back."""

    name: str
    model: str

    def complete(self, system: str, prompt: str) -> str:
        """The model's text reply, or LaneError."""
        ...


class ApiLane:
    """The Anthropic Messages API through the official SDK.

    ``http_client`` lets tests route the real client through a mocked transport.
    """

    name = "api"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        http_client: Any = None,
        base_url: str | None = None,
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._http_client = http_client
        self._base_url = base_url
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            # Imported here: the SDK costs about a second to import, and only the learner needs it.
            try:
                import anthropic
            except ImportError as exc:
                raise LaneError(
                    "the api lane needs the anthropic package: pip install 'krouter[learn]'"
                ) from exc
            kwargs: dict[str, Any] = {"timeout": self._timeout, "max_retries": self._max_retries}
            if self._api_key is not None:
                kwargs["api_key"] = self._api_key
            if self._http_client is not None:
                kwargs["http_client"] = self._http_client
            if self._base_url is not None:
                kwargs["base_url"] = self._base_url
            try:
                self._client = anthropic.Anthropic(**kwargs)
            except anthropic.AnthropicError as exc:
                raise LaneError(f"api lane not usable: {exc}") from exc
        return self._client

    def complete(self, system: str, prompt: str) -> str:
        """Send one message; HTTP errors, timeouts and odd replies become LaneError."""
        import anthropic

        client = self._get_client()
        try:
            reply = client.messages.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                system=system,
                messages=[{"role": "user", "content": prompt}],
            )
        except anthropic.APIStatusError as exc:
            raise LaneError(f"model API answered HTTP {exc.status_code}") from exc
        except anthropic.APITimeoutError as exc:
            raise LaneError("model API timed out") from exc
        except anthropic.APIError as exc:
            raise LaneError(f"model API error: {type(exc).__name__}") from exc
        texts = [
            getattr(block, "text", "") for block in reply.content if getattr(block, "type", "") == "text"
        ]
        if reply.stop_reason == "max_tokens":
            raise LaneError("model reply was cut off (max_tokens)")
        return "".join(texts)


class CommandLane:
    """A local CLI that reads the prompt on stdin and prints its reply, run confined as far as we can.

    ``argv`` is the full command. It runs in an empty temporary folder with a minimal environment, so
    it does not see the vault or the user's shell secrets through its working directory or env.
    """

    def __init__(self, name: str, argv: list[str], model: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.name = name
        self.argv = argv
        self.model = model
        self.timeout = timeout

    def complete(self, system: str, prompt: str) -> str:
        """Run the command once with the system text and prompt on stdin."""
        env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
        with tempfile.TemporaryDirectory(prefix="krouter-lane-") as cwd:
            try:
                proc = subprocess.run(
                    self.argv,
                    input=f"{system}\n\n{prompt}",
                    capture_output=True,
                    text=True,
                    encoding="utf-8",
                    errors="replace",
                    cwd=cwd,
                    env=env,
                    timeout=self.timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise LaneError(f"{self.name} lane timed out after {self.timeout:.0f}s") from exc
            except OSError as exc:
                raise LaneError(f"{self.name} lane could not start: {exc}") from exc
        if proc.returncode != 0:
            tail = " ".join(proc.stderr.split())[-200:]
            raise LaneError(f"{self.name} lane exited {proc.returncode}: {tail}")
        return proc.stdout


def claude_lane(model: str, binary: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> CommandLane:
    """The Claude Code CLI with no tools at all: prompt in, text out."""
    exe = binary or shutil.which("claude")
    if not exe:
        raise LaneError("the claude lane needs the 'claude' command on PATH")
    argv = [
        exe,
        "--print",
        "--output-format",
        "text",
        "--tools",
        "",
        "--strict-mcp-config",
        "--max-turns",
        "1",
        "--model",
        model,
    ]
    return CommandLane("claude", argv, model, timeout)


def unconfined_lane(command: str, model: str, timeout: float = DEFAULT_TIMEOUT) -> CommandLane:
    """Any other CLI, only when the user opted in with KROUTER_ALLOW_UNCONFINED=1."""
    if os.environ.get(UNCONFINED_ENV, "") != "1":
        raise LaneError(
            f"lane {command!r} is not a confined lane (api, claude); set {UNCONFINED_ENV}=1 to allow it "
            "(its output is still only parsed as proposals)"
        )
    exe = shutil.which(command)
    if not exe:
        raise LaneError(f"lane command {command!r} not found on PATH")
    return CommandLane(command, [exe], model, timeout)


def default_lane_name() -> str | None:
    """``api`` when ANTHROPIC_API_KEY is set, else ``claude`` when the CLI is installed, else None."""
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "api"
    if shutil.which("claude"):
        return "claude"
    return None


def make_lane(name: str | None, model: str, timeout: float = DEFAULT_TIMEOUT) -> Lane:
    """Build the named lane (or the default one). Raises LaneError when it cannot be used."""
    name = name or default_lane_name()
    if name is None:
        raise LaneError("no model lane: set ANTHROPIC_API_KEY or install the claude CLI, or pass --lane")
    if name == "api":
        return ApiLane(model, timeout=timeout)
    if name == "claude":
        return claude_lane(model, timeout=timeout)
    return unconfined_lane(name, model, timeout)

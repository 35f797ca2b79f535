"""How the learner calls a model ("lanes"): prompt in, text out. A lane never touches the vault.

- ``api``: the official ``anthropic`` SDK, with a timeout and bounded retries. Nothing runs locally.
- ``claude``: the Claude Code CLI in print mode with every tool disabled, no MCP servers, in an empty
  temporary working directory and a minimal environment.
- any other command: refused unless ``KROUTER_ALLOW_UNCONFINED=1``; its output is still only parsed as
  a proposal, like every other lane's.

Any failure to get an answer (HTTP 4xx/5xx, timeout, a CLI that exits non-zero, an HTTP 200 whose body
is not a message: truncated JSON, an HTML page, another shape) raises LaneError, which the learner
reports as "uncertain" and never as "no page answers". A lane's ``deadline`` (a ``time.monotonic()``
value the learner sets) caps every call's timeout, so a hung endpoint cannot outlast the run's budget.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from krouter.errors import KRouterError

DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
MAX_TOKENS = 2048
# A command lane's reply past this is no answer: 2,048 tokens of JSON are a few kilobytes.
MAX_REPLY_BYTES = 1 << 20
UNCONFINED_ENV = "KROUTER_ALLOW_UNCONFINED"
# Only what a CLI needs to find itself, its login (under HOME) and a temp folder; no tokens or other
# settings from the user's shell.
_PASS_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


class LaneError(KRouterError):
    """The model could not be asked or did not answer: the outcome is uncertain, nothing is written."""


class LaneTimeout(LaneError):
    """The run's time budget ran out before the model answered (a call cut short by it, or none left):
    no sign that the question itself is at fault. A call that had its whole own timeout and still did
    not answer is a plain LaneError."""


class LaneUnavailable(LaneError):
    """The model's service could not take the call (rate limited, overloaded, a server error, a key
    refused, out of credit, no connection): no sign that the question itself is at fault, so it is not counted
    against it (a question asked alone when the limits hit was given up on for the API's 529s)."""


# HTTP statuses that are the service's state, not the request's: a key refused, a timeout on its side,
# rate limits, overload (529) and server errors; and a 400 that says the account is out of credit. What
# each says to the person reading the report, besides the API's own message.
_SERVICE_STATUSES = frozenset({401, 403, 408, 409, 429})
_OUT_OF_CREDIT = "credit balance"
_STATUS_HINTS = {
    401: "the API key was refused: check ANTHROPIC_API_KEY",
    403: "the API key may not use this model",
    429: "rate limited: the questions are asked again next run",
    529: "the API is overloaded: the questions are asked again next run",
}


class Lane(Protocol):
    """A way to ask a model one question and get its text back."""

    name: str
    model: str
    deadline: float | None

    def complete(self, system: str, prompt: str) -> str:
        """The model's text reply, or LaneError."""
        ...


class ApiLane:
    """The Anthropic Messages API through the official SDK.

    ``http_client`` lets tests route the real client through a mocked transport.
    """

    name = "api"
    deadline: float | None = None

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
        client = self._get_client()  # first: it says which extra to install when the SDK is missing
        import anthropic

        # Every try (the SDK retries) gets its share of what is left of the run's budget.
        left = remaining(self.deadline)
        timeout = min(self._timeout, left / (self._max_retries + 1))

        def ask() -> Any:
            return client.messages.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                system=system,
                messages=[{"role": "user", "content": prompt}],
                timeout=timeout,
            )

        try:
            reply = ask() if self.deadline is None else _within(left, ask)
        except LaneError:
            raise
        except anthropic.APIStatusError as exc:
            status = exc.status_code
            said = _api_message(exc.body)
            text = "; ".join(
                x for x in (f"model API answered HTTP {status}", _STATUS_HINTS.get(status), said) if x
            )
            if status in _SERVICE_STATUSES or status >= 500 or _OUT_OF_CREDIT in said.lower():
                raise LaneUnavailable(text) from exc
            raise LaneError(text) from exc
        except anthropic.APITimeoutError as exc:
            if timeout < self._timeout:  # cut short by the run's budget
                raise LaneTimeout("model API timed out in what was left of the run's budget") from exc
            raise LaneError("model API timed out") from exc
        except anthropic.APIConnectionError as exc:
            raise LaneUnavailable(f"model API not reachable: {type(exc).__name__}") from exc
        except anthropic.APIError as exc:
            raise LaneError(f"model API error: {type(exc).__name__}") from exc
        except Exception as exc:
            # The SDK parses the body of an HTTP 200 itself: truncated JSON raises JSONDecodeError, an
            # HTML page or another shape an AttributeError or TypeError somewhere inside it. Whatever it
            # raises, the model did not answer.
            raise LaneError(f"model API sent a reply that is not a message ({type(exc).__name__})") from exc
        return _reply_text(reply)


def _api_message(body: object) -> str:
    """The error message an API error's body gives (``{"error": {"message": ...}}``), on one line and
    at most 200 characters: "credit balance too low" and "model not found" both came as "HTTP 400"."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str):
        return ""
    one_line = "".join(ch for ch in " ".join(message.split()) if ch.isprintable())  # no terminal codes
    return one_line if len(one_line) <= 200 else one_line[:199] + "…"


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result, or LaneError once ``seconds`` have passed: the SDK's timeout bounds each read
    of a reply, not the whole call, nor the sleeps between its retries (a server trickling a byte a
    second held a six-second run for minutes). The call is left to finish on its own thread."""
    done: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=run, name="krouter-model-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise LaneTimeout("the model did not answer within the run's time budget")
    if failed:
        raise failed[0]
    return done[0]


def remaining(deadline: float | None) -> float:
    """Seconds left before ``deadline`` (a ``time.monotonic()`` value); LaneError when none are."""
    if deadline is None:
        return float("inf")
    left = deadline - time.monotonic()
    if left <= 0:
        raise LaneTimeout("the run's time budget is used up")
    return left


def _reply_text(reply: Any) -> str:
    """The text of a Messages API reply, checked field by field: the SDK does not validate a 200's body,
    so an HTML page arrives as a str and a JSON object of another shape with missing fields."""
    content = getattr(reply, "content", None)
    if not isinstance(content, list):
        raise LaneError(f"model API sent a reply that is not a message (a {type(reply).__name__})")
    if getattr(reply, "stop_reason", None) == "max_tokens":
        raise LaneError("model reply was cut off (max_tokens)")
    texts = [getattr(block, "text", None) for block in content if getattr(block, "type", "") == "text"]
    if any(not isinstance(text, str) for text in texts):
        raise LaneError("model API sent a text block without text")
    return "".join(texts)  # type: ignore[arg-type]


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
        self.deadline: float | None = None

    def complete(self, system: str, prompt: str) -> str:
        """Run the command once with the system text and prompt on stdin."""
        env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
        timeout = min(self.timeout, remaining(self.deadline))
        with tempfile.TemporaryDirectory(prefix="krouter-lane-") as cwd:
            try:
                # A session of its own, so that what it starts goes with it: a child left holding its
                # output kept the run waiting the whole timeout, and outlived it.
                proc = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=cwd,
                    env=env,
                    start_new_session=True,
                )
            except OSError as exc:
                raise LaneError(f"{self.name} lane could not start: {exc}") from exc
            out, err = _Bounded(proc, MAX_REPLY_BYTES), _Bounded(proc, MAX_REPLY_BYTES, keep_tail=True)
            readers = [
                threading.Thread(target=_feed, args=(proc, f"{system}\n\n{prompt}".encode()), daemon=True),
                threading.Thread(target=out.drain, args=(proc.stdout,), daemon=True),
                threading.Thread(target=err.drain, args=(proc.stderr,), daemon=True),
            ]
            for t in readers:
                t.start()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired as exc:
                message = f"{self.name} lane timed out after {timeout:.0f}s"
                raise (LaneTimeout if timeout < self.timeout else LaneError)(message) from exc
            finally:
                # The command has ended (or is ended here); what it started goes too, and with it any
                # hold on the pipes, so the readers reach their end.
                _end_session(proc)
                proc.wait()
                for t in readers:
                    # Bounded: a process outside the session (one that left it) may still hold a pipe.
                    t.join(5.0)
        if out.over:
            raise LaneError(f"{self.name} lane replied with more than {MAX_REPLY_BYTES} bytes")
        if proc.returncode != 0:
            tail = " ".join(err.text().split())[-200:]
            raise LaneError(f"{self.name} lane exited {proc.returncode}: {tail}")
        return out.text()


class _Bounded:
    """What a lane's command writes to one pipe, up to ``limit`` bytes (its last ``limit`` with
    ``keep_tail``): a command printing without end filled memory. Over the limit on stdout, the
    command's session is ended at once."""

    def __init__(self, proc: subprocess.Popen[bytes], limit: int, keep_tail: bool = False) -> None:
        self.proc, self.limit, self.keep_tail = proc, limit, keep_tail
        self.data = bytearray()
        self.over = False

    def drain(self, stream: Any) -> None:
        while chunk := stream.read1(65536):
            if self.over:
                continue  # read to the end, so nothing blocks on a full pipe, and kept nowhere
            self.data += chunk
            if len(self.data) <= self.limit:
                continue
            if self.keep_tail:
                del self.data[: len(self.data) - self.limit]
            else:
                self.over = True
                _end_session(self.proc)
        stream.close()

    def text(self) -> str:
        return self.data[: self.limit].decode("utf-8", errors="replace")


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    """Write the prompt to the command's stdin and close it; a command that stops reading or has
    ended is no error here (its exit status or reply says what went wrong)."""
    try:
        proc.stdin.write(data)  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    except (OSError, ValueError):  # a broken pipe, or stdin already closed
        pass


def _end_session(proc: subprocess.Popen[bytes]) -> None:
    """Kill every process of the lane's session (the command and what it started); the command is
    reaped by the caller's ``wait``. Where there are no sessions (Windows), the command alone."""
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is not None:
            killpg(proc.pid, signal.SIGKILL)
        elif proc.poll() is None:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass  # gone already


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

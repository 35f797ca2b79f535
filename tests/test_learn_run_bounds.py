"""Bounds on a nightly run: a question the model never answers usably must not hold the cursor for ever,
an endpoint that is down must not be blamed on the questions, two runs on one vault must not both ask,
and a command lane's output is bounded."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.cli import app
from krouter.errors import KRouterError
from krouter.learner import nightly
from krouter.learner.lanes import ApiLane
from krouter.learner.report import LEARNED, SKIPPED, UNCERTAIN
from krouter.routing import querylog

try:
    import httpx2 as httpx
except ImportError:  # anthropic < 2 runs on httpx
    import httpx  # type: ignore[no-redef]

from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, SEARCH_Q, log_weak, message, write_vault

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")


@pytest.fixture(autouse=True)
def query_log_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", PAGES)


def lane(handler: Callable[[httpx.Request], httpx.Response]) -> ApiLane:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return ApiLane("claude-test", api_key="test-key", http_client=client, max_retries=0, timeout=5)


def prompt_of(request: httpx.Request) -> str:
    return str(json.loads(request.content)["messages"][0]["content"])


def test_a_question_the_model_never_answers_is_asked_alone_then_given_up(vault: Path) -> None:
    log_weak(vault, SEARCH_Q, MERGE_Q)
    prompts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        prompts.append(prompt_of(request))
        if "search API" in prompts[-1]:
            return httpx.Response(200, json=message("Sorry, I cannot help with that one."))
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    first = nightly.learn(vault, lane(handler))
    # In one batch, the question spoils its neighbour's answer too: neither is blamed yet.
    assert [o.status for o in first.outcomes] == [UNCERTAIN, UNCERTAIN], first.to_text()
    assert not first.cursor_advanced

    prompts.clear()
    second = nightly.learn(vault, lane(handler))
    statuses = {o.question: o.status for o in second.outcomes}
    assert statuses == {SEARCH_Q: UNCERTAIN, MERGE_Q: LEARNED}, second.to_text()
    # Each was asked alone, so one could not spoil the other.
    assert prompts and all(("search API" in p) != ("sign-offs" in p) for p in prompts)

    for _ in range(2):
        again = nightly.learn(vault, lane(handler))
        assert {o.question: o.status for o in again.outcomes}[SEARCH_Q] == UNCERTAIN
        assert not again.cursor_advanced

    prompts.clear()
    last = nightly.learn(vault, lane(handler))
    given_up = [o for o in last.outcomes if o.question == SEARCH_Q]
    assert [o.status for o in given_up] == [SKIPPED]
    assert "no usable answer for it in 3 runs" in given_up[0].reason
    assert not any("search API" in p for p in prompts)
    assert last.cursor_advanced

    log_weak(vault, "Who approves a pull request?")
    after = nightly.learn(vault, lane(handler))
    assert [o.question for o in after.outcomes] == ["Who approves a pull request?"]


def test_an_endpoint_that_is_down_blames_no_question(vault: Path) -> None:
    log_weak(vault, MERGE_Q)

    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(529, json={"type": "error", "error": {"type": "overloaded_error"}})

    for _ in range(5):
        report = nightly.learn(vault, lane(down))
        assert [o.status for o in report.outcomes] == [UNCERTAIN], report.to_text()
        assert not report.cursor_advanced

    def up(request: httpx.Request) -> httpx.Response:
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    back = nightly.learn(vault, lane(up))
    assert [o.status for o in back.outcomes] == [LEARNED], back.to_text()


def test_a_second_run_on_the_same_vault_asks_nothing(vault: Path, tmp_path: Path) -> None:
    log_weak(vault, MERGE_Q)
    other = write_vault(tmp_path / "other", PAGES)
    log_weak(other, MERGE_Q)
    seen: list[str] = []
    asked: list[str] = []

    def during(request: httpx.Request) -> httpx.Response:
        asked.append(prompt_of(request))
        if not seen:
            # A second run starts while the first is waiting for the model: a timer and a manual run.
            try:
                nightly.learn(vault, lane(during))
            except KRouterError as exc:
                seen.append(str(exc))
            # A key, as a timer's run has: without one the lane is refused before the run's lock is tried.
            result = CliRunner().invoke(
                app,
                ["learn", "--vault", str(vault), "--lane", "api"],
                env={"ANTHROPIC_API_KEY": "sk-ant-test"},
            )
            seen.append(f"exit {result.exit_code}: {result.output}")
            # Another vault's run is not held up.
            seen.append(str([o.status for o in nightly.learn(other, lane(during)).outcomes]))
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    report = nightly.learn(vault, lane(during))
    assert [o.status for o in report.outcomes] == [LEARNED], report.to_text()
    assert "another krouter learn run on this vault is in progress" in seen[0]
    assert seen[1].startswith("exit 1: ") and "in progress" in seen[1]
    assert seen[2] == str([LEARNED])
    # The first run's two calls and the other vault's two: the refused runs asked nothing.
    assert len(asked) == 4


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process sessions are POSIX")
def test_a_command_lane_that_prints_without_end_is_stopped_not_read_into_memory(tmp_path: Path) -> None:
    """A cold review: the command's whole output was read into memory, however large."""
    from krouter.learner.lanes import MAX_REPLY_BYTES, CommandLane, LaneError

    model = tmp_path / "model"
    model.write_text("#!/bin/sh\ncat > /dev/null\nexec yes 'not json'\n")
    model.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(LaneError, match=f"more than {MAX_REPLY_BYTES} bytes"):
        CommandLane("model", [str(model)], "m", timeout=60).complete("system", "prompt")
    assert time.monotonic() - started < 30  # stopped at the limit, not at the timeout


def test_a_command_lane_gets_a_large_prompt_and_its_stderr_tail(tmp_path: Path) -> None:
    from krouter.learner.lanes import CommandLane, LaneError

    model = tmp_path / "model"
    # Writes a lot to stderr before reading its stdin: neither pipe may block the other.
    model.write_text(
        "#!/usr/bin/env python3\nimport sys\nsys.stderr.write('x' * 300000 + ' the end')\n"
        "data = sys.stdin.read()\nprint(len(data))\nsys.exit(0 if data.endswith('PROMPT-END') else 4)\n"
    )
    model.chmod(0o755)
    prompt = "p" * 500_000 + "PROMPT-END"
    assert CommandLane("model", [str(model)], "m", timeout=60).complete("s", prompt) == f"{len(prompt) + 3}\n"
    model.write_text(
        "#!/bin/sh\ncat > /dev/null\nhead -c 300000 /dev/zero | tr '\\0' x >&2\necho ' boom' >&2\nexit 3\n"
    )
    with pytest.raises(LaneError, match=r"exited 3: x+ boom$"):
        CommandLane("model", [str(model)], "m", timeout=60).complete("s", "prompt")


def test_a_question_the_model_had_no_time_for_is_never_given_up(vault: Path) -> None:
    """The diff's cold review: a question whose call the run's budget cut short was counted as the
    model's failure and given up, though the model never had a full call for it."""
    import threading

    log_weak(vault, SEARCH_Q, MERGE_Q)
    release = threading.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        if "search API" in prompt_of(request):
            release.wait(5)  # past the run's budget
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    import anthropic  # noqa: F401 - its first import (about a second) must not use up the run's budget

    try:
        for _ in range(4):
            report = nightly.learn(vault, lane(handler), batch_size=1, time_budget=0.5)
            assert {o.question: o.status for o in report.outcomes}[SEARCH_Q] == UNCERTAIN, report.to_text()
    finally:
        release.set()


def test_a_question_whose_every_call_times_out_is_given_up(vault: Path) -> None:
    """The late commits' review: a call that had its whole timeout and still got nothing is the
    question's failure as much as an unusable reply is; not counting it held the cursor for ever."""
    log_weak(vault, SEARCH_Q, MERGE_Q)

    def handler(request: httpx.Request) -> httpx.Response:
        if "search API" in prompt_of(request):
            raise httpx.ReadTimeout("slow", request=request)
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    statuses = [
        {o.question: o.status for o in nightly.learn(vault, lane(handler), batch_size=1).outcomes}[SEARCH_Q]
        for _ in range(4)
    ]
    assert statuses == [UNCERTAIN, UNCERTAIN, UNCERTAIN, SKIPPED]


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (429, "Overloaded"),
        (500, "Overloaded"),
        (529, "Overloaded"),
        (401, "Overloaded"),
        (400, "Your credit balance is too low to access the Anthropic API."),
    ],
)
def test_a_question_whose_calls_the_service_refuses_is_never_given_up(
    vault: Path, status: int, said: str
) -> None:
    """A cold review: a question asked alone when rate limits or overload hit (while other calls of the
    run were answered) was counted as the model's failure, and given up after three runs."""
    log_weak(vault, SEARCH_Q, MERGE_Q)

    def handler(request: httpx.Request) -> httpx.Response:
        if "search API" in prompt_of(request):
            error = {"type": "error", "error": {"type": "overloaded_error", "message": said}}
            return httpx.Response(status, json=error)
        answer = {"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}
        return httpx.Response(200, json=message(json.dumps({"answers": [answer]})))

    statuses = [
        {o.question: o.status for o in nightly.learn(vault, lane(handler), batch_size=1).outcomes}[SEARCH_Q]
        for _ in range(5)
    ]
    assert statuses == [UNCERTAIN] * 5


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (400, "Your credit balance is too low to access the Anthropic API."),
        (404, "model: claude-nonexistent"),
        (401, "check ANTHROPIC_API_KEY"),
        (529, "overloaded"),
    ],
)
def test_an_api_error_says_what_the_api_said(vault: Path, status: int, said: str) -> None:
    """A cold review: a billing problem, a wrong model name and a refused key all read "HTTP 400/404/401"."""
    log_weak(vault, MERGE_Q)
    body = {"type": "error", "error": {"type": "x", "message": said + "\n\x1b[2Jmore"}}
    report = nightly.learn(vault, lane(lambda request: httpx.Response(status, json=body)))
    reason = report.outcomes[0].reason
    assert f"HTTP {status}" in reason and said in reason and "\x1b" not in reason, reason


def test_an_outage_marks_no_question_to_be_asked_alone(vault: Path) -> None:
    """The diff's cold review: one run with the endpoint down marked every batched question, and the
    next healthy run asked them one by one."""
    from krouter.learner import weak_log

    log_weak(vault, SEARCH_Q, MERGE_Q)

    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"type": "error", "error": {"type": "api_error"}})

    nightly.learn(vault, lane(down))
    assert weak_log.failed_runs(querylog.vault_id(vault.resolve())) == {}


def test_a_dry_run_skips_what_a_run_gave_up(vault: Path) -> None:
    from krouter.learner import weak_log

    log_weak(vault, MERGE_Q)
    vid = querylog.vault_id(vault.resolve())
    weak_log.save_failed_runs(vid, {weak_log.question_key(MERGE_Q): 3}, [weak_log.question_key(MERGE_Q)])
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(prompt_of(request))
        return httpx.Response(200, json=message("{}"))

    report = nightly.learn(vault, lane(handler), dry_run=True)
    assert [o.status for o in report.outcomes] == [SKIPPED] and asked == []
    # And without a model, as `krouter learn --dry-run` lists what a run would send.
    assert [o.status for o in nightly.learn(vault, None, dry_run=True).outcomes] == [SKIPPED]
    assert weak_log.failed_runs(vid) == {weak_log.question_key(MERGE_Q): 3}

"""Which lane a learner run uses: the one named with ``--lane``, else the API when a key is set, else the
Claude Code CLI when installed. A lane that cannot work is refused here, before any question is asked."""

from __future__ import annotations

import os
import shutil

from krouter.learner.lanes import DEFAULT_TIMEOUT, ApiLane, Lane, LaneError, claude_lane, unconfined_lane
from krouter.learner.learn_env import learn_env_path

# What the SDK reads when no key is passed: without either it fails inside its first request, which the
# api lane reported as "a reply that is not a message (TypeError)" for every question (a bug hunt).
_API_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


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
        if not any(os.environ.get(key) for key in _API_KEYS):
            raise LaneError(
                f"the api lane needs ANTHROPIC_API_KEY: set it, or write it in {learn_env_path()} (mode 0600)"
            )
        return ApiLane(model, timeout=timeout)
    if name == "claude":
        return claude_lane(model, timeout=timeout)
    return unconfined_lane(name, model, timeout)

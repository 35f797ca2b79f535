"""A lookup in a fresh process, as `krouter ask` makes one: what it answered and whether it loaded the
pages' segmenter (jieba's whole dictionary, ~0.3 s), with the index built beforehand in another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import json, sys
from krouter import Router
from krouter.tokens import chinese
d = Router(sys.argv[1], auto_refresh=False).decide(sys.argv[2])
top = d.top or d.closest
print(json.dumps({"decision": d.decision, "path": top and top.path, "line": top and top.line,
                  "reason": d.reason, "segmenter_loaded": chinese._cutter is not None}))
"""


def fresh_lookup(vault: Path, question: str, state: Path) -> dict[str, object]:
    """``question`` asked of ``vault`` in a new Python process (its config, state and cache under
    ``state``), after the index is built in another: the decision, the top or closest page and its line,
    the reason, and whether the lookup loaded the pages' segmenter."""
    env = {
        **os.environ,
        **{f"KROUTER_{k}_DIR": str(state / k.lower()) for k in ("CONFIG", "STATE", "CACHE")},
        "KROUTER_SEMANTIC": "off",
    }
    build = "import sys; from krouter import Router; Router(sys.argv[1]).refresh()"
    subprocess.run([sys.executable, "-c", build, str(vault)], env=env, check=True)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(vault), question],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)

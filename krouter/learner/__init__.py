"""The learner: weak questions become verified recall triggers, from the nightly run or an agent's teaching.

Both teachers share one verification path and one journaled page edit, so a trigger is only ever
written after the same checks and can always be undone byte for byte:

- ``nightly``: the nightly run (query log since the cursor → candidates → model → verify → write).
- ``teach``: an agent's teaching (``krouter teach``, MCP ``krouter_teach``): caps, then verify → write.
- ``verify``: the one verification path: a question's candidates, and every check a pick must pass.
- ``trigger_writes``: the one write path (a verified trigger onto its page, journaled, kept only when its
  question then cites the page).
- ``journal``: what the learner wrote (``learned.jsonl``) and every run's outcomes; ``undo``: undo of a run.
- ``page_edit``: the byte-preserving edit of a page's ``triggers`` list; ``page_write``: putting the
  result in place, atomically, under ``write_lock`` (one learner write at a time, across processes).
- ``report``: what happened to each question (statuses, outcomes, a run's report).
- ``lanes``: how a model is called; ``prompt``: what it is asked and how its reply is read.
- ``cli``: the ``krouter learn`` and ``krouter teach`` commands.

Nothing is imported here, so that importing one module (the CLI's) does not load the others.
"""

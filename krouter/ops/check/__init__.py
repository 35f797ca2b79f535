"""``krouter check``: ``lint.py`` reads the vault and gathers the findings of ``graph.py`` (links) and
``similar.py`` (look-alike pages) into the report of ``report.py``; ``command.py`` prints it."""

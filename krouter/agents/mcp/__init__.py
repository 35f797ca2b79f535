"""``krouter mcp``: the tools are defined in ``tools.py``, the Router behind them in ``service.py``,
the command in ``command.py``. Only ``tools.py`` imports the MCP SDK."""

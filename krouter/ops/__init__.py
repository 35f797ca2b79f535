"""Operations: keeping the index fresh and serving it (``watch.py``, ``watch_lease.py``,
``ask_socket.py``), the service units (``units.py``), linting the vault (``check/``), and the
``init`` and ``config`` commands.

Kept free of imports: ``krouter ask`` loads ``watch_lease`` and ``ask_socket`` through this package.
"""

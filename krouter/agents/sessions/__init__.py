"""``krouter import``: transcripts are read (``transcripts.py``), redacted (``redaction.py``) and written
as one page per session (``pages.py``); ``command.py`` is the command."""

"""The agent surfaces: how agents reach the vault and what they are given.

``mcp/`` serves the MCP tools, ``recall.py`` the prompt hook, ``setup.py`` writes the agent snippets
(``snippets/``) and MCP configuration, ``sessions/`` imports agent transcripts as pages.
"""

"""The vault: a folder of Markdown pages, read but never written by a lookup.

- ``files``: the walk of the vault, path containment, and bounded reads of one file.
- ``page``: one page parsed (frontmatter, title, triggers, status, replacement links, body), or a problem.
- ``links``: wikilinks and Markdown links in frontmatter, and how a link names a page.
- ``replacements``: the replacement graph (``superseded_by`` and friends) and where a page leads.
- ``ignore``: folders and files never indexed (config, ``.krouterignore``, Obsidian's settings).

Nothing is imported here, so that importing one module does not load the others.
"""

"""The vault: a folder of Markdown pages, read but never written by a lookup.

- ``files``: the walk of the vault, path containment, and bounded reads of one file.
- ``page``: one page parsed (frontmatter, title, triggers, status, replacement links, body), or a problem.
- ``links``: wikilinks and Markdown links in frontmatter, and how a link names a page.
- ``ignore``: folders and files never indexed (config, ``.krouterignore``, Obsidian's settings).

Nothing is imported here, so that importing one module does not load the others.
"""

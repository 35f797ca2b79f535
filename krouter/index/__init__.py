"""The index: one SQLite file per vault holding postings, passages, pages and links, kept fresh.

- ``store``: `Index`: opening the database, versions, and the read queries a lookup makes.
- ``refresh``: what changed on disk, and the transactions that bring the index up to date.
- ``pages``: writing one page's rows (postings, passages, links) inside a refresh.
- ``packed``: postings packed one row per term, and folding edits into them.
- ``passages``: a page body cut into passages, and how they are stored.
- ``schema``: the tables, their version, and where the index file lives.

Nothing is imported here, so that importing one module does not load the others.
"""

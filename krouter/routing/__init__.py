"""Routing: a question against the index, to a receipt that cites a page or refuses.

- ``router``: `Router` and `route`, the lookup API (ask, read, status, resolve).
- ``tables``: what a lookup needs about all pages, built once per index generation.
- ``question``: the question's content units, their translations, weights and postings.
- ``scoring``: BM25F scores and the best current pages (top-k, replaced pages followed).
- ``decision``: cite or refuse: coverage, margin, confidence against the floor, and the reason.
- ``citation``: a receipt's citation of one page, with its best snippet.
- ``replacements``: the replacement graph (``superseded_by`` and friends): where a replaced page leads.
- ``receipt``: the receipt and its parts (citations, evidence, redirects), as text and JSON.
- ``phrasings``: other wordings of the same question, and how their receipts combine.
- ``querylog``: the private log of lookups the learner reads.

Nothing is imported here, so that importing one module does not load the others.
"""

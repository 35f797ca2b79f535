"""Tokens: text into index terms and questions into query terms, in English, Chinese, Japanese, Korean.

- ``terms``: the entry points (`index_terms`, `query_terms`, `english_terms`, `normalize`) and English.
- ``chinese``: jieba (loaded lazily, its dictionary in a store), and the re-cut of a question's Han text.
- ``japanese_korean``: the content pieces of a Japanese or Korean question.
- ``scripts``: which script a run is in, and character bigrams.
- ``stopwords``: English and Chinese function words.
- ``bilingual``: a question word's translations into the vault's other language (English ↔ Chinese).

Nothing is imported here, so that importing one module does not load the others.
"""

-- For each term of the words kb_query_words_fill put in (by the word's position), how many chunks of
-- the bound tenant's lexical index hold it (NULL: none). kb_query_terms is the tokenizer's instance
-- vocabulary (one row per token of each word), kb_chunk_vocab the tenant index's row vocabulary,
-- read one term at a time by its key: both TEMP tables point at this connection's bound tenant
-- (manager/backend/sqlite/lexical.py).
SELECT t.doc - 1 AS position, v.doc AS chunks
FROM kb_query_terms t
LEFT JOIN kb_chunk_vocab v ON v.term = t.term

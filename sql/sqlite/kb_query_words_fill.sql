-- Put a query's words (:words, a JSON list) into this connection's query-word tokenizer, one row
-- each, rowid = the word's position + 1: the TEMP FTS5 table has the tenant index's own tokenizer,
-- so kb_term_vocab reads each word back as the terms the index holds.
INSERT INTO kb_query_words (rowid, word)
SELECT key + 1, value FROM json_each(:words)

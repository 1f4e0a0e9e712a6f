-- Empty this connection's query-word tokenizer (the TEMP FTS5 table kb_query_words,
-- manager/backend/sqlite/lexical.py) before it reads the next query's words.
DELETE FROM kb_query_words

-- How many chunks the bound tenant's lexical index holds (a count of its docsize table, one row
-- per indexed chunk: a few pages even at 100k chunks), through the connection's TEMP view.
SELECT chunks FROM kb_chunk_count

-- Every embedding of :model and :bytes the caller may see, with what a search filters on, for
-- the in-process vector cache (manager/backend/sqlite/vector_cache.py); only chunks after seq
-- :after (0 for all; the chunks appended since a cache was built otherwise). The walled view cuts
-- the rows to the caller's tenant and scope; lifecycle time, collection and document are applied
-- per search, so one load serves every filter until the tenant's change counters move.
SELECT c.seq, c.embedding, c.collection, c.document_id, c.valid_from, c.valid_until
FROM knowledge_base_chunk c
WHERE c.seq > :after
  AND c.embedding_model = :model AND length(c.embedding) = :bytes AND c.deleted_at IS NULL
ORDER BY c.seq

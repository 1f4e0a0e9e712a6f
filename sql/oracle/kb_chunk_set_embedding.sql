-- Store one chunk's embedding and the model that made it. :embedding is bound as
-- array.array('f') (VECTOR), not as SQLite's float32 BLOB.
UPDATE knowledge_base_chunk SET embedding = :embedding, embedding_model = :model WHERE seq = :seq

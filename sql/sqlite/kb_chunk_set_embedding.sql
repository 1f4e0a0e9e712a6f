-- Store one chunk's embedding and the model that made it.
UPDATE knowledge_base_chunk SET embedding = :embedding, embedding_model = :model WHERE seq = :seq

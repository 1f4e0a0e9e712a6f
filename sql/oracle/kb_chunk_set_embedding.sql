-- Store a chunk's embedding (:embedding binds as a FLOAT32 VECTOR) and the model that made it.
UPDATE knowledge_base_chunk SET embedding = :embedding, embedding_model = :model WHERE seq = :seq

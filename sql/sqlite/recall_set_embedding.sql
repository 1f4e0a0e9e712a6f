-- Store recall row :seq's embedding (:embedding, of :model).
UPDATE conversation_recall SET embedding = :embedding, embedding_model = :model WHERE seq = :seq

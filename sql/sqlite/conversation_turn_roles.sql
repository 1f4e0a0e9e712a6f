-- Promotion gate: who spoke each of the turns :ids (a JSON list) names, as the caller's wall shows them:
-- a user's own turn is "the user told me".
SELECT id, role, user_id FROM conversation_memory WHERE id IN (SELECT value FROM json_each(:ids))

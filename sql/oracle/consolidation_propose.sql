-- Consolidation: record one proposed merge for review (operator only; the pair is unique, so a
-- second run finds it there and the caller skips it).
INSERT INTO merge_candidate (merge_id, tenant_id, user_id, agent_id, thread_id, reason, relation, from_type, from_id,
                from_version, to_type, to_id, to_version, retire_id, score, detail, decision, created_by, created_at)
VALUES (:merge, :tenant, :user_id, :agent_id, :thread_id, :reason, :relation, :from_type, :from_id,
        :from_version, :to_type, :to_id, :to_version, :retire_id, :score, :detail, 'proposed', :created_by, :now)

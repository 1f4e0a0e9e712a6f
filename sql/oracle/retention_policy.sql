-- `memgate expire`: the open version of tenant :tenant's tenant-wide retention guideline (its
-- content_json maps memory types to days or "keep"). Operator (owner) only.
SELECT id, version, content_json FROM guideline_memory
WHERE tenant_id = :tenant AND guideline_key = 'retention'
  AND user_id IS NULL AND agent_id IS NULL AND thread_id IS NULL
  AND valid_until IS NULL AND deleted_at IS NULL
ORDER BY version DESC
FETCH FIRST 1 ROWS ONLY

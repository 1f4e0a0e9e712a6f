-- 031_candidate_creator_index.sql: the promotion gate's rate cap reads the caller's proposals by key
-- (SQLite migration 028).
-- Run by: MEMGATE_OWNER. Re-runnable: an index that exists is skipped.
--
-- The rate cap counts the caller's proposals of the last hour on every `remember`
-- (candidate_recent_count.sql: created_by and created_at). No index began with the proposer, so
-- the count read every candidate of the tenant; by this index VPD's tenant predicate, the
-- proposer and the hour are one range.
DECLARE
  PROCEDURE ensure(p_ddl VARCHAR2) IS
  BEGIN
    EXECUTE IMMEDIATE p_ddl;
  EXCEPTION
    WHEN OTHERS THEN
      IF SQLCODE NOT IN (-955, -1408) THEN
        RAISE;
      END IF;
  END ensure;
BEGIN
  ensure('CREATE INDEX memory_candidate_creator_ix ON memory_candidate (tenant_id, created_by, created_at)');
END;
/

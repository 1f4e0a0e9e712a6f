-- 029_promotion_indexes.sql: the promotion gate's lookup of the caller's pending candidates (SQLite
-- migration 027).
-- Run by: MEMGATE_OWNER. Re-runnable: an index that exists is skipped.
--
-- The gate reads the caller's pending candidates of one kind on every proposal
-- (candidate_pending.sql, newest first). By this index it finds them without walking every
-- candidate of the tenant, which grew with each proposal decided (an import of a thousand records
-- through `memgate import --from` walked them all for every proposal).
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
  ensure('CREATE INDEX memory_candidate_pending_ix ON memory_candidate (tenant_id, decision, kind, created_at)');
END;
/

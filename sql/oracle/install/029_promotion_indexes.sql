-- 029_promotion_indexes.sql: the promotion gate's lookups of the caller's pending candidates and of
-- the caller's proposals of the hour (SQLite migrations 027 and 028).
-- Run by: MEMGATE_OWNER. Re-runnable: an index that exists is skipped.
--
-- The gate reads the caller's pending candidates of one kind on every proposal
-- (candidate_pending.sql, newest first). By memory_candidate_pending_ix it finds them without walking
-- every candidate of the tenant, which grew with each proposal decided (an import of a thousand
-- records through `memgate import --from` walked them all for every proposal).
--
-- The rate cap counts the caller's proposals of the last hour on every `remember`
-- (candidate_recent_count.sql: created_by and created_at). No index began with the proposer, so
-- the count read every candidate of the tenant; by memory_candidate_creator_ix VPD's tenant
-- predicate, the proposer and the hour are one range.
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
  ensure('CREATE INDEX memory_candidate_creator_ix ON memory_candidate (tenant_id, created_by, created_at)');
END;
/

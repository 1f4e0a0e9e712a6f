-- 090_schema_version.sql: records that this install (schema version 1) has run.
-- Run by: MEMGATE_OWNER, last. Re-runnable (inserts only a missing version). The number is
-- SCHEMA_VERSION in manager/backend/oracle/install.py (tests/oracle/test_static_sql.py checks).
INSERT INTO memgate_schema (version)
SELECT 1 FROM dual WHERE NOT EXISTS (SELECT 1 FROM memgate_schema WHERE version = 1)
/
COMMIT
/

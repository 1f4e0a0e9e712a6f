-- 010_accounts.sql: the three memgate accounts and their system privileges.
-- `memgate init` runs it (and 015) when [database] admin_user is set; otherwise a DBA runs both in
-- SQLcl or SQL*Plus first, with the DEFINEs below.
-- Run by: a DBA (ADMIN on Autonomous AI Database, or the PDB administrator). Re-runnable.
--
-- Substitution variables (SQL*Plus/SQLcl DEFINE them first, or the Python installer replaces
-- them before it sends a statement): &&memgate_owner_password, &&memgate_app_password,
-- &&memgate_query_password, &&memgate_tablespace (DATA on Autonomous AI Database),
-- &&memgate_query_temp_mb (the query account's temporary tablespace, in MB; 1024 by default),
-- &&memgate_query_temp_file (its tempfile: auto, or a path; see the block below).
-- Folder format: every statement ends with a line holding only "/" (see README.md).
--
-- CREATE USER IF NOT EXISTS is 23ai+ syntax (PL/SQL Language Reference 23, release changes,
-- "IF [NOT] EXISTS Syntax Support", read through a page quoting it): when the object exists the
-- statement is ignored and the object left unchanged, so a re-run never resets a password.
--
-- Privileges are granted directly, never through a role: memgate_ctx_pkg and the VPD policy
-- function are definer's-rights code, and definer's-rights PL/SQL does not see privileges that
-- arrive through roles (Oracle8 SQL Reference, CREATE TRIGGER prerequisites: "These privileges
-- must be granted directly to the owner, rather than acquired through roles.").
-- Never grant EXEMPT ACCESS POLICY or DBA to any of these accounts: "any user who is granted the
-- EXEMPT ACCESS POLICY privilege is completely exempt from enforcement of VPD" (Utilities 12.1,
-- "Security Considerations for Direct Path Exports").

-- The schema owner: owns tables, views, packages and the VPD policies. The installer and the
-- operator CLI (`memgate log`, `memgate doctor`) log in as it; no tool call ever does.
CREATE USER IF NOT EXISTS memgate_owner IDENTIFIED BY "&&memgate_owner_password"
  DEFAULT TABLESPACE &&memgate_tablespace QUOTA UNLIMITED ON &&memgate_tablespace
/
-- The application account the server's pool connects as. Owns nothing.
CREATE USER IF NOT EXISTS memgate_app IDENTIFIED BY "&&memgate_app_password"
/
-- The read-only account behind execute_query: READ on the reviewed views, nothing else.
CREATE USER IF NOT EXISTS memgate_query IDENTIFIED BY "&&memgate_query_password"
/
-- owner: log in to install and for the operator CLI
GRANT CREATE SESSION TO memgate_owner
/
-- owner: the memgate tables (020)
GRANT CREATE TABLE TO memgate_owner
/
-- owner: the reviewed query views and the MCP log view (050, 060)
GRANT CREATE VIEW TO memgate_owner
/
-- owner: memgate_guard_pkg, memgate_ctx_pkg and memgate_vpd_pkg (022, 030, 040)
GRANT CREATE PROCEDURE TO memgate_owner
/
-- owner: the guard, claim-immutability and append-only triggers (022)
GRANT CREATE TRIGGER TO memgate_owner
/
-- owner: knowledge_base_chunk.seq is an identity column, backed by a system sequence (NOT
-- VERIFIED whether CREATE SEQUENCE is required for that; it is harmless)
GRANT CREATE SEQUENCE TO memgate_owner
/
-- owner: CREATE CONTEXT needs it ("To create a context namespace, you must have CREATE ANY
-- CONTEXT system privilege", SQL Language Reference, CREATE CONTEXT). It is an ANY privilege:
-- revoke it after the install (the REVOKE at the end of this file is commented out for that).
GRANT CREATE ANY CONTEXT TO memgate_owner
/
-- owner: DBMS_RLS.ADD_POLICY / DROP_POLICY for the VPD policies (040)
GRANT EXECUTE ON SYS.DBMS_RLS TO memgate_owner
/
-- owner: CTX_DDL.CREATE_PREFERENCE for the lexer of the Oracle Text index, and SYNC/OPTIMIZE (023)
GRANT EXECUTE ON CTXSYS.CTX_DDL TO memgate_owner
/
-- owner: the Oracle Text application developer role (creating CONTEXT indexes and preferences);
-- granted as well as the direct EXECUTE above because 023 runs as an anonymous block, where roles
-- count, while the direct grant keeps definer's-rights code working
GRANT CTXAPP TO memgate_owner
/
-- owner, only if an in-database ONNX embedder is used: sql/oracle/onnx/ (CREATE MINING MODEL,
-- READ on the model folder, then the owner loads the model and grants the app SELECT on it)
-- app: connect; every object privilege it has comes from the owner (030, 045)
GRANT CREATE SESSION TO memgate_app
/
-- app: the change marker a context manifest records, the SCN (GET_SYSTEM_CHANGE_NUMBER), and
-- `memgate manifest replay --as-of-marker`'s session-level Flashback at it (ENABLE_AT_SYSTEM_CHANGE_NUMBER,
-- DISABLE). "To use this package, a database administrator must grant EXECUTE privileges for
-- DBMS_FLASHBACK" (PL/SQL Packages, DBMS_FLASHBACK).
GRANT EXECUTE ON SYS.DBMS_FLASHBACK TO memgate_app
/
-- query: connect; READ on the reviewed views comes from the owner (050)
GRANT CREATE SESSION TO memgate_query
/
-- query: a temporary tablespace of its own, of a fixed size, so execute_query's sorts, DISTINCTs and
-- hash joins (every MEMGATE_QUERY session together) stop with ORA-01652 there instead of filling
-- the shared TEMP that the application account's statements need too: SQLite's
-- caps.query_temp_total_mb, on Oracle. Oracle takes no quota on a temporary tablespace (ORA-30041,
-- "Cannot grant quota on the tablespace"), so the tablespace's size is the bound:
-- &&memgate_query_temp_mb MB (`memgate init` passes caps.query_temp_total_mb). A re-run leaves an
-- existing tablespace as it is; resize its tempfile by hand (docs/oracle.md, "Temporary space").
-- Where its tempfile goes, &&memgate_query_temp_file (`memgate init` passes [database]
-- query_temp_file):
-- * a path (or an ASM disk group, +DATA): that file;
-- * auto: with Oracle-managed files (DB_CREATE_FILE_DEST set, read from V$PARAMETER) no name, and
--   the database names and places the file ("TEMPFILE ... SIZE" without a file name needs
--   DB_CREATE_FILE_DEST: SQL Language Reference, CREATE TABLESPACE, file_specification); without
--   them, next to the first tempfile of the database's default temporary tablespace
--   (DATABASE_PROPERTIES.DEFAULT_TEMP_TABLESPACE, DBA_TEMP_FILES), as memgate_query_temp01.dbf, or
--   in its ASM disk group. When neither can be read, the statement goes without a name and, should
--   Oracle refuse it, the block stops with ORA-20020 naming the DEFINE to set.
-- Autonomous AI Database refuses CREATE TABLESPACE with ORA-01031 ("Adding, removing, or modifying
-- tablespaces is not allowed", Autonomous AI Database Serverless, SQL Commands): the block skips on
-- ORA-01031 and the query account stays on the service's TEMP. Any other error stops the install.
-- NOT VERIFIED against a live database; `memgate doctor` reports the query account's temporary
-- tablespace, and the Oracle half of tests/backend/contract/test_install_checks.py checks it.
DECLARE
  present  NUMBER;
  omf      VARCHAR2(4000);
  sample   VARCHAR2(4000);
  tempfile VARCHAR2(4000) := q'[&&memgate_query_temp_file]';
BEGIN
  SELECT COUNT(*) INTO present FROM dba_tablespaces WHERE tablespace_name = 'MEMGATE_QUERY_TEMP';
  IF present = 0 THEN
    IF LOWER(tempfile) = 'auto' THEN
      tempfile := NULL;
      BEGIN
        EXECUTE IMMEDIATE q'[SELECT value FROM v$parameter WHERE name = 'db_create_file_dest']' INTO omf;
      EXCEPTION
        WHEN OTHERS THEN
          omf := NULL;
      END;
      IF omf IS NULL THEN
        BEGIN
          EXECUTE IMMEDIATE q'[SELECT f.file_name FROM dba_temp_files f, database_properties p
                                 WHERE p.property_name = 'DEFAULT_TEMP_TABLESPACE'
                                   AND f.tablespace_name = p.property_value
                                 ORDER BY f.file_id FETCH FIRST 1 ROWS ONLY]' INTO sample;
        EXCEPTION
          WHEN OTHERS THEN
            sample := NULL;
        END;
        IF sample LIKE '+%' THEN
          tempfile := REGEXP_SUBSTR(sample, '^[+][^/]+');
        ELSIF sample IS NOT NULL THEN
          tempfile := SUBSTR(sample, 1, GREATEST(INSTR(sample, '/', -1), INSTR(sample, '\', -1)))
            || 'memgate_query_temp01.dbf';
        END IF;
      END IF;
    END IF;
    BEGIN
      EXECUTE IMMEDIATE 'CREATE TEMPORARY TABLESPACE memgate_query_temp TEMPFILE '
        || CASE WHEN tempfile IS NOT NULL THEN '''' || REPLACE(tempfile, '''', '''''') || ''' ' END
        || 'SIZE &&memgate_query_temp_mb.M AUTOEXTEND OFF';
    EXCEPTION
      WHEN OTHERS THEN
        IF SQLCODE = -1031 OR tempfile IS NOT NULL THEN
          RAISE;
        END IF;
        RAISE_APPLICATION_ERROR(-20020, 'memgate: MEMGATE_QUERY_TEMP needs a file name here (no '
          || 'Oracle-managed files, DB_CREATE_FILE_DEST): DEFINE memgate_query_temp_file = '
          || '''/path/memgate_query_temp01.dbf'' (memgate init: [database] query_temp_file) and run '
          || '010_accounts.sql again', TRUE);
    END;
  END IF;
  EXECUTE IMMEDIATE 'ALTER USER memgate_query TEMPORARY TABLESPACE memgate_query_temp';
EXCEPTION
  WHEN OTHERS THEN
    IF SQLCODE != -1031 THEN
      RAISE;
    END IF;
END;
/
-- After the install (or before each re-install, grant it again):
-- REVOKE CREATE ANY CONTEXT FROM memgate_owner
-- /

-- 030_context.sql: the trusted application contexts that carry a call's identity.
-- Run by: MEMGATE_OWNER (needs CREATE ANY CONTEXT, 010). Re-runnable (CREATE OR REPLACE).
--
-- DBMS_SESSION.SET_CONTEXT works only from the package named in CREATE CONTEXT ... USING: "The
-- caller of this function must be in the calling stack of a procedure which has been associated
-- to the context namespace through a CREATE CONTEXT statement" (PL/SQL Packages, DBMS_SESSION,
-- SET_CONTEXT). So only memgate_ctx_pkg writes an identity, and only memgate_app may run it (the
-- GRANT below). Limits there: values 4 KB, client_id 64 bytes; SYS_CONTEXT returns 256 bytes
-- unless asked for more, hence the 256-byte id limit checked here.
-- python-oracledb's Connection.set_app_context() cannot be used instead: it writes only the
-- CLIENTCONTEXT namespace ("A namespace other than CLIENTCONTEXT raises the ORA-28267 error",
-- python-oracledb user guide, Application Contexts), which any client can write.
--
-- MEMGATE_CTX is a local (session) context: the backend binds it on every pool acquire and clears
-- it before every release (a pool's session callback runs only for new or re-tagged sessions).
CREATE OR REPLACE CONTEXT memgate_ctx USING memgate_owner.memgate_ctx_pkg
/
-- MEMGATE_QCTX hands a call's identity to the execute_query session, which runs as MEMGATE_QUERY
-- and may run no memgate package, so nothing a model writes can set an identity. ACCESSED
-- GLOBALLY: a value set with username MEMGATE_QUERY and client_id <handle> is visible only to
-- MEMGATE_QUERY sessions whose client identifier is that handle (Security Guide 19c,
-- DBMS_SESSION.SET_CONTEXT username and client_id Parameters; GLOBAL_CONTEXT "displays the values
-- of global context attributes, which are accessible for the current session, based on the
-- CLIENT_IDENTIFIER value", Database Reference).
CREATE OR REPLACE CONTEXT memgate_qctx USING memgate_owner.memgate_ctx_pkg ACCESSED GLOBALLY
/
CREATE OR REPLACE PACKAGE memgate_ctx_pkg AUTHID DEFINER AS
  -- Binds the trusted identity of one call to this session. p_tenant is required; a NULL scope id
  -- means "not bound": the VPD predicate then shows only rows shared at that level. p_now, when
  -- given, is the session's one evaluation time (attribute NOW, SQLite's app_now()), an ISO-8601
  -- UTC timestamp; without it NOW is NULL and a statement comparing with it finds no row.
  PROCEDURE set_identity(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2,
                         p_thread IN VARCHAR2, p_call IN VARCHAR2, p_now IN VARCHAR2);
  -- Removes every MEMGATE_CTX attribute of this session (before the pool gets it back).
  PROCEDURE clear_identity;
  -- Makes an identity and the call's time visible to MEMGATE_QUERY sessions whose client
  -- identifier is p_handle (32 to 64 characters, random per execute_query call).
  PROCEDURE share_with_query(p_handle IN VARCHAR2, p_tenant IN VARCHAR2, p_user IN VARCHAR2,
                             p_agent IN VARCHAR2, p_thread IN VARCHAR2, p_now IN VARCHAR2);
  -- Removes what share_with_query set for p_handle.
  PROCEDURE unshare_with_query(p_handle IN VARCHAR2);
END memgate_ctx_pkg;
/
CREATE OR REPLACE PACKAGE BODY memgate_ctx_pkg AS
  c_ns         CONSTANT VARCHAR2(30) := 'MEMGATE_CTX';
  c_qns        CONSTANT VARCHAR2(30) := 'MEMGATE_QCTX';
  c_query_user CONSTANT VARCHAR2(30) := 'MEMGATE_QUERY';

  PROCEDURE check_id(p_name VARCHAR2, p_value VARCHAR2) IS
  BEGIN
    IF LENGTHB(p_value) > 256 THEN
      RAISE_APPLICATION_ERROR(-20010, 'memgate: ' || p_name || ' is longer than 256 bytes');
    END IF;
  END check_id;

  PROCEDURE check_identity(p_tenant VARCHAR2, p_user VARCHAR2, p_agent VARCHAR2, p_thread VARCHAR2) IS
  BEGIN
    IF p_tenant IS NULL THEN
      RAISE_APPLICATION_ERROR(-20011, 'memgate: a tenant is required');
    END IF;
    check_id('tenant', p_tenant);
    check_id('user', p_user);
    check_id('agent', p_agent);
    check_id('thread', p_thread);
  END check_identity;

  PROCEDURE check_handle(p_handle VARCHAR2) IS
  BEGIN
    IF p_handle IS NULL OR LENGTH(p_handle) < 32 OR LENGTHB(p_handle) > 64 THEN
      RAISE_APPLICATION_ERROR(-20012, 'memgate: a query handle has 32 to 64 characters');
    END IF;
  END check_handle;

  PROCEDURE check_now(p_now VARCHAR2) IS
  BEGIN
    IF NOT REGEXP_LIKE(p_now, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$') THEN
      RAISE_APPLICATION_ERROR(-20010, 'memgate: the call time is not an ISO-8601 UTC timestamp');
    END IF;
  END check_now;

  PROCEDURE put(p_attr VARCHAR2, p_value VARCHAR2) IS
  BEGIN
    IF p_value IS NOT NULL THEN
      DBMS_SESSION.SET_CONTEXT(c_ns, p_attr, p_value);
    END IF;
  END put;

  PROCEDURE share_attribute(p_handle VARCHAR2, p_attr VARCHAR2, p_value VARCHAR2) IS
  BEGIN
    IF p_value IS NOT NULL THEN
      DBMS_SESSION.SET_CONTEXT(c_qns, p_attr, p_value, c_query_user, p_handle);
    END IF;
  END share_attribute;

  PROCEDURE set_identity(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2,
                         p_thread IN VARCHAR2, p_call IN VARCHAR2, p_now IN VARCHAR2) IS
  BEGIN
    check_identity(p_tenant, p_user, p_agent, p_thread);
    check_id('call', p_call);
    IF p_now IS NOT NULL THEN
      check_now(p_now);
    END IF;
    -- start from nothing: no attribute of a previous call survives
    DBMS_SESSION.CLEAR_ALL_CONTEXT(c_ns);
    put('TENANT', p_tenant);
    put('USER_ID', p_user);
    put('AGENT_ID', p_agent);
    put('THREAD_ID', p_thread);
    put('CALL_ID', p_call);
    put('NOW', p_now);
  END set_identity;

  PROCEDURE clear_identity IS
  BEGIN
    DBMS_SESSION.CLEAR_ALL_CONTEXT(c_ns);
  END clear_identity;

  PROCEDURE unshare_with_query(p_handle IN VARCHAR2) IS
  BEGIN
    check_handle(p_handle);
    -- CLEAR_CONTEXT(namespace, client_identifier, attribute): a NULL attribute clears them all.
    -- The values were set for username MEMGATE_QUERY too (share_attribute), and the docs do not say that a
    -- clear by client identifier reaches those: NOT VERIFIED. `memgate doctor` reads the value from
    -- a MEMGATE_QUERY session under the handle after this call and fails if it is still there.
    DBMS_SESSION.CLEAR_CONTEXT(c_qns, p_handle, NULL);
  END unshare_with_query;

  PROCEDURE share_with_query(p_handle IN VARCHAR2, p_tenant IN VARCHAR2, p_user IN VARCHAR2,
                             p_agent IN VARCHAR2, p_thread IN VARCHAR2, p_now IN VARCHAR2) IS
  BEGIN
    check_handle(p_handle);
    check_identity(p_tenant, p_user, p_agent, p_thread);
    IF p_now IS NULL THEN
      RAISE_APPLICATION_ERROR(-20010, 'memgate: the call time is not an ISO-8601 UTC timestamp');
    END IF;
    check_now(p_now);
    unshare_with_query(p_handle);
    share_attribute(p_handle, 'TENANT', p_tenant);
    share_attribute(p_handle, 'USER_ID', p_user);
    share_attribute(p_handle, 'AGENT_ID', p_agent);
    share_attribute(p_handle, 'THREAD_ID', p_thread);
    share_attribute(p_handle, 'NOW', p_now);
  END share_with_query;
END memgate_ctx_pkg;
/
-- memgate_app binds identities; nobody else may (memgate_query in particular must not).
GRANT EXECUTE ON memgate_ctx_pkg TO memgate_app
/

-- 030_context.sql: the trusted application context that carries a call's identity.
-- Run by: MEMGATE_OWNER (needs CREATE ANY CONTEXT, 010). Re-runnable (CREATE OR REPLACE).
--
-- DBMS_SESSION.SET_CONTEXT works only from the package named in CREATE CONTEXT ... USING: "The
-- caller of this function must be in the calling stack of a procedure which has been associated
-- to the context namespace through a CREATE CONTEXT statement" (PL/SQL Packages, DBMS_SESSION
-- SET_CONTEXT). Anyone else gets ORA-01031, so only memgate_ctx_pkg can write the identity, and
-- only memgate_app may run it (the GRANT below). Limits there: attribute names 30 bytes, values
-- 4 KB, client_id 64 bytes; SYS_CONTEXT returns 256 bytes unless asked for more, hence the
-- 256-byte id limit checked here.
-- python-oracledb's Connection.set_app_context() cannot be used instead: it only writes the
-- CLIENTCONTEXT namespace ("A namespace other than CLIENTCONTEXT raises the ORA-28267 error",
-- python-oracledb user guide, Application Contexts), which any client can write -- never trust it.
--
-- memgate_ctx is a local (session) context: it lives in the session, so the backend sets it on
-- every pool acquire and clears it before release (a pool's session_callback runs only for new or
-- re-tagged sessions, never per call).
CREATE OR REPLACE CONTEXT memgate_ctx USING memgate_owner.memgate_ctx_pkg
/
-- memgate_qctx hands a call's identity to the execute_query session, which runs as
-- MEMGATE_QUERY and has no EXECUTE on this package (a model-written query must never be able to
-- set an identity). ACCESSED GLOBALLY: values set with username => 'MEMGATE_QUERY' and
-- client_id => <handle> are visible only to MEMGATE_QUERY sessions whose client identifier is that
-- handle (Security Guide 19c, "DBMS_SESSION.SET_CONTEXT username and client_id Parameters" and
-- "Global Application Context for Nondatabase Users").
CREATE OR REPLACE CONTEXT memgate_qctx USING memgate_owner.memgate_ctx_pkg ACCESSED GLOBALLY
/
CREATE OR REPLACE PACKAGE memgate_ctx_pkg AUTHID DEFINER AS
  -- Binds the trusted identity of one call. p_tenant is required; NULL scope ids mean "not bound"
  -- (the VPD predicate then shows only rows shared at that level).
  PROCEDURE set_identity(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2,
                         p_thread IN VARCHAR2, p_call IN VARCHAR2);
  -- Removes every memgate_ctx attribute of this session (before the pool gets it back).
  PROCEDURE clear_identity;
  -- Copies the bound identity to MEMGATE_QUERY sessions whose client identifier is p_handle
  -- (32..64 characters, random per execute_query call); unshare_with_query removes it again.
  PROCEDURE share_with_query(p_handle IN VARCHAR2);
  PROCEDURE unshare_with_query(p_handle IN VARCHAR2);
  -- Maps an identity attribute to its tenant/user (tenant_mapping) before any identity is bound.
  PROCEDURE resolve_mapping(p_kind IN VARCHAR2, p_value IN VARCHAR2,
                            o_tenant OUT VARCHAR2, o_user OUT VARCHAR2);
END memgate_ctx_pkg;
/
CREATE OR REPLACE PACKAGE BODY memgate_ctx_pkg AS
  c_ns         CONSTANT VARCHAR2(30) := 'MEMGATE_CTX';
  c_qns        CONSTANT VARCHAR2(30) := 'MEMGATE_QCTX';
  c_query_user CONSTANT VARCHAR2(30) := 'MEMGATE_QUERY';
  TYPE t_names IS TABLE OF VARCHAR2(30);
  c_attrs      CONSTANT t_names := t_names('TENANT', 'USER_ID', 'AGENT_ID', 'THREAD_ID', 'CALL_ID');

  PROCEDURE check_id(p_name VARCHAR2, p_value VARCHAR2) IS
  BEGIN
    IF LENGTHB(p_value) > 256 THEN
      RAISE_APPLICATION_ERROR(-20010, 'memgate: ' || p_name || ' is longer than 256 bytes');
    END IF;
  END check_id;

  PROCEDURE put(p_attr VARCHAR2, p_value VARCHAR2) IS
  BEGIN
    IF p_value IS NOT NULL THEN
      DBMS_SESSION.SET_CONTEXT(c_ns, p_attr, p_value);
    END IF;
  END put;

  PROCEDURE set_identity(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2,
                         p_thread IN VARCHAR2, p_call IN VARCHAR2) IS
  BEGIN
    IF p_tenant IS NULL THEN
      RAISE_APPLICATION_ERROR(-20011, 'memgate: a tenant is required');
    END IF;
    check_id('tenant', p_tenant);
    check_id('user', p_user);
    check_id('agent', p_agent);
    check_id('thread', p_thread);
    check_id('call', p_call);
    -- start from nothing: no attribute of a previous call survives
    DBMS_SESSION.CLEAR_ALL_CONTEXT(c_ns);
    put('TENANT', p_tenant);
    put('USER_ID', p_user);
    put('AGENT_ID', p_agent);
    put('THREAD_ID', p_thread);
    put('CALL_ID', p_call);
  END set_identity;

  PROCEDURE clear_identity IS
  BEGIN
    DBMS_SESSION.CLEAR_ALL_CONTEXT(c_ns);
  END clear_identity;

  PROCEDURE check_handle(p_handle VARCHAR2) IS
  BEGIN
    IF p_handle IS NULL OR LENGTH(p_handle) < 32 OR LENGTHB(p_handle) > 64 THEN
      RAISE_APPLICATION_ERROR(-20012, 'memgate: a query handle has 32 to 64 characters');
    END IF;
  END check_handle;

  PROCEDURE unshare_with_query(p_handle IN VARCHAR2) IS
  BEGIN
    check_handle(p_handle);
    FOR i IN 1 .. c_attrs.COUNT LOOP
      DBMS_SESSION.CLEAR_CONTEXT(c_qns, p_handle, c_attrs(i));
    END LOOP;
  END unshare_with_query;

  PROCEDURE share_with_query(p_handle IN VARCHAR2) IS
    v VARCHAR2(256);
  BEGIN
    check_handle(p_handle);
    IF SYS_CONTEXT(c_ns, 'TENANT') IS NULL THEN
      RAISE_APPLICATION_ERROR(-20011, 'memgate: a tenant is required');
    END IF;
    unshare_with_query(p_handle);
    FOR i IN 1 .. c_attrs.COUNT LOOP
      v := SYS_CONTEXT(c_ns, c_attrs(i));
      IF v IS NOT NULL THEN
        DBMS_SESSION.SET_CONTEXT(c_qns, c_attrs(i), v, c_query_user, p_handle);
      END IF;
    END LOOP;
  END share_with_query;

  PROCEDURE resolve_mapping(p_kind IN VARCHAR2, p_value IN VARCHAR2,
                            o_tenant OUT VARCHAR2, o_user OUT VARCHAR2) IS
  BEGIN
    -- tenant_mapping's VPD predicate (040) shows a non-owner session only the row whose kind and
    -- value are in these two attributes, so even a stray SELECT grant could not list tenants.
    DBMS_SESSION.SET_CONTEXT(c_ns, 'MAP_KIND', p_kind);
    DBMS_SESSION.SET_CONTEXT(c_ns, 'MAP_VALUE', p_value);
    BEGIN
      SELECT m.tenant_id, m.user_id INTO o_tenant, o_user
        FROM tenant_mapping m
       WHERE m.attribute_kind = p_kind AND m.attribute_value = p_value;
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        o_tenant := NULL;
        o_user := NULL;
    END;
    DBMS_SESSION.CLEAR_CONTEXT(c_ns, NULL, 'MAP_KIND');
    DBMS_SESSION.CLEAR_CONTEXT(c_ns, NULL, 'MAP_VALUE');
  EXCEPTION
    WHEN OTHERS THEN
      DBMS_SESSION.CLEAR_CONTEXT(c_ns, NULL, 'MAP_KIND');
      DBMS_SESSION.CLEAR_CONTEXT(c_ns, NULL, 'MAP_VALUE');
      RAISE;
  END resolve_mapping;
END memgate_ctx_pkg;
/
-- memgate_app binds identities; nobody else may (memgate_query in particular must not).
GRANT EXECUTE ON memgate_ctx_pkg TO memgate_app
/

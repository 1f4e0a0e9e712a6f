-- 040_vpd.sql: VPD policies, the tenant and scope wall on every memgate table.
-- Run by: MEMGATE_OWNER (needs EXECUTE on DBMS_RLS, 010). Re-runnable: each policy is dropped
-- when it exists and added again.
--
-- What VPD does: "When a user directly or indirectly accesses a table, view, or synonym that is
-- protected with an Oracle Virtual Private Database policy, Oracle Database dynamically modifies
-- the SQL statement of the user" (Security Guide, Using Oracle VPD to Control Data Access; read in
-- the Japanese 11.2/18c editions, translated). The
-- policy function is definer's rights, yet "Oracle Database generates the predicate with the VPD
-- policy function authorized by the owner but in the same current user session" (Security Guide
-- 19c, Components of an Oracle VPD Policy): SESSION_USER and the session's contexts are the
-- caller's. The predicates below name SYS_CONTEXT rather than literal ids, so one cursor serves
-- every tenant and no id is ever spliced into SQL text.
--
-- Who sees what:
-- * MEMGATE_APP (every tool call): the bound tenant, and within it rows shared at each scope level
--   or owned by the bound user/agent/thread. No tenant bound: '1=0', nothing.
-- * MEMGATE_QUERY (execute_query): the same predicate over memgate_qctx, the identity that the app
--   shared for this call (030). No handle: SYS_CONTEXT is NULL, "tenant_id = NULL" matches nothing.
-- * MEMGATE_OWNER (installer, operator CLI): no tenant bound: no predicate (memgate log across
--   tenants, operator_*.sql). A tenant bound: that tenant, all scopes (memgate memory ls --tenant).
--   Why not EXEMPT ACCESS POLICY: it is a system privilege that exempts a user from every VPD
--   policy in the database, for DML too ("a powerful privilege and should be carefully managed",
--   Utilities, Security Considerations for Direct Path Exports). The owner can drop these policies
--   anyway, so letting it through costs nothing; the exemption stays scoped to memgate's tables.
--   Hardening, later: make the owner a schema-only account (ALTER USER ... NO AUTHENTICATION) and
--   reach it by proxy for operator work.
--
-- update_check => TRUE: an INSERT or UPDATE must leave the row visible under the same predicate,
-- so no write can plant a row in another tenant or scope (violations raise ORA-28115).
--
-- policy_type => CONTEXT_SENSITIVE, chosen over DYNAMIC (the default, which runs the function at
-- every execution): the predicate text changes only when the session's context does (tenant bound
-- or not); the values themselves are read by SYS_CONTEXT at execution. A context-sensitive policy
-- re-runs the function when the session's application context changed since the cursor last ran,
-- and memgate_ctx_pkg.set_identity changes it on every acquire, so the first statement of each
-- call sees a fresh predicate and the rest reuse it. No namespace/attribute is associated with the
-- policies: with an association "a value must be set for every VPD policy of these types"
-- (ORA-42801 / OCI-42801) and an unbound tenant would raise instead of returning no rows.
-- NOT VERIFIED verbatim in the docs corpus: the exact re-evaluation rule of CONTEXT_SENSITIVE. If a
-- test ever shows a stale predicate, switch c_policy_type below to DBMS_RLS.DYNAMIC; the
-- predicates are correct under both.
-- Why not STATIC / SHARED_*: a static predicate is computed once and shared across sessions (the
-- owner's NULL would leak to the app); shared types reuse one table's predicate for another.
CREATE OR REPLACE PACKAGE memgate_vpd_pkg AUTHID DEFINER AS
  FUNCTION predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END memgate_vpd_pkg;
/
CREATE OR REPLACE PACKAGE BODY memgate_vpd_pkg AS
  FUNCTION scoped(p_ns VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''' || p_ns || ''', ''TENANT'')'
      || ' AND (user_id IS NULL OR user_id = SYS_CONTEXT(''' || p_ns || ''', ''USER_ID''))'
      || ' AND (agent_id IS NULL OR agent_id = SYS_CONTEXT(''' || p_ns || ''', ''AGENT_ID''))'
      || ' AND (thread_id IS NULL OR thread_id = SYS_CONTEXT(''' || p_ns || ''', ''THREAD_ID''))';
  END scoped;

  FUNCTION predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
    v_user   VARCHAR2(128) := SYS_CONTEXT('USERENV', 'SESSION_USER');
    v_object VARCHAR2(128) := UPPER(p_object);
    v_ns     VARCHAR2(30);
  BEGIN
    IF v_user = 'MEMGATE_OWNER' THEN
      IF SYS_CONTEXT('MEMGATE_CTX', 'TENANT') IS NULL OR v_object = 'TENANT_MAPPING' THEN
        RETURN NULL;
      END IF;
      RETURN 'tenant_id = SYS_CONTEXT(''MEMGATE_CTX'', ''TENANT'')';
    END IF;
    IF v_object = 'TENANT_MAPPING' THEN
      -- only the row memgate_ctx_pkg.resolve_mapping is looking up, and only for the app
      IF v_user <> 'MEMGATE_APP' THEN
        RETURN '1=0';
      END IF;
      RETURN 'attribute_kind = SYS_CONTEXT(''MEMGATE_CTX'', ''MAP_KIND'')'
        || ' AND attribute_value = SYS_CONTEXT(''MEMGATE_CTX'', ''MAP_VALUE'', 4000)';
    END IF;
    IF v_user = 'MEMGATE_QUERY' THEN
      v_ns := 'MEMGATE_QCTX';
    ELSE
      v_ns := 'MEMGATE_CTX';
      IF SYS_CONTEXT('MEMGATE_CTX', 'TENANT') IS NULL THEN
        RETURN '1=0';
      END IF;
    END IF;
    IF v_object = 'MEMORY_FILE' THEN
      -- no scope columns of its own: a file is visible when its store is. "If the predicate
      -- contains subqueries, then the owner (definer) of the policy function is used to resolve
      -- objects within the subqueries" (PL/SQL Packages, DBMS_RLS overview), so memory_store is
      -- the owner's table; its own policy then applies the scope predicate of this session (not
      -- verified on a live database; without it, every store's files in the tenant would show).
      RETURN 'tenant_id = SYS_CONTEXT(''' || v_ns || ''', ''TENANT'')'
        || ' AND store_id IN (SELECT s.id FROM memory_store s)';
    END IF;
    RETURN scoped(v_ns);
  END predicate;
END memgate_vpd_pkg;
/
DECLARE
  c_policy_type CONSTANT BINARY_INTEGER := DBMS_RLS.CONTEXT_SENSITIVE;
  TYPE t_names IS TABLE OF VARCHAR2(128);
  -- every table with tenant data; memgate_schema has none and gets no policy
  c_tables CONSTANT t_names := t_names(
    'GUIDELINE_MEMORY', 'PERSONA_MEMORY', 'TOOLBOX_MEMORY', 'ENTITY_MEMORY', 'WORKFLOW_MEMORY',
    'KNOWLEDGE_BASE_DOCUMENT', 'KNOWLEDGE_BASE_CHUNK', 'CONVERSATION_MEMORY',
    'SUMMARIZATION_MEMORY', 'MEMORY_STORE', 'MEMORY_FILE', 'MCP_CALL_LOG', 'MEMORY_LINK',
    'MEMORY_IMAGE', 'TENANT_MAPPING');
  n PLS_INTEGER;
BEGIN
  FOR i IN 1 .. c_tables.COUNT LOOP
    SELECT COUNT(*) INTO n FROM user_policies
     WHERE object_name = c_tables(i) AND policy_name = 'MEMGATE_WALL';
    IF n > 0 THEN
      DBMS_RLS.DROP_POLICY(object_schema => USER, object_name => c_tables(i),
                           policy_name => 'MEMGATE_WALL');
    END IF;
    DBMS_RLS.ADD_POLICY(
      object_schema   => USER,
      object_name     => c_tables(i),
      policy_name     => 'MEMGATE_WALL',
      function_schema => USER,
      policy_function => 'MEMGATE_VPD_PKG.PREDICATE',
      statement_types => 'SELECT,INSERT,UPDATE,DELETE',
      update_check    => TRUE,
      policy_type     => c_policy_type);
  END LOOP;
END;
/

-- 040_vpd.sql: VPD policies, the tenant and scope wall on every memgate table.
-- Run by: MEMGATE_OWNER (needs EXECUTE on DBMS_RLS, 010). Re-runnable: each policy is dropped when
-- it exists and added again.
--
-- "When a user directly or indirectly accesses a table, view, or synonym that is protected with an
-- Oracle Virtual Private Database policy, Oracle Database dynamically modifies the SQL statement of
-- the user" (Security Guide, Using Oracle VPD to Control Data Access). The policy function is
-- definer's rights, yet the predicate is generated "by the owner but in the same current user
-- session" (Security Guide 19c, Components of an Oracle VPD Policy), so SESSION_USER and the
-- contexts it reads are the caller's. The predicates name SYS_CONTEXT rather than literal ids:
-- each account gets one constant text, no id is ever spliced into SQL, and the values are read
-- when the statement runs.
--
-- Who sees what (the same rows on INSERT, UPDATE and DELETE: update_check):
-- * MEMGATE_APP (every tool call): the tenant bound in MEMGATE_CTX and, of its rows, those shared
--   at each scope level (user_id, agent_id, thread_id NULL) or owned by the bound user, agent and
--   thread. No tenant bound: SYS_CONTEXT is NULL, "tenant_id = NULL" is never true, no rows.
-- * MEMGATE_QUERY (execute_query): the same predicate over MEMGATE_QCTX, the identity the app
--   shared for this call under its handle (030). No handle: no rows.
-- * MEMGATE_OWNER (install, operator commands such as `memgate log`): no predicate. The owner can
--   drop these policies anyway, so letting it through costs nothing, and unlike EXEMPT ACCESS
--   POLICY (a system privilege exempting a user from every VPD policy in the database) it stays
--   scoped to memgate's tables. No account is granted EXEMPT ACCESS POLICY.
-- * any other account: the MEMGATE_CTX predicate, which it cannot set: no rows.
-- * tenant_mapping (an operator table, no tenant column): nothing for anyone but the owner.
-- * conversation and conversation_recall have no thread_id (a conversation, and what recall keeps of
--   its turns, is its user's and agent's, whatever thread names it): their predicate is the tenant,
--   user and agent ones.
-- * memory_file has no scope columns: a file is visible while its store is, so its predicate asks
--   for a visible store, with the store's scope written out (it does not rely on memory_store's
--   own policy applying inside a predicate's subquery, which the docs corpus does not settle).
--
-- update_check => TRUE: an INSERT or UPDATE must leave the row visible under the same predicate
-- (violations raise ORA-28115). The guard triggers (022) refuse such writes first, with messages
-- that say which wall was hit; this is the second wall.
--
-- policy_type => DYNAMIC (the default, "Default is DYNAMIC", ADD_POLICY reference): the function
-- runs for every statement. Each account's predicate text is constant, so a context-sensitive or
-- static type would give the same rows, but DYNAMIC needs no reasoning about when Oracle re-runs
-- the function, and the function only concatenates constants.
CREATE OR REPLACE PACKAGE memgate_vpd_pkg AUTHID DEFINER AS
  FUNCTION predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END memgate_vpd_pkg;
/
CREATE OR REPLACE PACKAGE BODY memgate_vpd_pkg AS
  FUNCTION ctx(p_ns VARCHAR2, p_attr VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'SYS_CONTEXT(''' || p_ns || ''', ''' || p_attr || ''')';
  END ctx;

  -- tenant, user and agent of a row; p_alias is '' or 's.' (a subquery's alias)
  FUNCTION owned(p_ns VARCHAR2, p_alias VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN p_alias || 'tenant_id = ' || ctx(p_ns, 'TENANT')
      || ' AND (' || p_alias || 'user_id IS NULL OR ' || p_alias || 'user_id = ' || ctx(p_ns, 'USER_ID') || ')'
      || ' AND (' || p_alias || 'agent_id IS NULL OR ' || p_alias || 'agent_id = ' || ctx(p_ns, 'AGENT_ID') || ')';
  END owned;

  -- tenant and scope of a row (user, agent and thread)
  FUNCTION scoped(p_ns VARCHAR2, p_alias VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN owned(p_ns, p_alias)
      || ' AND (' || p_alias || 'thread_id IS NULL OR ' || p_alias || 'thread_id = ' || ctx(p_ns, 'THREAD_ID') || ')';
  END scoped;

  FUNCTION predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
    v_user VARCHAR2(128) := SYS_CONTEXT('USERENV', 'SESSION_USER');
    v_ns   VARCHAR2(30) := 'MEMGATE_CTX';
  BEGIN
    IF v_user = 'MEMGATE_OWNER' THEN
      RETURN NULL;
    END IF;
    IF UPPER(p_object) = 'TENANT_MAPPING' THEN
      RETURN '1 = 0';
    END IF;
    IF v_user = 'MEMGATE_QUERY' THEN
      v_ns := 'MEMGATE_QCTX';
    END IF;
    IF UPPER(p_object) = 'MEMORY_FILE' THEN
      RETURN 'tenant_id = ' || ctx(v_ns, 'TENANT')
        || ' AND store_id IN (SELECT s.id FROM memory_store s WHERE ' || scoped(v_ns, 's.') || ')';
    END IF;
    -- the conversation tables have no thread_id: a conversation is its user's and agent's
    IF UPPER(p_object) IN ('CONVERSATION', 'CONVERSATION_RECALL') THEN
      RETURN owned(v_ns, NULL);
    END IF;
    RETURN scoped(v_ns, NULL);
  END predicate;
END memgate_vpd_pkg;
/
DECLARE
  TYPE t_names IS TABLE OF VARCHAR2(128);
  -- every table with tenant data, and the operator table; memgate_schema holds none
  c_tables CONSTANT t_names := t_names(
    'GUIDELINE_MEMORY', 'PERSONA_MEMORY', 'TOOLBOX_MEMORY', 'ENTITY_MEMORY', 'WORKFLOW_MEMORY',
    'KNOWLEDGE_BASE_DOCUMENT', 'KNOWLEDGE_BASE_CHUNK', 'CONVERSATION_MEMORY',
    'SUMMARIZATION_MEMORY', 'MEMORY_STORE', 'MEMORY_FILE', 'MCP_CALL_LOG', 'TENANT_MAPPING', 'IMAGE_MEMORY',
    'MEMORY_LINK', 'MEMORY_CANDIDATE', 'MEMORY_ASSESSMENT', 'CONVERSATION', 'CONVERSATION_RECALL',
    'MCP_CALL_CITED');
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
      policy_type     => DBMS_RLS.DYNAMIC);
  END LOOP;
END;
/

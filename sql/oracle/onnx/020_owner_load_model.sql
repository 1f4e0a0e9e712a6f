-- 020_owner_load_model.sql: the owner loads the ONNX embedding model and lets the app score it.
-- Run by: MEMGATE_OWNER, after 010_dba_model_access.sql, only when [database] onnx_model is set.
-- Re-runnable: the model is loaded only when the owner's schema lacks it (to replace it, drop it
-- first: DBMS_VECTOR.DROP_ONNX_MODEL). In SQLcl: DEFINE onnx_model = DOC_MODEL (the value of
-- [database] onnx_model) and DEFINE onnx_file = 'model.onnx', then @ this file.
--
-- The metadata is the AI Vector Search User's Guide's embedding example: the model's one input
-- is named DATA, which is what memgate passes (VECTOR_EMBEDDING(model USING :text AS data),
-- manager/backend/oracle/statements.py EMBED_TEXT).
DECLARE
  n PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO n FROM user_mining_models WHERE model_name = UPPER('&&onnx_model');
  IF n = 0 THEN
    DBMS_VECTOR.LOAD_ONNX_MODEL('MEMGATE_MODELS', '&&onnx_file', '&&onnx_model',
      JSON('{"function" : "embedding", "embeddingOutput" : "embedding", "input" : {"input" : ["DATA"]}}'));
  END IF;
END;
/
-- app: score the owner's model with VECTOR_EMBEDDING ("SELECT MINING MODEL: Apply the specified
-- mining model object", Data Mining User's Guide, Object Privileges for Mining Models). The
-- app names it unqualified: its sessions run with CURRENT_SCHEMA = MEMGATE_OWNER (connect.py).
GRANT SELECT ON MINING MODEL &&onnx_model TO memgate_app
/

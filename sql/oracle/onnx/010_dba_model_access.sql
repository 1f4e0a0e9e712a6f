-- 010_dba_model_access.sql: what a DBA grants so the owner can load an ONNX embedding model.
-- Run by: a DBA, once, only when [database] onnx_model is set (memgate embeds in the database with
-- VECTOR_EMBEDDING). Not part of `memgate init`: docs/oracle.md, "The in-database ONNX embedder".
-- Re-runnable. In SQLcl: DEFINE onnx_directory = '/path/on/the/database/server', then @ this file.
--
-- owner: DBMS_VECTOR.LOAD_ONNX_MODEL creates a mining model in the caller's schema, which needs
-- CREATE MINING MODEL (AI Vector Search User's Guide 23, Import ONNX Models into Oracle Database,
-- "Grant CREATE MINING MODEL privilege")
GRANT CREATE MINING MODEL TO memgate_owner
/
-- the database-server folder that holds the .onnx file (on Autonomous AI Database, use
-- DATA_PUMP_DIR with DBMS_CLOUD.GET_OBJECT, or DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD, instead)
CREATE OR REPLACE DIRECTORY memgate_models AS '&&onnx_directory'
/
-- owner: read the model file from that folder
GRANT READ ON DIRECTORY memgate_models TO memgate_owner
/

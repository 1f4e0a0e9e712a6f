-- 015_query_synonyms.sql: the logical names memgate_query queries by (entity_memory, ...).
-- Run by: a DBA (CREATE ANY SYNONYM), right after 010: a synonym may name a view that does not
-- exist yet (050 creates them). Re-runnable (CREATE OR REPLACE SYNONYM).
-- A synonym grants nothing: memgate_query reads a view only through its READ grant (050), and
-- VPD applies however a protected table is reached, "directly or indirectly" (Security Guide).
-- memgate_query keeps its own schema as CURRENT_SCHEMA, so "entity_memory" in a model's query
-- resolves to memgate_query.entity_memory -> memgate_owner.qv_entity_memory, never to the table.
CREATE OR REPLACE SYNONYM memgate_query.entity_memory FOR memgate_owner.qv_entity_memory
/
CREATE OR REPLACE SYNONYM memgate_query.entity_memory_history FOR memgate_owner.qv_entity_memory_history
/
CREATE OR REPLACE SYNONYM memgate_query.guideline_memory FOR memgate_owner.qv_guideline_memory
/
CREATE OR REPLACE SYNONYM memgate_query.guideline_memory_history FOR memgate_owner.qv_guideline_memory_history
/
CREATE OR REPLACE SYNONYM memgate_query.persona_memory FOR memgate_owner.qv_persona_memory
/
CREATE OR REPLACE SYNONYM memgate_query.persona_memory_history FOR memgate_owner.qv_persona_memory_history
/
CREATE OR REPLACE SYNONYM memgate_query.workflow_memory FOR memgate_owner.qv_workflow_memory
/
CREATE OR REPLACE SYNONYM memgate_query.workflow_memory_history FOR memgate_owner.qv_workflow_memory_history
/
CREATE OR REPLACE SYNONYM memgate_query.summarization_memory FOR memgate_owner.qv_summarization_memory
/
CREATE OR REPLACE SYNONYM memgate_query.knowledge_base_document FOR memgate_owner.qv_knowledge_base_document
/
CREATE OR REPLACE SYNONYM memgate_query.knowledge_base_chunk FOR memgate_owner.qv_knowledge_base_chunk
/
CREATE OR REPLACE SYNONYM memgate_query.conversation_memory FOR memgate_owner.qv_conversation_memory
/
CREATE OR REPLACE SYNONYM memgate_query.memory_candidate FOR memgate_owner.qv_memory_candidate
/

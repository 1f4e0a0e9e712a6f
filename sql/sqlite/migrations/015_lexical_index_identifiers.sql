-- Per-tenant lexical indexes keep identifiers whole: `tokenchars _` in sql/sqlite/kb_lexical_index.sql,
-- so `__doc__`, `lru_cache` and `PyErr_GetExcInfo` are single terms (before, `__doc__` was the word
-- "doc" and matched every "docs"). Porter stemming stays. The template a tenant's index was built
-- from is recorded here; manager/backend/sqlite/lexical.py rebuilds, from the chunk table and in this
-- same transaction, every index built from an older template (those that exist now: version 1).
ALTER TABLE base_kb_lexical_index ADD COLUMN template_version INTEGER NOT NULL DEFAULT 1;

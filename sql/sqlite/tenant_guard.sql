-- Template for the wall around one base table, filled in by the migration runner
-- (manager/backend/sqlite/schema.py) for every base_ table.
-- Placeholders: {table} (logical name), {base} (base table), {key} (primary key
-- column), {columns}, {new_values} (NEW.col, or COALESCE(NEW.col, default)),
-- {set_list} (col = NEW.col, ...), {in_scope} (the view's scope filter),
-- {new_out_of_scope} and {old_out_of_scope} (true when that row is outside the scope).
--
-- Reads: the view shows only rows of the tenant bound to the connection, and of
-- those only the rows in the caller's scope: a row with user_id set only to that user
-- (app_user()), with agent_id only to that agent, with thread_id only in that thread;
-- NULL means shared at that level. A table without scope columns of its own is scoped
-- through the row it belongs to (a memory_file through its memory_store).
-- Writes: the view's INSTEAD OF triggers write the base table, whose BEFORE
-- triggers refuse any row whose tenant differs from the bound tenant, or whose scope
-- names another user, agent or thread (an update or delete is judged on the old row
-- and the new); with no tenant bound, app_tenant() is NULL and every write is refused.

CREATE VIEW {table} AS SELECT * FROM {base} WHERE tenant_id = app_tenant() AND {in_scope};

CREATE TRIGGER {table}__insert INSTEAD OF INSERT ON {table}
BEGIN
    INSERT INTO {base} ({columns}) VALUES ({new_values});
END;

CREATE TRIGGER {table}__update INSTEAD OF UPDATE ON {table}
BEGIN
    UPDATE {base} SET {set_list} WHERE {key} = OLD.{key};
END;

CREATE TRIGGER {table}__delete INSTEAD OF DELETE ON {table}
BEGIN
    DELETE FROM {base} WHERE {key} = OLD.{key};
END;

CREATE TRIGGER {base}__tenant_insert BEFORE INSERT ON {base}
WHEN NEW.tenant_id IS NOT app_tenant()
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, tenant_id differs from the bound tenant');
END;

CREATE TRIGGER {base}__tenant_update BEFORE UPDATE ON {base}
WHEN OLD.tenant_id IS NOT app_tenant() OR NEW.tenant_id IS NOT app_tenant()
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, tenant_id differs from the bound tenant');
END;

CREATE TRIGGER {base}__tenant_delete BEFORE DELETE ON {base}
WHEN OLD.tenant_id IS NOT app_tenant()
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, tenant_id differs from the bound tenant');
END;

CREATE TRIGGER {base}__scope_insert BEFORE INSERT ON {base}
WHEN {new_out_of_scope}
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, the row is scoped to another user, agent or thread');
END;

CREATE TRIGGER {base}__scope_update BEFORE UPDATE ON {base}
WHEN {old_out_of_scope} OR {new_out_of_scope}
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, the row is scoped to another user, agent or thread');
END;

CREATE TRIGGER {base}__scope_delete BEFORE DELETE ON {base}
WHEN {old_out_of_scope}
BEGIN
    SELECT RAISE(ABORT, 'memgate: write refused, the row is scoped to another user, agent or thread');
END;

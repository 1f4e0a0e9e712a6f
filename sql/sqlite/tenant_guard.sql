-- Template for the tenant wall around one base table, filled in by the
-- migration runner (manager/backend/sqlite/schema.py) for every base_ table.
-- Placeholders: {table} (logical name), {base} (base table), {key} (primary key
-- column), {columns}, {new_values} (NEW.col, or COALESCE(NEW.col, default)),
-- {set_list} (col = NEW.col, ...).
--
-- Reads: the view shows only rows of the tenant bound to the connection.
-- Writes: the view's INSTEAD OF triggers write the base table, whose BEFORE
-- triggers refuse any row whose tenant differs from the bound tenant; with no
-- tenant bound, app_tenant() is NULL and every write is refused.

CREATE VIEW {table} AS SELECT * FROM {base} WHERE tenant_id = app_tenant();

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

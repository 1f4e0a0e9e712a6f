-- Operator only (`memgate tenants unmap`): delete one mapping and return it. Oracle has no
-- DELETE ... RETURNING rows, so the block opens a cursor on the row first (a cursor reads as of
-- the moment it is opened) and returns it as an implicit result (DBMS_SQL.RETURN_RESULT,
-- python-oracledb Cursor.getimplicitresults). issuer is NULL for every kind but iss_sub: DECODE
-- compares it NULL-safely (the manager passes '', which Oracle binds as NULL).
DECLARE
  c SYS_REFCURSOR;
BEGIN
  OPEN c FOR
    SELECT kind, issuer, value, tenant_id, user_id FROM tenant_mapping
     WHERE kind = :kind AND DECODE(issuer, :issuer, 1, 0) = 1 AND value = :value;
  DELETE FROM tenant_mapping WHERE kind = :kind AND DECODE(issuer, :issuer, 1, 0) = 1 AND value = :value;
  DBMS_SQL.RETURN_RESULT(c);
END;

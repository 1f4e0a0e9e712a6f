-- Export and import: the record of one bundle written or read (who asked, when, which tenant and
-- scope, counts per table, the bundle's sha256; no content). Operator session only.
INSERT INTO base_portability_log (record_id, tenant_id, action, scope_kind, subject, requested_by, counts_json,
                                  bundle_sha256, source_tenant, recorded_at)
VALUES (:record, :tenant, :action, :kind, :subject, :requested_by, :counts, :sha256, :source_tenant, :now)

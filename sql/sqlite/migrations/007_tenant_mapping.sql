-- Operator-managed tenant mapping: which tenant (and optionally which user) a verified
-- token speaks for when it carries no tenant claim (a Google access token, an IdP that
-- cannot add custom claims). The HTTP server reads it on the operator path, before any
-- tenant is known; `memgate tenants map|ls|unmap` writes it.
--
-- Deliberately outside the tenant wall: schema.py gives it no tenant view, so walled
-- connections (which refuse every base_ name) and execute_query (reviewed views only)
-- cannot reach it.
--
-- kind says which verified attribute `value` is compared with:
--   iss_sub       the token's issuer (`issuer`) and subject (`value`)
--   client_id     the OAuth client the token was issued to
--   hd            a Google Workspace hosted domain, as Google reports it
--   email_domain  the domain of a verified email address
-- `issuer` is '' for every kind but iss_sub. Domains are stored lower-case.

CREATE TABLE base_tenant_mapping (
    kind TEXT NOT NULL CHECK (kind IN ('iss_sub', 'client_id', 'hd', 'email_domain')),
    issuer TEXT NOT NULL DEFAULT '',
    value TEXT NOT NULL CHECK (length(value) BETWEEN 1 AND 400),
    tenant_id TEXT NOT NULL,
    user_id TEXT,
    note TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (kind, issuer, value),
    CHECK ((kind = 'iss_sub') = (issuer <> ''))
);

"""Tenant mapping: which tenant a verified token speaks for when it does not say.

Owns: base_tenant_mapping (operator-managed, outside the tenant wall, read and written only
through the operator statements sql/<dialect>/operator_tenant_mapping_*.sql), the order in
which matching mappings count, the two refusals (no match; a claim and a mapping, or two
mappings, that disagree) and the marker tenant those refusals are logged under.
May import: the shared leaves, backend.base.
"""

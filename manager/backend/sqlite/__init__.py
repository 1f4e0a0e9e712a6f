"""The embedded SQLite backend: schema and migrations, the tenant wall, the read-only query wall.

Owns: SQLite connections and pools, the app_tenant() context functions, the authorizers,
FTS5 and float32-blob vector search, and SQLite's grammar for admission.
May import: ..base, ..sql_files and the shared leaves.
"""

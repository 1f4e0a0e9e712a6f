"""Query: execute_query, governed read-only SQL, without any dialect of its own.

Owns: admission rules over a sqlglot tree (admission.py) and the run-render-describe flow
(execute.py). The grammar comes from the backend's QueryDialect and the run from
Backend.run_readonly_query, behind the database's own read-only wall.
May import: the shared leaves, backend.base, output.
"""

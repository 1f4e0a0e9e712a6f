"""Output: how results reach the model: records, cells, tables, budgets and the result type.

Owns: `<memory ...>` records and the metadata line (records.py), cell shaping (cells.py),
markdown tables (tables.py), fitting records into a token budget (budget.py) and
ToolOutput (results.py).
May import: the shared leaves only.
"""

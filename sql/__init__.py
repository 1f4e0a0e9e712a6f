"""Dialect SQL for the backends: sqlite/ (embedded default) and oracle/ (production)."""

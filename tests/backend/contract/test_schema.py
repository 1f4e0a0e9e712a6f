"""The schema is versioned: a new database is created at the version this memgate knows."""

from __future__ import annotations


def test_a_new_database_is_at_the_known_version(backend):
    assert backend.schema_version() == backend.known_schema_version() >= 1
    backend.check_schema()


def test_migrate_twice_is_a_no_op(backend):
    version = backend.known_schema_version()
    assert backend.migrate() == (version, version)


def test_describe_names_the_backend_and_its_schema_version(backend):
    info = backend.describe()
    assert (info["backend"], info["schema_version"]) == (backend.dialect, backend.known_schema_version())

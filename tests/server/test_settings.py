"""Settings: TOML plus MEMGATE_* overrides; errors name the key and the fix."""

from __future__ import annotations

import pytest

from memgate.manager.errors import ConfigError
from memgate.server.settings import load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for key in list(__import__("os").environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)


def _toml(tmp_path, text):
    path = tmp_path / "memgate.toml"
    path.write_text(text)
    return path


def test_the_file_sets_values_and_the_environment_overrides_them(tmp_path, monkeypatch):
    path = _toml(tmp_path, "[caps]\nmax_rows = 300\ndefault_rows = 20\n")
    monkeypatch.setenv("MEMGATE_CAPS__MAX_ROWS", "100")
    caps = load_settings(path).caps
    assert (caps.max_rows, caps.default_rows) == (100, 20)


def test_a_value_over_its_limit_names_the_key_the_limit_and_both_places_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMGATE_CAPS__MAX_ROWS", "9000")
    with pytest.raises(ConfigError, match=r"caps\.max_rows: Input should be less than or equal to 5000") as err:
        load_settings(None)
    assert str(err.value) == (
        "Invalid settings:\n  caps.max_rows: Input should be less than or equal to 5000, got '9000'. "
        "Fix it in memgate.toml [caps] or unset MEMGATE_CAPS__MAX_ROWS."
    )


def test_a_misspelt_key_is_an_error_not_silently_ignored(tmp_path):
    path = _toml(tmp_path, "[caps]\nmax_row = 10\n")
    with pytest.raises(ConfigError, match=r"caps\.max_row is not a memgate setting") as err:
        load_settings(path)
    assert str(err.value) == (
        f"Invalid settings:\n  caps.max_row is not a memgate setting. Check its spelling in memgate.toml ({path}) "
        "[caps] or the environment variable MEMGATE_CAPS__MAX_ROW."
    )


def test_default_rows_above_max_rows_is_refused(tmp_path):
    path = _toml(tmp_path, "[caps]\nmax_rows = 10\ndefault_rows = 20\n")
    with pytest.raises(ConfigError, match=r"default_rows \(20\) must be <= max_rows \(10\)"):
        load_settings(path)


def test_a_missing_config_file_says_so(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")


def test_broken_toml_says_where(tmp_path):
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_settings(_toml(tmp_path, "[caps\n"))


def test_stdio_without_a_tenant_explains_how_to_give_one():
    with pytest.raises(ConfigError, match="^stdio.tenant is not set") as err:
        load_settings(None).stdio.identity()
    assert err.value.field == "stdio.tenant"
    assert "`memgate serve --tenant acme`" in err.value.with_hint()


def test_the_database_defaults_to_a_file_in_the_user_data_dir():
    assert load_settings(None).database.path.name == "memgate.db"


@pytest.mark.parametrize(
    ("value", "scopes"),
    [
        ("memory:read", ["memory:read"]),
        ("memory:read, memory:write", ["memory:read", "memory:write"]),
        ('["memory:read", "memory:write"]', ["memory:read", "memory:write"]),
    ],
)
def test_a_list_setting_takes_a_comma_separated_list_or_json_from_the_environment(monkeypatch, value, scopes):
    monkeypatch.setenv("MEMGATE_HTTP__AUTH__REQUIRED_SCOPES", value)
    assert load_settings(None).http.auth.required_scopes == scopes


def test_a_section_that_is_not_json_names_the_key_the_value_and_both_places(monkeypatch):
    monkeypatch.setenv("MEMGATE_CAPS", "max_rows=3")
    with pytest.raises(ConfigError, match="caps: Input should be a valid dictionary") as err:
        load_settings(None)
    assert str(err.value) == (
        "Invalid settings:\n  caps: Input should be a valid dictionary or instance of CapsSettings, "
        "got 'max_rows=3'. Fix it in memgate.toml [caps] or unset MEMGATE_CAPS."
    )


def test_the_command_line_beats_the_environment_which_beats_the_file(tmp_path, monkeypatch):
    path = _toml(tmp_path, '[stdio]\ntenant = "file"\nuser = "file"\nagent = "file"\n')
    monkeypatch.setenv("MEMGATE_STDIO__TENANT", "env")
    monkeypatch.setenv("MEMGATE_STDIO__USER", "env")
    stdio = load_settings(path, **{"stdio.tenant": "flag", "stdio.user": None}).stdio
    assert (stdio.tenant, stdio.user, stdio.agent) == ("flag", "env", "file")


def test_an_unknown_section_in_the_file_is_named(tmp_path):
    path = _toml(tmp_path, "[capz]\nmax_rows = 10\n")
    with pytest.raises(ConfigError, match="capz is not a memgate setting") as err:
        load_settings(path)
    assert str(err.value) == (
        f"Invalid settings:\n  capz is not a memgate setting. Check its spelling in memgate.toml ({path}) "
        "[capz] or the environment variable MEMGATE_CAPZ."
    )


def test_a_retired_key_says_what_took_its_place(tmp_path):
    path = _toml(tmp_path, "[caps]\nsearch_min_cosine = 0.35\n")
    with pytest.raises(ConfigError, match=r"caps\.search_min_cosine is no longer a memgate setting") as err:
        load_settings(path)
    assert str(err.value).startswith(
        "Invalid settings:\n  caps.search_min_cosine is no longer a memgate setting: ChatGPT's search now keeps "
        "what reaches the tenant's relevance floor"
    )
    assert str(err.value).endswith(f"Remove it from memgate.toml ({path}).")

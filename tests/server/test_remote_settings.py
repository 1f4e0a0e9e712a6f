"""[http.auth] for remote hosts: the verifier list, what each verifier needs, and what doctor says."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from memgate.manager import ConfigError
from memgate.server.auth import build_auth
from memgate.server.auth_settings import HttpAuthSettings
from memgate.server.settings import load_settings


def test_one_verifier_a_list_or_a_comma_separated_string():
    assert HttpAuthSettings(verifier="google").verifier == ["google"]
    assert HttpAuthSettings(verifier="jwt, google").verifier == ["jwt", "google"]
    assert HttpAuthSettings(verifier=["introspection", "jwt"]).verifier == ["introspection", "jwt"]


@pytest.mark.parametrize(
    "verifier, message",
    [
        (["jwt", "jwt"], "must name each of jwt, introspection, google at most once"),
        ([], "must name each of jwt, introspection, google at most once and at least one"),
        (["saml"], "Input should be 'jwt', 'introspection' or 'google'"),
    ],
)
def test_a_bad_verifier_list_is_refused(verifier, message):
    with pytest.raises(ValidationError, match=message):
        HttpAuthSettings(verifier=verifier)


@pytest.mark.parametrize(
    "auth, field",
    [
        (
            {"verifier": "introspection", "introspection": {"client_id": "c", "client_secret": "s", "audience": "a"}},
            "http.auth.introspection.url",
        ),
        (
            {
                "verifier": "introspection",
                "introspection": {"url": "https://idp.example/introspect", "client_id": "c", "client_secret": "s"},
            },
            "http.auth.introspection.audience",
        ),
        ({"verifier": "google"}, "http.auth.google.audience"),
        ({"verifier": ["google", "jwt"], "google": {"audience": "x.apps.googleusercontent.com"}}, "http.auth.issuer"),
    ],
)
def test_each_verifier_names_the_setting_it_lacks(auth, field):
    with pytest.raises(ConfigError, match=f"^{re.escape(field)} is required ") as err:
        build_auth(HttpAuthSettings.model_validate(auth), "http://127.0.0.1:1")
    assert err.value.field == field
    key = field.split(".")[-1]
    assert f"MEMGATE_{'__'.join(p.upper() for p in field.split('.'))}" in err.value.hint, key


def test_the_secret_is_never_shown_and_doctor_names_each_verifier():
    auth = HttpAuthSettings.model_validate(
        {
            "verifier": ["introspection", "google"],
            "google": {"audience": "gem.apps.googleusercontent.com"},
            "introspection": {
                "url": "https://idp.example/introspect",
                "client_id": "memgate",
                "client_secret": "hunter2",
                "audience": "api://memgate",
            },
        }
    )
    assert "hunter2" not in repr(auth) and "hunter2" not in auth.describe()
    assert auth.describe() == (
        "introspection (https://idp.example/introspect, audience api://memgate), "
        "then google (audience gem.apps.googleusercontent.com)"
    )


def test_the_toml_tables_load(tmp_path):
    config = tmp_path / "memgate.toml"
    config.write_text(
        '[server]\nallowed_origins = ["https://inspector.example"]\n'
        '[http.auth]\nverifier = ["jwt", "google"]\ncache_s = 0\n'
        '[http.auth.google]\naudience = "gem.apps.googleusercontent.com"\n'
    )
    settings = load_settings(config)
    assert (
        settings.http.auth.verifier,
        settings.http.auth.cache_s,
        settings.http.auth.google.audience,
        settings.server.allowed_origins,
    ) == (["jwt", "google"], 0, "gem.apps.googleusercontent.com", ["https://inspector.example"])

"""`forget`'s subject is checked before anything is read: a kind it knows, and a name."""

from __future__ import annotations

import pytest
from backend_helpers import table_digest

from memgate.manager import InvalidArgument, erase


@pytest.mark.parametrize(
    "kind, subject, message, field",
    [
        ("tenant", "acme", r"^subject kind must be one of \['agent', 'thread', 'user'\]$", "kind"),
        ("user", "", "^name the subject to erase$", "user"),
        ("thread", None, "^name the subject to erase$", "thread"),
    ],
)
def test_forget_refuses_a_subject_it_cannot_name_and_writes_nothing(
    manager, two_tenants, kind, subject, message, field
):
    before = table_digest(manager.backend)
    with pytest.raises(InvalidArgument, match=message) as caught:
        erase(manager.backend, "acme", kind, subject, requested_by="test")
    assert caught.value.field == field
    assert table_digest(manager.backend) == before

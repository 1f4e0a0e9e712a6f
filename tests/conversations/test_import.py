"""`memgate turn import`: histories of dated sessions become threads of the user, times kept, idempotent."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner

from memgate.manager import ACME, InvalidArgument
from memgate.manager.backend.sqlite import lexical, lexical_merge

HISTORY = {
    "conversations": [
        {
            "id": "garden",
            "sessions": [
                {
                    "time": "2023-05-08T13:56:00Z",
                    "messages": [
                        {"role": "user", "text": "I planted 12 tomato seedlings of the San Marzano kind."},
                        {"role": "assistant", "text": "Water them every other day."},
                    ],
                },
                {
                    "thread": "garden-june",
                    "messages": [
                        {"role": "user", "text": "The tomatoes need stakes now.", "time": "3:10 pm on 2 June, 2023"},
                    ],
                },
            ],
        }
    ]
}
#: LoCoMo's shape (two named speakers, session_N with its date), with our own words
LOCOMO = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Mira",
        "speaker_b": "Tom",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Mira", "dia_id": "D1:1", "text": "I adopted a grey cat called Pixel."},
            {"speaker": "Tom", "dia_id": "D1:2", "text": "Cute! How old is Pixel?", "blip_caption": "a grey cat"},
        ],
        "session_2_date_time": "10:00 am on 9 May, 2023",
        "session_2": [{"speaker": "Mira", "dia_id": "D2:1", "text": "Pixel is two years old."}],
    },
}
#: a ChatGPT data export's conversations.json: one conversation, the path to current_node is what was said
CHATGPT = [
    {
        "id": "c-1",
        "title": "Paint",
        "create_time": 1683554160.0,
        "current_node": "n3",
        "mapping": {
            "n0": {"message": None, "parent": None},
            "n1": {
                "message": {"author": {"role": "user"}, "content": {"parts": ["Which blue for the shed?"]}},
                "parent": "n0",
            },
            "n2": {
                "message": {"author": {"role": "assistant"}, "content": {"parts": ["Try Hague Blue."]}},
                "parent": "n1",
            },
            "n2b": {
                "message": {"author": {"role": "assistant"}, "content": {"parts": ["An abandoned branch."]}},
                "parent": "n1",
            },
            "n3": {
                "message": {"author": {"role": "user"}, "content": {"parts": ["Hague Blue it is."]}},
                "parent": "n2",
            },
        },
    }
]


def _turns(backend) -> list[dict]:
    return operator_rows(
        backend,
        "conversation_memory",
        "WHERE event_type = 'turn' AND content_json LIKE '%import%' ORDER BY conversation_id, turn_index",
    )


def test_a_history_becomes_dated_threads_and_a_second_import_adds_nothing(manager, two_tenants, backend):
    report = manager.import_conversations(ACME, json.dumps(HISTORY))
    assert (report.sessions, report.turns, report.skipped) == (2, 3, 0)
    assert report.threads == ["garden-s1", "garden-june"]
    turns = _turns(backend)
    assert [(t["role"], t["speaker"], t["valid_from"]) for t in turns] == [
        ("user", "jane", "2023-05-08T13:56:00.000Z"),
        ("assistant", "research-assistant", "2023-05-08T13:56:00.000Z"),
        ("user", "jane", "2023-06-02T15:10:00.000Z"),
    ]
    conversations = operator_rows(backend, "conversation", "WHERE thread_name IN ('garden-s1', 'garden-june')")
    assert {(c["user_id"], c["agent_id"], c["thread_name"]) for c in conversations} == {
        ("jane", ACME.agent, "garden-s1"),
        ("jane", ACME.agent, "garden-june"),
    }
    again = manager.import_conversations(ACME, json.dumps(HISTORY))
    assert (again.turns, again.skipped) == (0, 3) and len(_turns(backend)) == 3
    # recalled in a fresh thread, dated
    window = manager.assemble_context(
        replace(ACME, thread="later"), "How many tomato seedlings did I plant?", "fact_check"
    )
    assert 'said_on="8 May 2023"' in window.text and "12 tomato seedlings" in window.text


def test_locomo_and_chatgpt_exports_are_read(manager, two_tenants, backend):
    locomo = manager.import_conversations(ACME, json.dumps(LOCOMO))
    assert (locomo.threads, locomo.turns) == (["conv-x-s1", "conv-x-s2"], 3)
    chatgpt = manager.import_conversations(ACME, json.dumps(CHATGPT))
    assert (chatgpt.threads, chatgpt.turns) == (["chatgpt-c-1"], 3)
    rows = {t["content"]: t for t in _turns(backend)}
    assert rows["I adopted a grey cat called Pixel."]["speaker"] == "Mira"
    assert rows["I adopted a grey cat called Pixel."]["role"] == "user"  # the first speaker is the user
    assert rows["Cute! How old is Pixel? [shares a photo: a grey cat]"]["role"] == "assistant"
    assert rows["Pixel is two years old."]["valid_from"] == "2023-05-09T10:00:00.000Z"
    assert "An abandoned branch." not in rows  # not on the path to the current node
    assert [rows[t]["role"] for t in ("Which blue for the shed?", "Try Hague Blue.", "Hague Blue it is.")] == [
        "user",
        "assistant",
        "user",
    ]
    assert rows["Which blue for the shed?"]["valid_from"] == "2023-05-08T13:56:00.000Z"  # the conversation's time


def test_jsonl_one_conversation_a_line(manager, two_tenants):
    lines = "\n".join(json.dumps(c) for c in HISTORY["conversations"] + [LOCOMO])
    assert manager.import_conversations(ACME, lines).turns == 6


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json at all", "line 1 is not JSON"),
        (json.dumps({"sessions": [{"messages": [{"role": "user"}]}]}), "a message has no text"),
        (json.dumps({"sessions": [{"messages": [{"role": "user", "text": " \n "}]}]}), "a message has no text"),
        (json.dumps({"sessions": [{"messages": [{"role": "system", "text": "x"}]}]}), "role must be user or assistant"),
        (json.dumps({"sessions": [{"time": "someday", "messages": []}]}), "is not a time"),
        (json.dumps({"title": "no sessions"}), "has neither sessions"),
    ],
)
def test_a_file_that_does_not_fit_is_refused_naming_why_and_writes_nothing(manager, two_tenants, backend, text, says):
    with pytest.raises(InvalidArgument, match=says):
        manager.import_conversations(ACME, text)
    assert _turns(backend) == []


def test_the_cli_imports_with_a_progress_bar_and_says_what_it_did(
    manager, two_tenants, backend, sqlite_path, monkeypatch, tmp_path
):
    path = tmp_path / "history.json"
    path.write_text(json.dumps(HISTORY))
    invoke = cli_runner(sqlite_path, monkeypatch)
    out = invoke("turn", "import", str(path), "-t", "acme", "--user", "jane", "--agent", ACME.agent).output
    assert "3 turn(s) in 2 session(s) imported in" in out
    with backend.unwalled_connection() as conn:  # the load's segments merged, as `memgate optimize` does
        recall_index = lexical_merge.index_names(lexical.slots(conn)["acme"])[1]
        assert f"acme {recall_index}: " in out and lexical_merge.segments(conn, recall_index) == 1
    again = invoke("turn", "import", str(path), "-t", "acme", "--user", "jane", "--agent", ACME.agent).output
    assert "0 turn(s) in 2 session(s) imported" in again and "3 already there" in again
    listed = invoke("turn", "ls", "-t", "acme", "--thread", "garden-s1").output
    assert "I planted 12 tomato seedlings" in listed
    policy = invoke("turn", "policy", "-t", "acme").output
    assert "recall policy of acme: same_user_agent (version default)" in policy
    assert "same_user (version 1)" in invoke("turn", "policy", "-t", "acme", "--recall", "same_user").output


def test_two_users_importing_one_history_each_get_their_own_turns(manager, two_tenants, backend):
    manager.import_conversations(ACME, json.dumps(HISTORY))
    bob = replace(ACME, user="bob", principal="test:bob")
    report = manager.import_conversations(bob, json.dumps(HISTORY))
    assert (report.turns, report.skipped) == (3, 0)
    turns = _turns(backend)
    assert sorted(t["user_id"] for t in turns) == ["bob"] * 3 + ["jane"] * 3
    assert len({t["id"] for t in turns}) == 6


def test_an_imported_thread_goes_on_with_the_next_turn_number_and_no_turn_is_said_in_the_future(
    manager, two_tenants, backend
):
    future = {
        "sessions": [
            {
                "thread": "later-on",
                "messages": [
                    {"role": "user", "text": "A", "time": "2999-01-01T00:00:00Z"},
                    {"role": "assistant", "text": "B"},
                ],
            }
        ]
    }
    manager.import_conversations(ACME, json.dumps(future))
    said = [t for t in _turns(backend) if t["content"] in ("A", "B")]
    assert [t["turn_index"] for t in said] == [1, 2]
    assert all(t["valid_from"] <= t["created_at"] for t in said)  # a time ahead of the server's is now
    nxt = manager.record_turn(replace(ACME, thread="later-on"), "user", "C")
    assert nxt["turn_index"] == 3

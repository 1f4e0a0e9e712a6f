"""The ranker's reads of the recall index: the speakers whose names leave the lexical query, and the
turns fetched by place around the best candidates, each only what the caller may recall."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from memgate.manager import ACME, TurnRanker
from memgate.manager.backend.base import RecallFilters
from memgate.manager.conversations import recall_index
from memgate.manager.conversations.recall import _speakers, _turns_at


def _history(*speakers: str) -> str:
    said = ["I adopted a puppy called Biscuit.", "Lovely! What breed is it?", "A beagle, from the shelter."]
    messages = [{"speaker": speakers[n % len(speakers)], "text": text} for n, text in enumerate(said)]
    return json.dumps(
        {"id": "h", "sessions": [{"thread": "pets", "time": "2023-05-08T10:00:00Z", "messages": messages}]}
    )


def test_the_speakers_and_the_turns_by_place_are_the_callers_own(manager, two_tenants, backend):
    jane, bob = replace(ACME, thread=None), replace(ACME, user="bob", thread=None)
    manager.import_conversations(jane, _history("Caroline", "Melanie"))
    manager.import_conversations(bob, _history("Zed", "Quentin"))
    manager.import_conversations(replace(jane, agent="reviewer"), _history("Ursula"))
    with backend.session(replace(ACME, thread="q")) as s:
        own = RecallFilters("jane", ACME.agent)
        assert set(_speakers(s, own)) >= {"Caroline", "Melanie"}
        assert not set(_speakers(s, own)) & {"Zed", "Quentin", "Ursula"}
        lexical, _ = TurnRanker().queries("When did Caroline and Zed adopt the puppy?", lambda: _speakers(s, own))
        assert lexical == "When did and Zed adopt the puppy?"
        conversation = s.raw("SELECT conversation_id FROM conversation_recall WHERE speaker = 'Caroline'")[0]
        places = [(conversation["conversation_id"], i) for i in (1, 2, 3, 9)]
        assert [c.turn_index for c in sorted(_turns_at(s)(places), key=lambda c: c.turn_index)] == [1, 2, 3]
    with backend.operator_session() as s:
        bobs = s.raw("SELECT conversation_id FROM base_conversation_recall WHERE speaker = 'Zed'")[0]
    with backend.session(replace(ACME, thread="q")) as s:
        assert _turns_at(s)([(bobs["conversation_id"], 1), (bobs["conversation_id"], 2)]) == []


def test_a_turn_is_embedded_with_the_words_of_the_turn_it_replies_to(manager, two_tenants, backend):
    manager.import_conversations(replace(ACME, thread=None), _history("Caroline", "Melanie"))
    with backend.operator_session() as s:
        rows = s.raw(
            "SELECT content, embedding FROM base_conversation_recall WHERE speaker IN ('Caroline', 'Melanie')"
            " ORDER BY turn_index"
        )
    first, reply = rows[0], rows[1]
    alone, replying = manager.embedder.embed(
        [reply["content"], recall_index.embedding_text(reply["content"], "I adopted a puppy called Biscuit.")]
    )
    stored = np.frombuffer(reply["embedding"], dtype=np.float32)
    assert np.allclose(stored, replying, atol=1e-5) and not np.allclose(stored, alone, atol=1e-5)
    assert np.allclose(
        np.frombuffer(first["embedding"], dtype=np.float32), manager.embedder.embed([first["content"]])[0]
    )

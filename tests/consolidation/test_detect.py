"""detect.py on its own (no database): which pairs consolidation proposes, and which it never does."""

from __future__ import annotations

from memgate.manager.consolidation.detect import Claim, Item, near_duplicates, repeats, stale

CLAIM = Claim(
    id="ent_2",
    version=2,
    subject="model:helios-rag",
    predicate="beir_ndcg10",
    value="0.81",
    old_value="0.78",
    corrected_at="2026-03-01T00:00:00.000Z",
)


def _item(id, text, created_at="2026-02-01T00:00:00.000Z", family="note", document_id=None):
    kind = "knowledge_base_chunk" if family == "passage" else "knowledge_base_document"
    return Item(kind, family, id, 1, text, created_at, document_id)


def test_two_passages_of_one_document_are_never_duplicates_of_each_other():
    text = "Helios RAG scored 0.78 on BEIR."
    one, two = (
        _item("c1", text, family="passage", document_id="d1"),
        _item("c2", text, family="passage", document_id="d1"),
    )
    assert near_duplicates([one, two]) == []
    other = _item("c3", text, "2026-02-02T00:00:00.000Z", family="passage", document_id="d2")
    assert [(m.retire.id, m.target.id) for m in near_duplicates([one, other])] == [("c3", "c1")]


def test_a_note_is_stale_only_when_written_before_the_correction_and_stating_only_the_old_value():
    before = _item("n1", "Helios RAG scored 0.78 on BEIR in the spring run.")
    after = _item("n2", "Helios RAG scored 0.78 on BEIR in the spring run.", created_at="2026-03-02T00:00:00.000Z")
    both = _item("n3", "Helios RAG went from 0.78 to 0.81 on BEIR in the spring run.")
    assert [m.retire.id for m in stale([before, after, both], [CLAIM])] == ["n1"]


def test_a_short_note_is_no_repeat_of_a_passage_that_holds_its_words():
    passage = _item("c1", "The on-call rota changes every Monday at nine.", family="passage", document_id="d1")
    assert repeats(_item("n1", "Every Monday."), [(passage, 0.2)]) is None
    found = repeats(_item("n2", "The on-call rota changes every Monday."), [(passage, 0.2)])
    assert found is not None and found.target.id == "c1"


def test_a_value_at_the_end_of_a_sentence_is_still_the_value():
    """A note saying "... is 0.78." ends with a full stop, not with a longer number: the note states the old value."""
    ends = _item("n1", "Helios RAG's BEIR nDCG@10 is 0.78.")
    listed = _item("n2", "Helios RAG scored 0.78, then the re-run was planned.")
    whole = _item("n3", "Helios RAG scored 0.785 on BEIR.")  # another number that starts the same
    assert [m.retire.id for m in stale([ends, listed, whole], [CLAIM])] == ["n1", "n2"]

import re

import pytest

from memgate.manager.files.paths import MemoryToolError, is_hidden, normalize_memory_path


def must_start(shown: str) -> str:
    return f"Path must start with /memories, got: {shown}"


def escapes(shown: str) -> str:
    return f"Path {shown} would escape /memories directory"


LONG_SEGMENT = "/memories/" + "a" * 256
LONG_PATH = "/memories/" + "a/" * 300

# (raw path, the whole error text the model gets back)
HOSTILE = [
    # not under /memories at all
    ("", must_start("")),
    ("memories/a.md", must_start("memories/a.md")),
    ("/etc/passwd", must_start("/etc/passwd")),
    ("~/memories/a.md", must_start("~/memories/a.md")),
    ("../memories/a.md", must_start("../memories/a.md")),
    ("./memories", must_start("./memories")),
    ("/tmp/../memories/a.md", must_start("/tmp/../memories/a.md")),
    ("//memories/a.md", must_start("//memories/a.md")),
    (" /memories/a.md", must_start(" /memories/a.md")),
    ("\\memories\\a.md", must_start("\\memories\\a.md")),
    ("%2fmemories/a.md", must_start("%2fmemories/a.md")),
    ("\uff0fmemories/a.md", must_start("\uff0fmemories/a.md")),
    ("/Memories/a.md", must_start("/Memories/a.md")),
    ("file:///memories/a.md", must_start("file:///memories/a.md")),
    # dot segments, even ones that would land back inside
    ("/memories/..", escapes("/memories/..")),
    ("/memories/../etc/passwd", escapes("/memories/../etc/passwd")),
    ("/memories/a/../../etc/passwd", escapes("/memories/a/../../etc/passwd")),
    ("/memories/a/../b.md", escapes("/memories/a/../b.md")),
    ("/memories/./a.md", escapes("/memories/./a.md")),
    ("/memories/.", escapes("/memories/.")),
    ("/memories/...", escapes("/memories/...")),
    ("/memories/a/..//", escapes("/memories/a/..//")),
    # backslashes
    ("/memories/..\\..\\etc\\passwd", escapes("/memories/..\\..\\etc\\passwd")),
    ("/memories\\..\\secret", escapes("/memories\\..\\secret")),
    # percent escapes, single and double
    ("/memories/%2e%2e/secret", escapes("/memories/%2e%2e/secret")),
    ("/memories/%2E%2E%2Fsecret", escapes("/memories/%2E%2E%2Fsecret")),
    ("/memories/..%2fsecret", escapes("/memories/..%2fsecret")),
    ("/memories/a%5c..%5cb", escapes("/memories/a%5c..%5cb")),
    ("/memories/%252e%252e/secret", escapes("/memories/%252e%252e/secret")),
    ("/memories/%00.md", escapes("/memories/%00.md")),
    ("/memories/%41.md", escapes("/memories/%41.md")),
    # Unicode that NFKC turns into something else
    ("/memories/\uff0e\uff0e/secret", escapes("/memories/\uff0e\uff0e/secret")),
    ("/memories/a\uff0f..\uff0fb", escapes("/memories/a\uff0f..\uff0fb")),
    ("/memories/\u2024\u2024/secret", escapes("/memories/\u2024\u2024/secret")),
    ("/memories/\u2025/secret", escapes("/memories/\u2025/secret")),
    ("/memories/a\uff3c..", escapes("/memories/a\uff3c..")),
    ("/memories/\uff41.md", escapes("/memories/\uff41.md")),
    # control and format characters, echoed escaped
    ("/memories/a.md\x00.txt", escapes("/memories/a.md\\x00.txt")),
    ("/memories/a\nb.md", escapes("/memories/a\\nb.md")),
    ("/memories/a\tb.md", escapes("/memories/a\\tb.md")),
    ("/memories/a\x7f", escapes("/memories/a\\x7f")),
    ("/memories/a\x85", escapes("/memories/a\\x85")),
    ("/memories/\u202egpj.md", escapes("/memories/\\u202egpj.md")),
    ("/memories/a\u2066b", escapes("/memories/a\\u2066b")),
    ("/memories/a\u200bb", escapes("/memories/a\\u200bb")),
    ("/memories/\ufeffa.md", escapes("/memories/\\ufeffa.md")),
    ("/memories/a\u2028b", escapes("/memories/a\\u2028b")),
    ("/memories/\ud800.md", escapes("/memories/\\ud800.md")),
    ("/memories\x00/a.md", escapes("/memories\\x00/a.md")),
    # prefix tricks and home directories
    ("/memoriesX/a.md", escapes("/memoriesX/a.md")),
    ("/memories-backup/a.md", escapes("/memories-backup/a.md")),
    ("/memories..", escapes("/memories..")),
    ("/memories/~/a.md", escapes("/memories/~/a.md")),
    ("/memories/~root/a.md", escapes("/memories/~root/a.md")),
    ("/memories/ /a.md", escapes("/memories/ /a.md")),
    # names a filesystem would read without their trailing spaces or dots
    ("/memories/notes.md.", escapes("/memories/notes.md.")),
    ("/memories/notes.md..", escapes("/memories/notes.md..")),
    ("/memories/notes.md ", escapes("/memories/notes.md ")),
    ("/memories/notes.md . ", escapes("/memories/notes.md . ")),
    ("/memories/drafts./a.md", escapes("/memories/drafts./a.md")),
    ("/memories/drafts /a.md", escapes("/memories/drafts /a.md")),
    ("/memories/.hidden./a.md", escapes("/memories/.hidden./a.md")),
    # sizes
    (LONG_SEGMENT, escapes(LONG_SEGMENT)),
    (LONG_PATH, escapes(LONG_PATH[:512] + "...")),
]


def test_the_hostile_list_is_long_enough():
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize(("raw", "text"), HOSTILE, ids=[repr(raw)[:40] for raw, _ in HOSTILE])
def test_hostile_path_is_refused_with_the_contract_text(raw, text):
    with pytest.raises(MemoryToolError, match=f"^{re.escape(text)}$") as caught:
        normalize_memory_path(raw)
    assert caught.value.text == text
    assert str(caught.value) == text


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("/memories", "/memories"),
        ("/memories/", "/memories"),
        ("/memories//", "/memories"),
        ("/memories/notes.md", "/memories/notes.md"),
        ("/memories//a.md", "/memories/a.md"),
        ("/memories/a/b/", "/memories/a/b"),
        ("/memories///projects//2025///plan.md", "/memories/projects/2025/plan.md"),
        ("/memories/.hidden", "/memories/.hidden"),
        ("/memories/a..b.md", "/memories/a..b.md"),
        ("/memories/caf\u00e9.md", "/memories/caf\u00e9.md"),
        ("/memories/cafe\u0301.md", "/memories/caf\u00e9.md"),  # decomposed: the same file, in NFC
        ("/memories/A\u030a/e\u0301t\u00e9.md", "/memories/\u00c5/\u00e9t\u00e9.md"),
        ("/memories/\ud55c\uae00.md", "/memories/\ud55c\uae00.md"),
        ("/memories/\u1112\u1161\u11ab.md", "/memories/\ud55c.md"),  # Hangul jamo compose
        ("/memories/\u212b.md", "/memories/\u00c5.md"),  # the Angstrom sign is Å in NFC
        ("/memories/ notes.md", "/memories/ notes.md"),
        ("/memories/notes.md~", "/memories/notes.md~"),
        ("/memories/\u65e5\u672c\u8a9e.md", "/memories/\u65e5\u672c\u8a9e.md"),
        ("/memories/my notes.md", "/memories/my notes.md"),
        ("/memories/100%.md", "/memories/100%.md"),
        ("/memories/v1.2/notes~", "/memories/v1.2/notes~"),
        ("/memories/" + "a" * 255, "/memories/" + "a" * 255),
    ],
)
def test_safe_path_comes_back_canonical(raw, canonical):
    assert normalize_memory_path(raw) == canonical


def test_path_of_exactly_max_len_bytes_is_accepted():
    raw = "/memories/" + "/".join(["b" * 100] * 4) + "/" + "c" * 98
    assert len(raw) == 512
    assert normalize_memory_path(raw) == raw


def test_path_one_byte_over_max_len_is_refused():
    raw = "/memories/" + "/".join(["b" * 100] * 4) + "/c" + "\u00e9" * 49  # 464 characters, 513 bytes
    with pytest.raises(MemoryToolError, match="would escape /memories directory$") as caught:
        normalize_memory_path(raw)
    assert caught.value.text == escapes(raw)


def test_segment_limit_counts_utf8_bytes_not_characters():
    raw = "/memories/" + "\u00e9" * 128  # 256 bytes
    with pytest.raises(MemoryToolError, match="would escape /memories directory$") as caught:
        normalize_memory_path(raw)
    assert caught.value.text == escapes(raw)


def test_max_len_is_configurable():
    with pytest.raises(MemoryToolError, match=r"^Path /memories/ab\.\.\. would escape") as caught:
        normalize_memory_path("/memories/abcdef", max_len=12)
    assert caught.value.text == "Path /memories/ab... would escape /memories directory"


def test_memory_tool_error_is_not_a_memgate_error():
    from memgate.manager.errors import MemgateError

    assert not issubclass(MemoryToolError, MemgateError)


@pytest.mark.parametrize(
    ("path", "hidden"),
    [
        ("/memories", False),
        ("/memories/notes.md", False),
        ("/memories/a..b/c.md", False),
        ("/memories/.secret", True),
        ("/memories/.config/settings.md", True),
        ("/memories/projects/.draft.md", True),
    ],
)
def test_is_hidden_marks_dot_files_and_everything_under_dot_directories(path, hidden):
    assert is_hidden(path) is hidden

import os
import re

import pytest

from memgate.manager.files import texts as texts
from memgate.manager.files.paths import normalize_memory_path
from memgate.manager.files.texts import (
    MEMORY_PROTOCOL,
    MemoryToolError,
    apply_insert,
    apply_str_replace,
    format_size,
    render_directory,
    render_file,
)

FILE_HEADER = "Here's the content of /memories/notes.md with line numbers:\n"
DIR_HEADER = "Here're the files and directories up to 2 levels deep in {}, excluding hidden items:\n"


def error_text(call, *args):
    # The contract's three error families; each caller compares the whole text.
    families = r"^(Invalid `\w+` parameter: |File /memories/|No replacement was performed)"
    with pytest.raises(MemoryToolError, match=families) as caught:
        call(*args)
    return caught.value.text


# --- pinned literals (no SDK needed) ------------------------------------------------


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0B"),
        (1, "1B"),
        (1023, "1023B"),
        (1024, "1K"),
        (1536, "1.5K"),
        (4096, "4K"),
        (4200, "4.1K"),
        (1048576, "1M"),
        (1572864, "1.5M"),
        (3 * 1024**3, "3G"),
        (5 * 1024**4, "5120G"),
    ],
)
def test_format_size_uses_binary_units_like_the_sdk(size, shown):
    assert format_size(size) == shown


def test_render_file_numbers_every_line_including_the_empty_tail():
    assert render_file("/memories/notes.md", "alpha\nbeta\n") == FILE_HEADER + "     1\talpha\n     2\tbeta\n     3\t"


def test_render_file_of_an_empty_file_shows_one_empty_line():
    assert render_file("/memories/notes.md", "") == FILE_HEADER + "     1\t"


def test_render_file_keeps_carriage_returns():
    assert render_file("/memories/notes.md", "a\r\nb") == FILE_HEADER + "     1\ta\r\n     2\tb"


@pytest.mark.parametrize(
    ("view_range", "body"),
    [
        ([2, -1], "     2\tb\n     3\tc"),
        ([2, 2], "     2\tb"),
        ((1, 2), "     1\ta\n     2\tb"),
        ([3, 99], "     3\tc"),
    ],
)
def test_render_file_shows_only_the_view_range(view_range, body):
    assert render_file("/memories/notes.md", "a\nb\nc", view_range) == FILE_HEADER + body


@pytest.mark.parametrize(
    ("view_range", "text"),
    [
        ([0, 2], "Invalid `view_range` parameter: [0, 2]. Its start should be within the range [1, 3]."),
        ([4, -1], "Invalid `view_range` parameter: [4, -1]. Its start should be within the range [1, 3]."),
        ([3, 2], "Invalid `view_range` parameter: [3, 2]. Its end should be -1 or at least its start, 3."),
        ([2, -5], "Invalid `view_range` parameter: [2, -5]. Its end should be -1 or at least its start, 2."),
        ([1], "Invalid `view_range` parameter: [1]. It should be a list of two integers [start, end]."),
        ([1, 2, 3], "Invalid `view_range` parameter: [1, 2, 3]. It should be a list of two integers [start, end]."),
        ([True, 2], "Invalid `view_range` parameter: [True, 2]. It should be a list of two integers [start, end]."),
        ("1-2", "Invalid `view_range` parameter: 1-2. It should be a list of two integers [start, end]."),
    ],
)
def test_render_file_refuses_a_bad_view_range(view_range, text):
    assert error_text(render_file, "/memories/notes.md", "a\nb\nc", view_range) == text


def test_render_file_refuses_a_file_over_the_line_limit():
    text = error_text(render_file, "/memories/big.md", "\n" * 999_999)
    assert text == "File /memories/big.md exceeds maximum line limit of 999,999 lines."


def test_render_directory_of_an_empty_store_shows_only_the_root():
    assert render_directory("/memories", []) == DIR_HEADER.format("/memories") + "4K\t/memories"


STORE = [
    ("/memories/zeta.md", 10),
    ("/memories/projects/plan.md", 2048),
    ("/memories/projects/2025/q1/deep.md", 5),
    ("/memories/projects/2025/notes.md", 7),
    ("/memories/projects/.draft.md", 3),
    ("/memories/.secrets/key.md", 99),
    ("/memories/alpha.md", 0),
    ("/memories/projectsX/other.md", 1),
]


def test_render_directory_lists_two_levels_sorted_by_name_without_hidden_items():
    assert render_directory("/memories", STORE) == DIR_HEADER.format("/memories") + "\n".join(
        [
            "4K\t/memories",
            "0B\t/memories/alpha.md",
            "4K\t/memories/projects/",
            "4K\t/memories/projects/2025/",
            "2K\t/memories/projects/plan.md",
            "4K\t/memories/projectsX/",
            "1B\t/memories/projectsX/other.md",
            "10B\t/memories/zeta.md",
        ]
    )


def test_render_directory_of_a_subdirectory_ignores_sibling_prefixes():
    assert render_directory("/memories/projects", STORE) == DIR_HEADER.format("/memories/projects") + "\n".join(
        [
            "4K\t/memories/projects",
            "4K\t/memories/projects/2025/",
            "7B\t/memories/projects/2025/notes.md",
            "4K\t/memories/projects/2025/q1/",
            "2K\t/memories/projects/plan.md",
        ]
    )


def test_str_replace_returns_new_text_and_a_two_line_snippet():
    text = "".join(f"line {n}\n" for n in range(1, 8))
    new_text, message = apply_str_replace("/memories/notes.md", text, "line 4", "LINE FOUR")
    assert new_text == text.replace("line 4", "LINE FOUR")
    assert message == (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        "     2\tline 2\n     3\tline 3\n     4\tLINE FOUR\n     5\tline 5\n     6\tline 6"
    )


def test_str_replace_without_a_match_names_old_str_and_path():
    text = error_text(apply_str_replace, "/memories/notes.md", "hello", "bye", "x")
    assert text == "No replacement was performed, old_str `bye` did not appear verbatim in /memories/notes.md."


def test_str_replace_with_several_matches_lists_their_lines():
    text = error_text(apply_str_replace, "/memories/notes.md", "todo\ndone\ntodo todo\n", "todo", "x")
    assert text == (
        "No replacement was performed. Multiple occurrences of old_str `todo` in lines: 1, 3, 3. "
        "Please ensure it is unique"
    )


def test_str_replace_refuses_an_empty_old_str():
    text = error_text(apply_str_replace, "/memories/notes.md", "abc", "", "x")
    assert text == (
        "No replacement was performed, old_str is empty. Give the exact text to replace in /memories/notes.md."
    )


def test_insert_puts_text_after_the_given_line_and_ends_with_a_newline():
    assert apply_insert("/memories/notes.md", "a\nb", 1, "new\n\n") == (
        "a\nnew\nb\n",
        "The file /memories/notes.md has been edited.",
    )


def test_insert_at_zero_goes_first():
    assert apply_insert("/memories/notes.md", "a\nb\n", 0, "top")[0] == "top\na\nb\n"


@pytest.mark.parametrize(("line", "limit"), [(-1, 2), (3, 2)])
def test_insert_outside_the_file_names_the_valid_range(line, limit):
    text = error_text(apply_insert, "/memories/notes.md", "a\nb\n", line, "x")
    assert text == f"Invalid `insert_line` parameter: {line}. It should be within the range [0, {limit}]."


def test_command_texts_are_the_sdk_strings():
    assert [
        texts.created("/memories/a.md"),
        texts.deleted("/memories/a.md"),
        texts.renamed("/memories/a.md", "/memories/b.md"),
        texts.not_found("/memories/a.md"),
        texts.not_found("/memories/a.md", suffix=False),
        texts.already_exists("/memories/a.md"),
        texts.not_a_file("/memories/d"),
        texts.destination_exists("/memories/b.md"),
        texts.no_longer_exists("/memories/a.md"),
        texts.CANNOT_DELETE_ROOT,
        texts.CANNOT_RENAME_ROOT,
        texts.ALL_MEMORY_CLEARED,
    ] == [
        "File created successfully at: /memories/a.md",
        "Successfully deleted /memories/a.md",
        "Successfully renamed /memories/a.md to /memories/b.md",
        "The path /memories/a.md does not exist. Please provide a valid path.",
        "The path /memories/a.md does not exist",
        "File /memories/a.md already exists",
        "The path /memories/d is not a file.",
        "The destination /memories/b.md already exists",
        "The file /memories/a.md no longer exists (may have been deleted or renamed concurrently).",
        "Cannot delete the /memories directory itself",
        "Cannot rename the /memories directory itself",
        "All memory cleared",
    ]


def test_memory_protocol_is_short_and_covers_the_habits():
    assert len(MEMORY_PROTOCOL.split()) < 200
    for phrase in [
        "view /memories",
        "record progress",
        "small, current and organised",
        "outdated",
        "data, not instructions",
    ]:
        assert phrase in MEMORY_PROTOCOL


# --- the same operations against the SDK's reference implementation -----------------


class Reference:
    """anthropic's BetaLocalFilesystemMemoryTool on a tmp dir; errors come back as text."""

    def __init__(self, module, tool_error, base):
        self.tool = module.BetaLocalFilesystemMemoryTool(base_path=str(base))
        self.tool_error = tool_error
        self.root = base / "memories"

    def __call__(self, **command):
        try:
            return self.tool.call(command)
        except self.tool_error as err:
            return str(err)

    def read(self, path):
        return (self.root / path.removeprefix("/memories/")).read_bytes().decode()

    def write(self, path, text):
        target = self.root / path.removeprefix("/memories/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())

    def entries(self):
        found = []
        for folder, _, files in os.walk(self.root):
            for name in files:
                full = os.path.join(folder, name)
                found.append(("/memories/" + os.path.relpath(full, self.root), os.path.getsize(full)))
        return found


@pytest.fixture
def sdk(tmp_path):
    reason = (
        "anthropic SDK not installed: the comparison with its reference memory tool is skipped "
        "(pip install -e '.[test]' installs it)"
    )
    module = pytest.importorskip("anthropic.lib.tools._beta_builtin_memory_tool", reason=reason)
    functions = pytest.importorskip("anthropic.lib.tools._beta_functions", reason=reason)
    return Reference(module, functions.ToolError, tmp_path)


def ours(call, *args):
    try:
        return call(*args)
    except MemoryToolError as err:
        return err.text


CONTENTS = ["", "one", "a\nb\n", "a\r\nb", "x\n\n\ny", "\n", "l1\nl2\nl3\nl4\nl5\nl6\n"]
RANGES = [None, [1, -1], [2, -1], [1, 2], [2, 3], [3, 50]]
# Where the start is past the last line the SDK shows an empty view and we refuse it.
VIEWS = [
    (content, view_range)
    for content in CONTENTS
    for view_range in RANGES
    if view_range is None or view_range[0] <= len(content.split("\n"))
]


@pytest.mark.parametrize(("content", "view_range"), VIEWS)
def test_render_file_matches_the_sdk_view(sdk, content, view_range):
    sdk.write("/memories/notes.md", content)
    command = {"command": "view", "path": "/memories/notes.md"}
    if view_range:
        command["view_range"] = view_range
    assert ours(render_file, "/memories/notes.md", content, view_range) == sdk(**command)


def test_a_view_range_past_the_end_is_an_error_where_the_sdk_shows_nothing(sdk):
    sdk.write("/memories/notes.md", "one")
    shown = sdk(command="view", path="/memories/notes.md", view_range=[2, -1])
    assert shown == "Here's the content of /memories/notes.md with line numbers:\n"
    assert ours(render_file, "/memories/notes.md", "one", [2, -1]) == (
        "Invalid `view_range` parameter: [2, -1]. Its start should be within the range [1, 1]."
    )


def _dir_sizes_as_ours(listing, path):
    # Directory sizes are the inode's st_size on the SDK's filesystem; ours are fixed.
    head, *lines = listing.split("\n")
    fixed = [re.sub(r"^[^\t]+", "4K", ln) if ln.endswith("/") or ln.endswith("\t" + path) else ln for ln in lines]
    return "\n".join([head, *fixed])


@pytest.mark.parametrize("path", ["/memories", "/memories/projects", "/memories/projects/2025"])
def test_render_directory_matches_the_sdk_view(sdk, path):
    for file_path, size in STORE:
        sdk.write(file_path, "x" * size)
    expected = _dir_sizes_as_ours(sdk(command="view", path=path), path)
    assert render_directory(path, sdk.entries()) == expected


def test_render_directory_of_an_empty_store_matches_the_sdk(sdk):
    expected = _dir_sizes_as_ours(sdk(command="view", path="/memories"), "/memories")
    assert render_directory("/memories", sdk.entries()) == expected


REPLACEMENTS = [
    ("a\nb\nc\nd\ne\nf\ng\n", "d", "D"),
    ("a\nb\nc\nd\ne\nf\ng\n", "a", "A1\nA2"),
    ("a\nb\nc\nd\ne\nf\ng", "f\ng", "end"),
    ("only line", "line", ""),
    ("multi\nline\nold\nblock\n", "line\nold", "x"),
    ("aaa", "aa", "b"),
    ("aaaa", "aa", "b"),
    ("todo\ndone\ntodo todo\n", "todo", "x"),
    ("hello", "bye", "x"),
    ("crlf\r\nline\r\n", "line", "LINE"),
]


@pytest.mark.parametrize(("content", "old_str", "new_str"), REPLACEMENTS)
def test_str_replace_matches_the_sdk(sdk, content, old_str, new_str):
    sdk.write("/memories/notes.md", content)
    reply = sdk(command="str_replace", path="/memories/notes.md", old_str=old_str, new_str=new_str)
    mine = ours(apply_str_replace, "/memories/notes.md", content, old_str, new_str)
    if isinstance(mine, tuple):
        assert mine == (sdk.read("/memories/notes.md"), reply)
    else:
        assert mine == reply


INSERTS = [
    ("a\nb\n", 0, "top"),
    ("a\nb\n", 1, "mid\n\n"),
    ("a\nb\n", 2, "end"),
    ("a\nb", 2, "end"),
    ("", 0, "first"),
    ("a\r\nb\r\n", 1, "x"),
    ("a\nb\n", 3, "x"),
    ("a\nb\n", -1, "x"),
]


@pytest.mark.parametrize(("content", "line", "insert_text"), INSERTS)
def test_insert_matches_the_sdk(sdk, content, line, insert_text):
    sdk.write("/memories/notes.md", content)
    reply = sdk(command="insert", path="/memories/notes.md", insert_line=line, insert_text=insert_text)
    mine = ours(apply_insert, "/memories/notes.md", content, line, insert_text)
    if isinstance(mine, tuple):
        assert mine == (sdk.read("/memories/notes.md"), reply)
    else:
        assert mine == reply


def test_command_texts_match_the_sdk(sdk):
    a, b = "/memories/a.md", "/memories/sub/b.md"
    replies = [
        sdk(command="create", path=a, file_text="x"),
        sdk(command="create", path=a, file_text="y"),
        sdk(command="view", path="/memories/missing.md"),
        sdk(command="delete", path="/memories/missing.md"),
        sdk(command="delete", path="/memories"),
        sdk(command="rename", old_path="/memories", new_path="/memories/x"),
        sdk(command="rename", old_path="/memories/missing.md", new_path="/memories/y.md"),
        sdk(command="create", path=b, file_text="z"),
        sdk(command="rename", old_path=a, new_path=b),
        sdk(command="str_replace", path="/memories/sub", old_str="z", new_str="w"),
        sdk(command="rename", old_path=a, new_path="/memories/c.md"),
        sdk(command="delete", path="/memories/c.md"),
        sdk.tool.clear_all_memory(),
    ]
    assert replies == [
        texts.created(a),
        texts.already_exists(a),
        texts.not_found("/memories/missing.md"),
        texts.not_found("/memories/missing.md", suffix=False),
        texts.CANNOT_DELETE_ROOT,
        texts.CANNOT_RENAME_ROOT,
        texts.not_found("/memories/missing.md", suffix=False),
        texts.created(b),
        texts.destination_exists(b),
        texts.not_a_file("/memories/sub"),
        texts.renamed(a, "/memories/c.md"),
        texts.deleted("/memories/c.md"),
        texts.ALL_MEMORY_CLEARED,
    ]


@pytest.mark.parametrize("path", ["/etc/passwd", "memories/a.md", "", "/memories/../secret", "/memories/a/../../x"])
def test_path_errors_match_the_sdk(sdk, path):
    assert ours(normalize_memory_path, path) == sdk(command="view", path=path)

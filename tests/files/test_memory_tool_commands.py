"""Every memory-tool command and error path, through the MCP client, with whole texts pinned."""

from __future__ import annotations

import pytest
from memory_helpers import ACME_AGENT, DIR_HEADER, FILE_HEADER, call, run_calls, seed, snapshot


@pytest.fixture
def acme(manager):
    seed(manager, ACME_AGENT)
    return manager


def numbered(*lines: str, first: int = 1) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, first))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_model_session_runs_every_command_in_both_protocol_eras(acme, mode):
    async def calls(s):
        return [
            await s.call(command="view", path="/memories"),
            await s.call(command="create", path="/memories/progress.md", file_text="# Progress\n- step 1\n"),
            await s.call(command="str_replace", path="/memories/progress.md", old_str="step 1", new_str="step 1 done"),
            await s.call(command="insert", path="/memories/progress.md", insert_line=2, insert_text="- step 2\n"),
            await s.call(command="view", path="/memories/progress.md"),
            await s.call(command="rename", old_path="/memories/progress.md", new_path="/memories/done/progress.md"),
            await s.call(command="view", path="/memories"),
            await s.call(command="delete", path="/memories/done"),
            await s.call(command="view", path="/memories"),
        ]

    got = run_calls(acme, ACME_AGENT, calls, mode=mode)
    assert got == [
        (False, DIR_HEADER.format(path="/memories") + "\n4K\t/memories"),
        (False, "File created successfully at: /memories/progress.md"),
        (
            False,
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
            + numbered("# Progress", "- step 1 done", ""),
        ),
        (False, "The file /memories/progress.md has been edited."),
        (
            False,
            FILE_HEADER.format(path="/memories/progress.md")
            + "\n"
            + numbered("# Progress", "- step 1 done", "- step 2", ""),
        ),
        (False, "Successfully renamed /memories/progress.md to /memories/done/progress.md"),
        (
            False,
            DIR_HEADER.format(path="/memories") + "\n4K\t/memories\n4K\t/memories/done/\n"
            "34B\t/memories/done/progress.md",
        ),
        (False, "Successfully deleted /memories/done"),
        (False, DIR_HEADER.format(path="/memories") + "\n4K\t/memories"),
    ]


def test_a_fresh_store_shows_an_empty_memories_and_creates_nothing(acme, backend):
    before = snapshot(backend)
    assert call(acme, ACME_AGENT, command="view", path="/memories") == (
        False,
        DIR_HEADER.format(path="/memories") + "\n4K\t/memories",
    )
    assert snapshot(backend) == before


def test_view_lists_two_levels_skips_hidden_items_and_shows_sizes_in_bytes(acme):
    async def calls(s):
        for path, text in [
            ("/memories/a.md", "é" * 10),
            ("/memories/p/x.md", "x" * 2048),
            ("/memories/p/q/deep.md", "d"),
            ("/memories/p/q/r/deeper.md", "d"),
            ("/memories/.hidden/s.md", "s"),
            ("/memories/p/.secret", "s"),
        ]:
            assert (await s.call(command="create", path=path, file_text=text))[0] is False
        return await s.call(command="view", path="/memories"), await s.call(command="view", path="/memories/p/")

    root, sub = run_calls(acme, ACME_AGENT, calls)
    assert root == (
        False,
        DIR_HEADER.format(path="/memories")
        + "\n"
        + "\n".join(
            ["4K\t/memories", "20B\t/memories/a.md", "4K\t/memories/p/", "4K\t/memories/p/q/", "2K\t/memories/p/x.md"]
        ),
    )
    assert sub == (
        False,
        DIR_HEADER.format(path="/memories/p")
        + "\n"
        + "\n".join(
            [
                "4K\t/memories/p",
                "4K\t/memories/p/q/",
                "1B\t/memories/p/q/deep.md",
                "4K\t/memories/p/q/r/",
                "2K\t/memories/p/x.md",
            ]
        ),
    )


def test_view_range_shows_the_asked_lines_and_refuses_bad_ranges(acme):
    async def calls(s):
        await s.call(command="create", path="/memories/n.md", file_text="one\ntwo\nthree\nfour")
        return [
            await s.call(command="view", path="/memories/n.md", view_range=r)
            for r in ([2, 3], [3, -1], [2, 99], [0, 2], [5, 6], [3, 2], [1], [1, 2, 3])
        ]

    got = run_calls(acme, ACME_AGENT, calls)
    head = FILE_HEADER.format(path="/memories/n.md") + "\n"
    assert got == [
        (False, head + numbered("two", "three", first=2)),
        (False, head + numbered("three", "four", first=3)),
        (False, head + numbered("two", "three", "four", first=2)),
        (True, "Invalid `view_range` parameter: [0, 2]. Its start should be within the range [1, 4]."),
        (True, "Invalid `view_range` parameter: [5, 6]. Its start should be within the range [1, 4]."),
        (True, "Invalid `view_range` parameter: [3, 2]. Its end should be -1 or at least its start, 3."),
        # the schema no longer bounds its length: the manager says what a range is
        (True, "Invalid `view_range` parameter: [1]. It should be a list of two integers [start, end]."),
        (True, "Invalid `view_range` parameter: [1, 2, 3]. It should be a list of two integers [start, end]."),
    ]


def test_view_of_a_missing_path_says_it_does_not_exist(acme):
    assert call(acme, ACME_AGENT, command="view", path="/memories/nope.md") == (
        True,
        "The path /memories/nope.md does not exist. Please provide a valid path.",
    )


def test_create_refuses_an_existing_file_or_directory_and_keeps_the_file(acme, backend):
    async def calls(s):
        await s.call(command="create", path="/memories/d/a.md", file_text="first")
        return [
            await s.call(command="create", path="/memories/d/a.md", file_text="second"),
            await s.call(command="create", path="/memories/d", file_text="x"),
            await s.call(command="create", path="/memories", file_text="x"),
            await s.call(command="create", path="/memories/d/a.md/b.md", file_text="x"),
            await s.call(command="view", path="/memories/d/a.md"),
        ]

    got = run_calls(acme, ACME_AGENT, calls)
    assert got == [
        (True, "File /memories/d/a.md already exists"),
        (True, "File /memories/d already exists"),
        (True, "File /memories already exists"),
        (True, "Cannot create /memories/d/a.md/b.md: /memories/d/a.md is a file, not a directory."),
        (False, FILE_HEADER.format(path="/memories/d/a.md") + "\n" + numbered("first")),
    ]


def test_str_replace_needs_exactly_one_occurrence_and_says_how_many(acme):
    async def calls(s):
        await s.call(command="create", path="/memories/t.md", file_text="a x\nb\nx x\n")
        return [
            await s.call(command="str_replace", path="/memories/t.md", old_str="x", new_str="y"),
            await s.call(command="str_replace", path="/memories/t.md", old_str="zzz", new_str="y"),
            await s.call(command="str_replace", path="/memories/t.md", old_str="", new_str="y"),
            await s.call(command="str_replace", path="/memories/none.md", old_str="a", new_str="b"),
            await s.call(command="view", path="/memories/t.md"),
        ]

    got = run_calls(acme, ACME_AGENT, calls)
    assert got == [
        (
            True,
            "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 3, 3. "
            "Please ensure it is unique",
        ),
        (True, "No replacement was performed, old_str `zzz` did not appear verbatim in /memories/t.md."),
        (True, "No replacement was performed, old_str is empty. Give the exact text to replace in /memories/t.md."),
        (True, "The path /memories/none.md does not exist. Please provide a valid path."),
        (False, FILE_HEADER.format(path="/memories/t.md") + "\n" + numbered("a x", "b", "x x", "")),
    ]


def test_edits_of_a_directory_say_it_is_not_a_file(acme):
    async def calls(s):
        await s.call(command="create", path="/memories/dir/a.md", file_text="a")
        return [
            await s.call(command="str_replace", path="/memories/dir", old_str="a", new_str="b"),
            await s.call(command="insert", path="/memories/dir", insert_line=0, insert_text="b"),
            await s.call(command="insert", path="/memories", insert_line=0, insert_text="b"),
        ]

    assert run_calls(acme, ACME_AGENT, calls) == [
        (True, "The path /memories/dir is not a file."),
        (True, "The path /memories/dir is not a file."),
        (True, "The path /memories is not a file."),
    ]


def test_insert_checks_the_line_and_the_path(acme):
    async def calls(s):
        await s.call(command="create", path="/memories/i.md", file_text="one\ntwo\n")
        return [
            await s.call(command="insert", path="/memories/i.md", insert_line=3, insert_text="x"),
            await s.call(command="insert", path="/memories/i.md", insert_line=-1, insert_text="x"),
            await s.call(command="insert", path="/memories/gone.md", insert_line=0, insert_text="x"),
            await s.call(command="insert", path="/memories/i.md", insert_line=0, insert_text="top\n\n"),
            await s.call(command="view", path="/memories/i.md"),
        ]

    assert run_calls(acme, ACME_AGENT, calls) == [
        (True, "Invalid `insert_line` parameter: 3. It should be within the range [0, 2]."),
        (True, "Invalid `insert_line` parameter: -1. It should be within the range [0, 2]."),
        (True, "The path /memories/gone.md does not exist. Please provide a valid path."),
        (False, "The file /memories/i.md has been edited."),
        (False, FILE_HEADER.format(path="/memories/i.md") + "\n" + numbered("top", "one", "two", "")),
    ]


def test_delete_refuses_the_root_and_missing_paths(acme):
    async def calls(s):
        return [
            await s.call(command="delete", path="/memories"),
            await s.call(command="delete", path="/memories/"),
            await s.call(command="delete", path="/memories/missing.md"),
        ]

    assert run_calls(acme, ACME_AGENT, calls) == [
        (True, "Cannot delete the /memories directory itself"),
        (True, "Cannot delete the /memories directory itself"),
        (True, "The path /memories/missing.md does not exist"),
    ]


def test_delete_of_a_directory_removes_everything_below_it_only(acme):
    async def calls(s):
        for p in ("/memories/a/1.md", "/memories/a/b/2.md", "/memories/a/.h", "/memories/ab.md"):
            await s.call(command="create", path=p, file_text="x")
        return [await s.call(command="delete", path="/memories/a"), await s.call(command="view", path="/memories")]

    assert run_calls(acme, ACME_AGENT, calls) == [
        (False, "Successfully deleted /memories/a"),
        (False, DIR_HEADER.format(path="/memories") + "\n4K\t/memories\n1B\t/memories/ab.md"),
    ]


def test_rename_checks_root_destination_source_and_cycles_in_the_sdk_order(acme):
    async def calls(s):
        await s.call(command="create", path="/memories/a.md", file_text="a")
        await s.call(command="create", path="/memories/d/b.md", file_text="b")
        return [
            await s.call(command="rename", old_path="/memories", new_path="/memories/x"),
            await s.call(command="rename", old_path="/memories/a.md", new_path="/memories/d/b.md"),
            await s.call(command="rename", old_path="/memories/a.md", new_path="/memories/d"),
            await s.call(command="rename", old_path="/memories/a.md", new_path="/memories"),
            await s.call(command="rename", old_path="/memories/nope", new_path="/memories/d/b.md"),
            await s.call(command="rename", old_path="/memories/nope", new_path="/memories/new"),
            await s.call(command="rename", old_path="/memories/d", new_path="/memories/d/e"),
            await s.call(command="rename", old_path="/memories/d", new_path="/memories/a.md/e"),
            await s.call(command="rename", old_path="/memories/d", new_path="/memories/z/y"),
            await s.call(command="view", path="/memories/z/y/b.md"),
        ]

    assert run_calls(acme, ACME_AGENT, calls) == [
        (True, "Cannot rename the /memories directory itself"),
        (True, "The destination /memories/d/b.md already exists"),
        (True, "The destination /memories/d already exists"),
        (True, "The destination /memories already exists"),
        (True, "The destination /memories/d/b.md already exists"),
        (True, "The path /memories/nope does not exist"),
        (True, "Cannot rename /memories/d to /memories/d/e: a directory cannot move inside itself."),
        (True, "Cannot rename /memories/d to /memories/a.md/e: /memories/a.md is a file, not a directory."),
        (False, "Successfully renamed /memories/d to /memories/z/y"),
        (False, FILE_HEADER.format(path="/memories/z/y/b.md") + "\n" + numbered("b")),
    ]


@pytest.mark.parametrize(
    "arguments, text",
    [
        ({"command": "view"}, "Missing required parameter `path` for command `view`."),
        (
            {"command": "create", "path": "/memories/a.md"},
            "Missing required parameter `file_text` for command `create`.",
        ),
        (
            {"command": "str_replace", "path": "/memories/a.md", "old_str": "a"},
            "Missing required parameter `new_str` for command `str_replace`.",
        ),
        (
            {"command": "insert", "path": "/memories/a.md", "insert_text": "a"},
            "Missing required parameter `insert_line` for command `insert`.",
        ),
        (
            {"command": "rename", "old_path": "/memories/a.md"},
            "Missing required parameter `new_path` for command `rename`.",
        ),
        (
            {"command": "delete", "path": "/memories/a.md", "file_text": "x"},
            "Parameter `file_text` is not used by command `delete`; it takes: path.",
        ),
        (
            {"command": "view", "path": "/memories", "old_path": "/memories/a"},
            "Parameter `old_path` is not used by command `view`; it takes: path, view_range.",
        ),
    ],
)
def test_missing_and_misplaced_parameters_are_told_as_text(acme, arguments, text):
    assert call(acme, ACME_AGENT, **arguments) == (True, text)


@pytest.mark.parametrize(
    "arguments, text",
    [
        (
            {"command": "format", "path": "/memories"},
            "Invalid arguments for 'command': 'format' is not one of "
            "['view', 'create', 'str_replace', 'insert', 'delete', 'rename']",
        ),
        ({"command": "view", "path": 7}, "Invalid arguments for 'path': 7 is not of type 'string'"),
        (
            {"command": "view", "path": "/memories/a", "view_range": ["1", 2]},
            "Invalid arguments for 'view_range.0': '1' is not of type 'integer'",
        ),
        (
            {"command": "view", "path": "/memories", "store": "agent:other"},
            "Invalid arguments: Additional properties are not allowed ('store' was unexpected)",
        ),
    ],
)
def test_arguments_outside_the_schema_are_refused_as_text(acme, arguments, text):
    assert call(acme, ACME_AGENT, **arguments) == (True, text)


def test_every_call_is_logged_with_contract_errors_as_invalid(acme):
    async def calls(s):
        await s.call(command="view", path="/memories")
        await s.call(command="view", path="/memories/missing")

    run_calls(acme, ACME_AGENT, calls)
    rows = acme.recent_calls(ACME_AGENT, tool="memory")
    assert [(r["status"], r["handler"], r["error_class"]) for r in rows] == [
        ("invalid", "memory", None),
        ("ok", "memory", None),
    ]
    assert rows[0]["result_text"] == "The path /memories/missing does not exist. Please provide a valid path."


def test_the_memory_protocol_is_served_as_a_prompt_and_a_resource(acme):
    async def calls(s):
        prompts = await s.client.list_prompts()
        prompt = await s.client.get_prompt("memory_protocol")
        resource = await s.client.read_resource("memgate://memory/protocol")
        return prompts, prompt, resource

    prompts, prompt, resource = run_calls(acme, ACME_AGENT, calls)
    assert "memory_protocol" in [p.name for p in prompts]
    text = prompt.messages[0].content.text
    assert text.startswith("MEMORY PROTOCOL\n1. Before starting any task, view /memories")
    assert resource[0].text == text

"""The same passage in two files (a book's print.html beside its chapters) shows once, best copy first."""

from __future__ import annotations

import asyncio
import re

from fastmcp import Client
from kb_helpers import ACME, add_doc, hashing_manager
from memory_helpers import seed, server_for

CHAPTER = "Chapter {n}. The zebra herd crossed the river at dawn, counted by the rangers at ford {n}."


def test_exact_duplicates_fold_into_the_best_ranked_copy_which_says_how_many(backend):
    kb = hashing_manager(backend)
    for n in range(1, 4):
        add_doc(kb, ACME, f"Chapter {n}", CHAPTER.format(n=n), uri=f"test://book/ch{n}.html")
        # the print version of each chapter: same words, other spacing and case
        add_doc(
            kb,
            ACME,
            "Print version",
            "  " + CHAPTER.format(n=n).upper().replace(" ", "\n "),
            uri=f"test://book/print-{n}.html",
        )
    add_doc(kb, ACME, "Other", "Zebra rangers keep the ford log in a waterproof book.", uri="test://other.html")
    out = kb.search_memory(ACME, "zebra herd river ford rangers", max_results=4)
    results = out.structured["results"]
    assert len(results) == 4
    assert sum(r["folded"] for r in results) == 3

    seed(kb, ACME)

    async def over_mcp():  # what the model reads: search_memory through the server
        async with Client(server_for(kb, ACME)) as client:
            result = await client.call_tool(
                "search_memory", {"query": "zebra herd river ford rangers", "max_results": 4}
            )
            return result.content[0].text

    text = asyncio.run(over_mcp())
    contents = [
        " ".join(r.split()).casefold()
        for r in re.findall(r"^<content>title: [^\n]*\n(.*?)</content>", text, re.DOTALL | re.MULTILINE)
    ]
    assert len(contents) == len(set(contents)) == 4  # four different passages, no copy among them
    assert len(re.findall(r' folded="1"[ >]', text)) == 3


def test_a_search_without_duplicates_says_nothing_of_folding(backend):
    kb = hashing_manager(backend)
    add_doc(kb, ACME, "One", "Kumquats ripen in winter.", uri="test://one")
    add_doc(kb, ACME, "Two", "Kumquats ripen in the spring.", uri="test://two")
    out = kb.search_memory(ACME, "kumquats")
    assert "folded" not in out.text and [r["folded"] for r in out.structured["results"]] == [0, 0]

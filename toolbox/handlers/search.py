"""The `search` handler: ChatGPT's search tool (deep research, company knowledge) over the knowledge base.

The same retrieval as search_memory; the answer is OpenAI's shape, `{"results": [{"id",
"title", "url"}]}`, as JSON text (and as structuredContent where the row asks for it).
"""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class SearchArgs(StrictArgs):
    query: str = Field(min_length=1, max_length=2000)


#: ToolOutput.structured of search (manager/kb/sources.py)
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "url": {"type": "string"}},
                "required": ["id", "title", "url"],
            },
        },
    },
    "required": ["results"],
}

SPEC = HandlerSpec("search", "search_sources", SearchArgs, takes_policy=True, output_schema=OUTPUT_SCHEMA)

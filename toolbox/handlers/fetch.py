"""The `fetch` handler: ChatGPT's fetch tool, one knowledge-base chunk or document by id.

Takes the ids search returns (chunks) and the document ids their metadata names; the
answer is OpenAI's shape, `{"id", "title", "text", "url", "metadata"}`, as JSON text (and
as structuredContent where the row asks for it). Any id the caller cannot see now gets
the same one sentence, whether it exists elsewhere or not.
"""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class FetchArgs(StrictArgs):
    id: str = Field(min_length=1, max_length=200)


#: ToolOutput.structured of fetch (manager/kb/sources.py); metadata values are strings
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "text": {"type": "string"},
        "url": {"type": "string"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["id", "title", "text", "url", "metadata"],
}

SPEC = HandlerSpec("fetch", "fetch_source", FetchArgs, takes_policy=True, output_schema=OUTPUT_SCHEMA)

"""The citation link of a knowledge-base document or chunk: a stable URL a host can show.

In order: the document's own source when it is a web address (what a user can open), else
the row's configured public base URL with the document id (an operator's page in front of
memgate), else `memgate://kb/<document id>`. A chunk's link is its document's, with the
chunk id as the fragment where memgate makes the link; a web source is cited as it is.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

__all__ = ["SCHEME", "is_web_url", "source_link"]

SCHEME = "memgate://kb/"


def is_web_url(value: str | None) -> bool:
    """An absolute http or https URL with a host."""
    if not value:
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def source_link(
    document_id: str, source_uri: str | None, *, chunk_id: str | None = None, public_base: str | None = None
) -> str:
    if is_web_url(source_uri):
        return str(source_uri)
    base = f"{public_base.rstrip('/')}/" if public_base else SCHEME
    return f"{base}{quote(document_id, safe='')}" + (f"#{quote(chunk_id, safe='')}" if chunk_id else "")

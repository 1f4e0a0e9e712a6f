"""Turn a knowledge-base file (.txt, .md, .html, .pdf) into plain text with a title."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgument, NotFound

__all__ = ["SUPPORTED_EXTENSIONS", "ParsedDocument", "parse_file"]


@dataclass(frozen=True)
class ParsedDocument:
    """A parsed file: its title, its text, and the MIME type it was read as."""

    title: str
    text: str
    mime: str


_MIME_BY_EXTENSION = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
SUPPORTED_EXTENSIONS = tuple(sorted(_MIME_BY_EXTENSION))


def parse_file(path: str | Path) -> ParsedDocument:
    """Read `path` and return its title and text; the extension picks the parser."""
    path = Path(path)
    # Whether it exists comes first: `/nonexistent` is missing, not of an unsupported type.
    if not path.is_file():
        raise NotFound(f"{path.name} does not exist or is not a file.", field="path")
    mime = _MIME_BY_EXTENSION.get(path.suffix.lower())
    if mime is None:
        raise InvalidArgument(
            f"{path.name} is not a supported file type ({path.suffix or 'no extension'}). "
            f"Supported: {', '.join(SUPPORTED_EXTENSIONS)}.",
            field="path",
            hint="Convert it to one of those, e.g. save it as .txt or .pdf.",
        )
    data = path.read_bytes()
    if not data.strip():
        raise InvalidArgument(f"{path.name} is empty.", field="path")
    if mime == "application/pdf":
        title, text = _parse_pdf(path, data)
    elif mime == "text/html":
        title, text = _parse_html(data)
    else:
        text = _decode_text(path, data)
        title = _markdown_title(text) if mime == "text/markdown" else None
    text = _tidy(text)
    if not text:
        raise InvalidArgument(
            f"{path.name} has no text to index.",
            field="path",
            hint="A PDF of scanned pages needs OCR first." if mime == "application/pdf" else None,
        )
    return ParsedDocument(title=title or path.stem, text=text, mime=mime)


def _decode_text(path: Path, data: bytes) -> str:
    try:
        # utf-8-sig drops a byte-order mark that some editors write.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"{path.name} is not valid UTF-8 (bad byte at offset {exc.start}).",
            field="path",
            hint="Re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8.",
        ) from exc


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _markdown_title(text: str) -> str | None:
    """The first ATX (`# T`) or setext (`T` over `===`) heading outside code fences."""
    lines = text.splitlines()
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _ATX_HEADING.match(line)
        if match:
            return match.group(1).strip()
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and _SETEXT_UNDERLINE.match(following):
            return line.strip()
    return None


# Block elements end a line; inline ones (<b>, <a>, <span>) must not split a sentence.
_HTML_BLOCKS = [
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
]
_HTML_DROP = ["script", "style", "noscript", "template", "head", "svg"]


def _parse_html(data: bytes) -> tuple[str | None, str]:
    # beautifulsoup4 with the stdlib parser: pure Python, tolerant of broken markup, and it
    # reads the charset from a BOM or <meta> (UnicodeDammit) when handed bytes.
    from bs4 import BeautifulSoup, Comment, NavigableString

    soup = BeautifulSoup(data, "html.parser")
    title = None
    if soup.title and soup.title.get_text(strip=True):
        title = soup.title.get_text(" ", strip=True)
    else:
        heading = soup.find(["h1", "h2", "h3"])
        if heading and heading.get_text(strip=True):
            title = heading.get_text(" ", strip=True)
    for tag in soup(_HTML_DROP):
        tag.decompose()
    for node in soup.find_all(string=True):
        if isinstance(node, Comment):
            node.extract()
    # Preformatted text (code) keeps its whitespace exactly: it is lifted out before the rest
    # is normalised and put back at the end, behind a marker the document cannot contain.
    marker = f"memgate-pre-{uuid.uuid4().hex}-"
    preformatted = []
    for pre in soup.find_all("pre"):
        if pre.find_parent("pre") is not None:
            continue  # taken with its outer <pre>
        for br in pre("br"):
            br.replace_with("\n")
        # HTML drops one newline right after <pre>.
        preformatted.append(pre.get_text().removeprefix("\n").rstrip())
        pre.replace_with(f"\n\n{marker}{len(preformatted) - 1}\n\n")
    for node in soup.find_all(string=True):
        if type(node) is NavigableString:
            # Source whitespace is not text in HTML; only the block breaks added below are.
            # Exact type: a Doctype rewritten as a plain string would become visible text.
            node.replace_with(re.sub(r"\s+", " ", node))
    for br in soup("br"):
        br.replace_with("\n")
    for tag in soup(_HTML_BLOCKS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    text = "\n".join(line.strip() for line in soup.get_text().split("\n"))
    return title, re.sub(re.escape(marker) + r"(\d+)", lambda m: preformatted[int(m.group(1))], text)


def _parse_pdf(path: Path, data: bytes) -> tuple[str | None, str]:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InvalidArgument(f"{path.name} is an encrypted PDF.", field="path", hint="Save an unencrypted copy.")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        # pypdf raises a mix of its own and builtin errors on damaged files.
        raise InvalidArgument(
            f"{path.name} is not a readable PDF.",
            field="path",
            hint="Check that it opens in a PDF viewer, or export it again.",
        ) from exc
    return (meta_title.strip() if meta_title and meta_title.strip() else None), "\n\n".join(pages)


def _tidy(text: str) -> str:
    """Unify newlines, trim trailing spaces, and keep at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()

import re

import pytest

from memgate.manager.errors import InvalidArgument, NotFound
from memgate.manager.kb.parse import ParsedDocument, parse_file


def write_pdf(path, lines, title=None):
    """A one-page PDF, written byte by byte, whose text is `lines` in Helvetica."""
    content = "".join(f"BT /F1 12 Tf 72 {720 - 20 * i} Td ({line}) Tj ET\n" for i, line in enumerate(lines))
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n{content}endstream",
        f"<< /Title ({title}) >>" if title else "<< >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)


def test_text_file_keeps_its_text_and_takes_its_name_as_title(tmp_path):
    path = tmp_path / "release-notes.txt"
    path.write_text("Version 2 adds search.\r\n\r\n\r\n\r\nIt also fixes ingest.  \n", encoding="utf-8")
    assert parse_file(path) == ParsedDocument(
        "release-notes", "Version 2 adds search.\n\nIt also fixes ingest.", "text/plain"
    )


def test_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffhello".encode("utf-8"))
    assert parse_file(path).text == "hello"


def test_markdown_title_is_its_first_heading_outside_code(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text("```\n# not a title\n```\nIntro.\n\n## Getting started ##\n\n# Later\n", encoding="utf-8")
    doc = parse_file(path)
    assert (doc.title, doc.mime) == ("Getting started", "text/markdown")
    assert doc.text.startswith("```\n# not a title\n```\nIntro.")


def test_markdown_setext_heading_is_a_title(tmp_path):
    path = tmp_path / "notes.markdown"
    path.write_text("Deploy runbook\n==============\n\nSteps.\n", encoding="utf-8")
    assert parse_file(path).title == "Deploy runbook"


def test_markdown_without_heading_takes_its_name_as_title(tmp_path):
    path = tmp_path / "plain.md"
    path.write_text("Just text.", encoding="utf-8")
    assert parse_file(path).title == "plain"


def test_html_keeps_visible_text_with_blocks_on_their_own_lines(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(
        "<!DOCTYPE html><html><head><title> Billing FAQ </title><style>p {color: red}</style></head>"
        "<body><script>var secret = 1;</script><!-- a comment -->\n"
        "  <h1>Invoices</h1>\n  <p>Pay   <b>within</b>\n  30 days.<br>Late fees apply.</p>"
        "<ul><li>Card</li><li>Bank transfer</li></ul></body></html>",
        encoding="utf-8",
    )
    assert parse_file(path) == ParsedDocument(
        "Billing FAQ",
        "Invoices\n\nPay within 30 days.\nLate fees apply.\n\nCard\n\nBank transfer",
        "text/html",
    )


def test_html_without_title_takes_its_first_heading(tmp_path):
    path = tmp_path / "page.htm"
    path.write_bytes('<meta charset="latin-1"><h2>Caf\xe9 hours</h2><p>9 to 5</p>'.encode("latin-1"))
    assert parse_file(path) == ParsedDocument("Café hours", "Café hours\n\n9 to 5", "text/html")


def test_pdf_text_is_extracted_with_its_metadata_title(tmp_path):
    path = tmp_path / "policy.pdf"
    write_pdf(path, ["Refunds are issued within 14 days."], title="Refund policy")
    doc = parse_file(path)
    assert (doc.title, doc.mime) == ("Refund policy", "application/pdf")
    assert doc.text == "Refunds are issued within 14 days."


def test_pdf_without_metadata_title_takes_its_name(tmp_path):
    path = tmp_path / "scan.pdf"
    write_pdf(path, ["Hello"])
    assert parse_file(path).title == "scan"


def error_of(path):
    with pytest.raises((InvalidArgument, NotFound), match=rf"^{re.escape(path.name)} ") as excinfo:
        parse_file(path)
    return type(excinfo.value).__name__, excinfo.value.message, excinfo.value.field


def test_unsupported_type_names_the_file_and_the_supported_extensions(tmp_path):
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK")
    assert error_of(path) == (
        "InvalidArgument",
        "notes.docx is not a supported file type (.docx). Supported: .htm, .html, .markdown, .md, .pdf, .txt.",
        "path",
    )


def test_file_without_extension_is_unsupported(tmp_path):
    path = tmp_path / "README"
    path.write_text("hi")
    assert error_of(path)[1].startswith("README is not a supported file type (no extension).")


def test_missing_file_is_not_found(tmp_path):
    assert error_of(tmp_path / "gone.txt") == ("NotFound", "gone.txt does not exist or is not a file.", "path")


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("empty.txt", b"", "empty.txt is empty."),
        ("blank.md", b" \n\t\n", "blank.md is empty."),
        ("latin.txt", "café".encode("latin-1"), "latin.txt is not valid UTF-8 (bad byte at offset 3)."),
        ("broken.pdf", b"not a pdf at all", "broken.pdf is not a readable PDF."),
        ("scripts.html", b"<script>only()</script>", "scripts.html has no text to index."),
    ],
)
def test_unreadable_files_get_a_clear_error(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    assert error_of(path) == ("InvalidArgument", message, "path")


def test_pdf_without_text_suggests_ocr(tmp_path):
    path = tmp_path / "image-only.pdf"
    write_pdf(path, [])
    with pytest.raises(InvalidArgument, match="^image-only.pdf has no text to index\\.$") as excinfo:
        parse_file(path)
    assert excinfo.value.with_hint() == "image-only.pdf has no text to index. A PDF of scanned pages needs OCR first."


def test_html_keeps_preformatted_code_exactly_as_written(tmp_path):
    path = tmp_path / "guide.html"
    path.write_text(
        "<html><body><h1>Guide</h1><p>Call   it\n  like this:</p>"
        "<pre><code class='py'>def double(x):\n    if x:\n        return  x * 2\n"
        "    <span class='kw'>return</span> 0</code></pre>"
        "<p>Shell:</p><pre>\n$ memgate init<br>    --demo</pre></body></html>"
    )
    assert parse_file(path).text == (
        "Guide\n\nCall it like this:\n\n"
        "def double(x):\n    if x:\n        return  x * 2\n    return 0\n\n"
        "Shell:\n\n$ memgate init\n    --demo"
    )


def test_a_path_that_does_not_exist_is_not_found_whatever_its_name(tmp_path):
    assert error_of(tmp_path / "nonexistent") == ("NotFound", "nonexistent does not exist or is not a file.", "path")

"""PDF files joined with PDFium, and made reproducible: the same pages give the same bytes."""

from __future__ import annotations

import hashlib
import re
from io import BytesIO
from pathlib import Path


def merge(paths: list[Path]) -> bytes:
    """PDFs one after the other in one PDF."""
    import pypdfium2 as pdfium

    merged = pdfium.PdfDocument.new()
    sources = []
    try:
        for path in paths:
            source = pdfium.PdfDocument(path)
            sources.append(source)
            merged.import_pages(source)
        buffer = BytesIO()
        merged.save(buffer)
    finally:
        for source in sources:
            source.close()
        merged.close()
    return reproducible(buffer.getvalue())


def reproducible(pdf: bytes) -> bytes:
    """PDFium stamps the save time and a random /ID; make both depend on the content only.

    Each replacement keeps its length, so the cross-reference offsets stay right.
    """
    pdf = re.sub(rb"/CreationDate\(D:\d{14}", b"/CreationDate(D:20260101000000", pdf)
    digest = hashlib.sha256(re.sub(rb"/ID\s*\[[^\]]*\]", b"", pdf)).hexdigest().encode()

    def fixed_id(match: re.Match[bytes]) -> bytes:
        text = match.group(0)
        out, k = bytearray(), 0
        inside = False
        for byte in text:
            char = bytes([byte])
            if char in b"<(":
                inside = True
            elif char in b">)":
                inside = False
            elif inside and char in b"0123456789abcdefABCDEF":
                char = digest[k % len(digest): k % len(digest) + 1]
                k += 1
            out += char
        return bytes(out)

    return re.sub(rb"/ID\s*\[[^\]]*\]", fixed_id, pdf)

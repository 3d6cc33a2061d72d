"""What the generators of the docs' generated pages (``tools.compliance``,
``tools.diagrams``) share."""

from __future__ import annotations

import sys
from pathlib import Path


def emit(text: str, path: Path | None) -> int:
    """Write the generated ``text`` to ``path``, or to stdout without one; exit status 0."""
    if path:
        path.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0

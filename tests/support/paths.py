"""Where the tests find the checkout's files: computed here once, so a test's own
folder does not matter."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "tests" / "spec"  # the project's copy of ../shared
EXAMPLES = SPEC / "examples"  # the bench's scenarios and their expected lines
REGULATIONS = SPEC / "regulations"

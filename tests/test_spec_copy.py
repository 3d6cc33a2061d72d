"""tests/spec is the project's copy of ../shared (regulations, rulings, bench examples),
so that the suite runs in any clone; where ../shared is present it must be identical."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPY = ROOT / "tests" / "spec"
SHARED = ROOT.parent / "shared"


def files(base: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(base)): p.read_bytes()
        for sub in ("regulations", "examples")
        for p in sorted((base / sub).glob("*"))
    } | {"RULINGS.md": (base / "RULINGS.md").read_bytes()}


def test_copy_holds_the_spec() -> None:
    copy = files(COPY)
    assert any(name.startswith("regulations/") for name in copy)
    assert any(name.endswith(".expected.jsonl") for name in copy)


def test_copy_matches_shared_where_shared_is_beside_the_clone() -> None:
    if not SHARED.is_dir():  # a clone with no ../shared: the copy is all there is
        assert COPY.is_dir()
        return
    assert files(COPY) == files(SHARED), "update tests/spec from ../shared"

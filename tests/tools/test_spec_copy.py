"""tests/spec is the project's copy of ../shared (regulations, rulings, bench examples),
so that the suite runs in any clone; it must be identical to the shared spec.

``TABLECTL_SHARED`` says where the shared spec is: unset, ``../shared`` beside the
checkout; a path, there; ``none``, nowhere (a CI clone): only the copy is checked."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.paths import ROOT, SPEC

COPY = SPEC
SHARED = ROOT.parent / "shared"


def files(base: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(base)): p.read_bytes()
        for sub in ("regulations", "examples")
        for p in sorted((base / sub).glob("*"))
    } | {"RULINGS.md": (base / "RULINGS.md").read_bytes()}


def shared_spec(environ: Mapping[str, str], beside: Path = SHARED) -> Path | None:
    """The shared spec to compare the copy with (``beside`` unless TABLECTL_SHARED
    names one); None when TABLECTL_SHARED=none."""
    setting = environ.get("TABLECTL_SHARED", "")
    if setting == "none":
        return None
    path = Path(setting) if setting else beside
    if not path.is_dir():
        pytest.fail(
            f"no shared spec at {path}: put the shared spec at ../shared beside the "
            "checkout, or set TABLECTL_SHARED=PATH to compare tests/spec with the one at "
            "PATH, or TABLECTL_SHARED=none to say there is none (only the copy is checked)"
        )
    return path


def test_copy_holds_the_spec() -> None:
    copy = files(COPY)
    assert any(name.startswith("regulations/") for name in copy)
    assert any(name.endswith(".expected.jsonl") for name in copy)


def test_copy_matches_shared_where_shared_is_beside_the_clone() -> None:
    assert COPY.is_dir()
    shared = shared_spec(os.environ)
    if shared is not None:
        assert files(COPY) == files(shared), f"update tests/spec from {shared}"


def test_a_shared_spec_not_found_fails_unless_told_there_is_none(tmp_path: Path) -> None:
    missing = tmp_path / "shared"
    assert shared_spec({}, beside=tmp_path) == tmp_path
    assert shared_spec({"TABLECTL_SHARED": str(tmp_path)}, beside=missing) == tmp_path
    assert shared_spec({"TABLECTL_SHARED": "none"}, beside=missing) is None
    for environ in ({}, {"TABLECTL_SHARED": str(missing)}):
        with pytest.raises(pytest.fail.Exception) as failed:
            shared_spec(environ, beside=missing)
        message = str(failed.value)
        assert message.startswith(f"no shared spec at {missing}: ")
        assert "TABLECTL_SHARED=PATH" in message and "TABLECTL_SHARED=none" in message

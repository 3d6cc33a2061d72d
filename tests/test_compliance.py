"""docs/compliance.md is generated from the regulations and the tests' reg markers."""

from __future__ import annotations

from pathlib import Path

from controller.compliance import build, reg_markers, render, subsections

ROOT = Path(__file__).resolve().parent.parent


def test_compliance_doc_is_current() -> None:
    expected = build(ROOT / "tests" / "spec" / "regulations", ROOT / "tests")
    actual = (ROOT / "docs" / "compliance.md").read_text(encoding="utf-8")
    assert actual == expected, "run: python -m controller.compliance --write docs/compliance.md"


def test_lettered_subsections_and_roman_numerals() -> None:
    text = "\n".join(
        [
            "§ 999.1. Something.",
            "(a) First.",
            "(1) A paragraph.",
            "(i) A roman numeral, not subsection (i).",
            "(b) Second.",
            "§ 999.2. A section without subsections.",
            "Just text.",
        ]
    )
    assert [s.ident for s in subsections(text)] == ["999.1(a)", "999.1(b)", "999.2"]


def test_markers_cover_their_subsection_and_parents(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "import pytest\n"
        "@pytest.mark.reg('999.1(b)(2)')\n"
        "def test_one():\n    pass\n"
        "@pytest.mark.reg('999.1(a)', '999.9(z)')\n"
        "def test_two():\n    pass\n"
    )
    markers = reg_markers(tmp_path)
    page = render(["§ 999.1. S.\n(a) A.\n(b) B.\n(c) C."], markers)
    assert "| 999.1(a) | `test_x.py::test_two` |" in page
    assert "| 999.1(b) | `test_x.py::test_one` |" in page
    assert "| 999.1(c) | **no test yet** |" in page
    assert "name no subsection of these texts: 999.9(z)" in page

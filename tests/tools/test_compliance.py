"""docs/compliance.md is generated from the regulations and the tests' reg markers."""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import REGULATIONS, ROOT
from tools.compliance import build, chapters, reg_markers, render, subsections


def test_compliance_doc_is_current() -> None:
    expected = build(REGULATIONS, ROOT / "tests")
    actual = (ROOT / "docs" / "compliance.md").read_text(encoding="utf-8")
    assert actual == expected, "run: python -m tools.compliance --write docs/compliance.md"


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


def test_a_roman_run_where_the_next_letter_would_be_i() -> None:
    # As in 551.5(h)(2)(i)-(ii) and 635a.7(h)(1)(i)-(ii): the "(i)" after "(h)" opens a
    # roman run, and the real subsection (i) comes after it.
    text = "\n".join(
        [
            "§ 999.1. Something.",
            *(f"({c}) Letter {c}." for c in "abcdefgh"),
            "(1) A paragraph.",
            "(i) Roman one.",
            "(ii) Roman two.",
            "(i) The real ninth.",
            "(j) Tenth.",
        ]
    )
    subs = subsections(text)
    assert [s.ident for s in subs][-3:] == ["999.1(h)", "999.1(i)", "999.1(j)"]
    assert subs[-2].text == "(i) The real ninth."


def test_markers_cover_their_subsection_and_parents(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "import pytest\n"
        "@pytest.mark.reg('999.1(b)(2)')\n"
        "def test_one():\n    pass\n"
        "@pytest.mark.reg('999.1(a)', '999.9(z)')\n"
        "def test_two():\n    pass\n"
    )
    markers = reg_markers(tmp_path)
    page = render(["§ 999.1. S.\n(a) A.\n(b) B.\n(c) C."], markers, ("999",))
    assert "| 999.1(a) | `test_x.py::test_two` |" in page
    assert "| 999.1(b) | `test_x.py::test_one` |" in page
    assert "| 999.1(c) | **no test yet** |" in page
    assert "name no subsection of these texts: 999.9(z)" in page


def test_markers_are_read_in_the_test_folders_named_by_their_path(tmp_path: Path) -> None:
    (tmp_path / "table").mkdir()
    (tmp_path / "table" / "test_y.py").write_text(
        "import pytest\n@pytest.mark.reg('999.1(a)')\ndef test_three():\n    pass\n"
    )
    (tmp_path / "helpers.py").write_text(
        "import pytest\n@pytest.mark.reg('999.1(b)')\ndef test_not_a_test_module():\n    pass\n"
    )
    assert reg_markers(tmp_path) == {"999.1(a)": ["table/test_y.py::test_three"]}


def test_a_subsection_glued_to_a_table_row_is_found() -> None:
    # As in 551.7(e)-(f): "Each matching card of the same suit 12 to 1(f) A Match-...".
    text = "§ 999.1. S.\n(a) A.\n(b) Odds:\nSame suit 12 to 1(c) A third subsection.\n"
    subs = subsections(text)
    assert [s.ident for s in subs] == ["999.1(a)", "999.1(b)", "999.1(c)"]
    assert subs[-1].text == "(c) A third subsection."


def test_the_chapters_are_the_registered_games_in_number_order() -> None:
    assert chapters() == ("543", "545", "551", "635a")
    page = render(["§ 999.1. S.\n(a) A.", "§ 998.1. T.\n(a) B."], {}, ("998",))
    assert "| 998.1(a) | **no test yet** |" in page
    assert "999.1" not in page

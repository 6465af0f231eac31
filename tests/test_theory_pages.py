"""The theory family pages (docs/hooks/theory_pages.py) are cut from docs/theory.md without losing or doubling a
section, group the IDs as the pages say, and list the public API each section's Code paragraph names.

The strict build that turns every API entry into a checked cross-reference is
tests/test_docs.py::test_mkdocs_build_strict_documents_every_public_name.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

import markovdp

ROOT = Path(__file__).resolve().parents[1]
THEORY = ROOT / "docs" / "theory.md"


@functools.cache
def hook():
    spec = importlib.util.spec_from_file_location("theory_pages", ROOT / "docs" / "hooks" / "theory_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def rendered() -> dict[str, str]:
    """file -> the markdown the hook generates for that family page."""
    top, sub = hook().public_names()
    return {
        file: hook().page_markdown(title, intro, entries, top, sub)
        for (file, title, intro), entries in hook().family_pages().items()
    }


def sheet_headings() -> list[str]:
    """The `## ` headings of the sheet that state a result (read here with a plain line scan, not the hook's)."""
    return [
        line[3:]
        for line in THEORY.read_text().splitlines()
        if line.startswith("## ") and line[3:] not in ("Sources",) and not line[3:].startswith("Not used")
    ]


def test_every_sheet_id_lands_on_exactly_one_family_page_once():
    headings = sheet_headings()
    assert len(headings) >= 60 and "Notation" in headings[0]
    for heading in headings:
        counts = {file: text.splitlines().count(f"## {heading}") for file, text in rendered().items()}
        hits = {file: n for file, n in counts.items() if n}
        assert list(hits.values()) == [1], f"`## {heading}` is on {hits or 'no page'}"
    on_pages = [line for text in rendered().values() for line in text.splitlines() if line.startswith("## ")]
    assert sorted(on_pages) == sorted(f"## {h}" for h in headings)


def test_sections_are_copied_verbatim_with_their_sub_ids():
    text = THEORY.read_text()
    for _, entries in hook().family_pages().items():
        for name, body in entries:
            assert body in text, f"{name}: the family page's section differs from docs/theory.md"
            assert body.startswith(f"## {name} ") or body.startswith(f"## {name}\n")
            start = text.index(body)
            assert re.match(r"\s*(?:---\s*)?(?:## |\Z)", text[start + len(body) :]), f"{name} is cut short"
    srp = rendered()["theory-srp.md"]
    assert "### SRP-Rec-HR " in srp and "**Code.**" in srp.split("### SRP-Rec-HR ")[1]


def test_the_grouping_follows_prefixes_and_the_papers_sections():
    where = {name: file for (file, _, _), entries in hook().family_pages().items() for name, _ in entries}
    expected = {
        "theory-ground-rules.md": ["Notation", "STD-DPI", "MECH", "POST", "EXACT", "Calibration"],
        "theory-bbgg-mixing.md": ["BBGG-D1", "BBGG-F1", "BBGG-T1"],
        "theory-bbgg-coupling.md": [
            "BBGG-T2",
            "BBGG-T2-finite",
            "BBGG-E1",
            "BBGG-E2",
            "BBGG-E2r",
            "BBGG-L3",
            "BBGG-E3",
            "BBGG-T4",
            "BBGG-T4opt",
            "BBGG-A1",
            "BBGG-T5",
            "BBGG-T5opt",
            "BBGG-PublicSteps",
        ],
        "theory-bbgg-diffusions.md": [
            "BBGG-S",
            "BBGG-A",
            "BBGG-BM",
            "BBGG-T6",
            "BBGG-T6-1D",
            "BBGG-OU",
            "BBGG-C7",
            "BBGG-MSE",
            "BBGG-T8",
        ],
        "theory-aac.md": [
            "AAC-eta",
            "AAC-T1",
            "AAC-phi",
            "AAC-LeCam",
            "AAC-LeCam-mean",
            "AAC-Fano",
            "AAC-Bayes",
            "AAC-Test",
            "AAC-MI",
        ],
        "theory-srp.md": [
            "SRP-D",
            "SRP-Tab1",
            "SRP-Est",
            "SRP-ML",
            "SRP-ML-HR",
            "SRP-Rec",
            "SRP-Rec-ID",
            "SRP-Seq",
            "SRP-R",
        ],
        "theory-standard-facts.md": ["STD-GaussHS", "STD-PLD", "STD-RDP2DP", "STD-BlackBoxExact", "STD-Milstein"],
    }
    wrong = {
        name: (where.get(name), file) for file, names in expected.items() for name in names if where.get(name) != file
    }
    assert not wrong, f"ID: (page it is on, page it belongs to): {wrong}"
    assert all(name.startswith("STD-") for name, file in where.items() if file == "theory-standard-facts.md")


def test_the_rule_on_a_made_up_sheet():
    sheet = (
        "# t\n\n## Sources\n\nx\n\n## Notation\n\n**Code.** `a`.\n\n---\n\n## STD-DPI — dpi\n\ns\n\n"
        "## BBGG-T1 — t1\n\na\n\n### BBGG-T1x — sub\n\nb\n\n## BBGG-T9 — new\n\nc\n\n## BBGG-T8 — t8\n\n"
        "## STD-New — late\n\nd\n\n## Not used by the code yet\n\ne\n"
    )
    found = hook().sections(sheet)
    assert [name for name, _ in found] == ["Notation", "STD-DPI", "BBGG-T1", "BBGG-T9", "BBGG-T8", "STD-New"]
    assert found[0][1] == "## Notation\n\n**Code.** `a`.\n" and "### BBGG-T1x — sub\n\nb\n" in found[2][1]
    files = hook().family_of([name for name, _ in found])
    assert files == {
        "Notation": "theory-ground-rules.md",
        "STD-DPI": "theory-ground-rules.md",
        "BBGG-T1": "theory-bbgg-mixing.md",
        "BBGG-T9": "theory-bbgg-coupling.md",
        "BBGG-T8": "theory-bbgg-diffusions.md",
        "STD-New": "theory-standard-facts.md",
    }


def api_block(page: str, heading_id: str) -> str:
    """The **API.** list that closes the section `heading_id` on a rendered page."""
    section = re.split(r"^## ", page, flags=re.M)
    body = next(part for part in section if part.split(maxsplit=1)[0] == heading_id)
    return body.split("**API.**", 1)[1]


def test_api_lists_link_every_top_level_name_the_code_paragraph_names():
    """Independent of the hook's identity lookup: a Code name `markovdp.<modules>.NAME` whose NAME is in
    `markovdp.__all__` as that very object must be linked on the section's API list."""
    checked = 0
    for (file, _, _), entries in hook().family_pages().items():
        for name, body in entries:
            api = api_block(rendered()[file], name)
            code = " ".join(re.findall(r"^\*\*Code\.\*\*.*?(?=\n\n|\Z)", body, flags=re.M | re.S))
            for dotted in set(re.findall(r"`(markovdp(?:\.\w+)+)`", code)):
                module, _, attr = dotted.rpartition(".")
                if attr not in markovdp.__all__ or importlib.util.find_spec(module) is None:
                    continue
                obj = getattr(importlib.import_module(module), attr, None)
                if obj is getattr(markovdp, attr) and not isinstance(obj, (int, float, str, tuple)):
                    assert f"[`markovdp.{attr}`]" in api, f"{file}, {name}: {dotted} is not on its API list"
                    checked += 1
    assert checked > 50


def test_api_lists_link_subpackage_names_to_their_definitions():
    aac = rendered()["theory-aac.md"]
    assert "- [`markovdp.guarantees.le_cam_bound`][markovdp.guarantees.le_cam.le_cam_bound]" in api_block(
        aac, "AAC-LeCam"
    )
    notation = api_block(rendered()["theory-ground-rules.md"], "Notation")
    assert "- [`markovdp.hockey_stick`][markovdp.hockey_stick]" in notation
    assert "_profiles" not in notation  # pure_epsilon and rounded_up are private: no entry
    mixing = api_block(rendered()["theory-bbgg-mixing.md"], "BBGG-F1")
    assert "none public" in mixing  # "Not a function of its own"

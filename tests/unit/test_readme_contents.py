"""The README's table of contents: it follows the two commands and the three
tours, every link in it lands on a heading, it lists every section in the
order the sections come, and the sections for makers, developers and CI come
before the engine's internals."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

README = Path(__file__).resolve().parents[2] / "README.md"


def _slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped,
    spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def _headings(tokens: list) -> list[tuple[int, str]]:
    """(level, plain text) of every heading, code fences left out."""
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            text = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            out.append((int(tok.tag[1]), text))
    return out


def _contents_links(tokens: list) -> list[str]:
    """The anchors the Contents section links to, in order."""
    start = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "Contents")
    links = []
    for tok in tokens[start + 1 :]:
        if tok.type == "heading_open":
            break
        for child in tok.children or []:
            if child.type == "link_open":
                links.append(str(child.attrs["href"]))
    return links


def test_contents_links_land_on_headings_in_order() -> None:
    tokens = MarkdownIt().parse(README.read_text())
    heads = _headings(tokens)
    anchors = [_slug(t) for _, t in heads]
    links = _contents_links(tokens)
    assert links, "no Contents section"
    assert all(link.startswith("#") for link in links)
    missing = [link for link in links if link[1:] not in anchors]
    assert not missing, f"Contents links with no heading: {missing}"
    positions = [anchors.index(link[1:]) for link in links]
    assert positions == sorted(positions), "Contents out of the sections' order"
    # every top-level section after the Contents is listed
    sections = [_slug(t) for level, t in heads if level == 2]
    after = sections[sections.index("contents") + 1 :]
    assert [a for a in after if f"#{a}" not in links] == []


def test_opening_then_contents_then_users_before_internals() -> None:
    tokens = MarkdownIt().parse(README.read_text())
    sections = [_slug(t) for level, t in _headings(tokens) if level == 2]
    assert sections[:2] == ["three-tours", "contents"]
    engine = sections.index("the-engine-what-it-models-and-what-it-does-not")
    for users in (
        "testing-your-own-firmware",
        "for-hardware-makers-fairdie-verify",
        "for-firmware-developers-fairdie-debug",
        "for-ci-junit-xml-and-many-cores",
    ):
        assert sections.index(users) < engine
        assert sections.index(users) < sections.index("requirements")
    # the opening: the two commands come before the first section
    opening = README.read_text().split("\n## ", 1)[0]
    assert "make demo" in opening and "make test" in opening

"""The README and ``docs/`` hold together: every link between them reaches a page and a
heading that exist, the README's code map lists the packages in the order of the layers
contract, and the README's commands are the scripts CI calls.

Pages get merged and headings renamed (scaling.md went into performance.md); a link
left behind points nowhere, and no reader says so.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text outside code, where a link is a link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        anchor = base = slug(heading)
        repeat = 0
        while anchor in found:  # GitHub numbers a repeated heading's anchor
            repeat += 1
            anchor = f"{base}-{repeat}"
        found.add(anchor)
    return found


def test_the_slug_is_githubs() -> None:
    assert slug("What `scripts/test` runs") == "what-scriptstest-runs"
    assert slug("A batch's reads as one JSON value, one shape per part") == (
        "a-batchs-reads-as-one-json-value-one-shape-per-part"
    )
    assert slug("`page_weight.py`") == "page_weightpy"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_reaches_a_page_and_a_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(prose(page.read_text())):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not ours to check
            continue
        path, _, anchor = target.partition("#")
        reached = (page.parent / path).resolve() if path else page
        if not reached.exists():
            broken.append(f"{target}: no such file")
        elif anchor and reached.suffix == ".md" and anchor not in anchors(reached):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


def test_the_docs_index_names_every_page() -> None:
    index = prose((ROOT / "docs" / "README.md").read_text())
    named = {(ROOT / "docs" / path).resolve() for path in LINK.findall(index)}
    missing = [page.name for page in PAGES[1:] if page.name != "README.md" and page not in named]
    assert not missing, missing


def layers() -> list[list[str]]:
    """The layers contract of ``pyproject.toml``, top to bottom; ``a | b`` is one layer."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [each for each in config["contracts"] if each["type"] == "layers"]
    return [[module.strip() for module in layer.split("|")] for layer in contract["layers"]]


def test_the_readme_code_map_follows_the_layers_contract() -> None:
    text = (ROOT / "README.md").read_text()
    code_map = next(block for block in FENCE.findall(text) if "service/" in block)
    places = {}
    for level, layer in enumerate(layers()):
        for module in layer:
            path = module.replace(".", "/")
            place = re.search(rf"^{re.escape(path)}(/|\.py)", code_map, re.MULTILINE)
            assert place, f"the code map leaves out {module}"
            places[module] = (place.start(), level)
    order = [level for _, level in sorted(places.values())]
    assert order == sorted(order), "the code map's order is not the contract's"


def test_the_readme_commands_are_the_scripts() -> None:
    text = (ROOT / "README.md").read_text()
    first = FENCE.search(text)
    assert first and first.group().startswith("```sh")
    commands = [line.split()[0] for line in first.group().splitlines()[1:-1] if line.strip()]
    assert commands == ["scripts/serve", "scripts/test"]
    for command in commands:
        assert (ROOT / command).stat().st_mode & 0o111, f"{command} is not executable"
    assert "\nscripts/test" in (ROOT / ".ci" / "run").read_text()

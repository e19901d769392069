"""The lock files agree with ``pyproject.toml`` and with each other.

``requirements-dev.lock`` is what ``scripts/bootstrap`` installs (the tests, the dev
tools), ``requirements.lock`` what the image installs; ``scripts/lock`` writes both. A
dependency added to or changed in ``pyproject.toml`` without running it fails here, and
so does an image that would run other versions than the tests ran.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
RUNTIME, DEV = "requirements.lock", "requirements-dev.lock"


class Pin:
    """One line of a lock: ``name==version ; marker`` and the hashes of its files."""

    def __init__(self, line: str):
        requirement, *hashes = line.split(" --hash=")
        self.requirement = Requirement(requirement)
        self.name = canonicalize_name(self.requirement.name)
        (self.specifier,) = self.requirement.specifier
        self.hashes = [found.strip() for found in hashes]

    @property
    def version(self) -> str:
        return self.specifier.version

    def __repr__(self) -> str:
        return str(self.requirement)


@cache
def pins(lock: str) -> dict[str, list[Pin]]:
    """Each package of a lock → its pins (more than one where markers split it)."""
    text = (ROOT / lock).read_text().replace("\\\n", " ")
    found: dict[str, list[Pin]] = {}
    for line in text.splitlines():
        line = line.partition("#")[0].strip()  # comments: "# via ..." and the header
        if line:
            pin = Pin(line)
            found.setdefault(pin.name, []).append(pin)
    return found


def project() -> dict[str, object]:
    document = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert isinstance(document, dict)
    return document


def runtime_requirements() -> list[Requirement]:
    dependencies = project()["dependencies"]
    assert isinstance(dependencies, list)
    return [Requirement(text) for text in dependencies]


def every_requirement() -> list[Requirement]:
    extras = project().get("optional-dependencies", {})
    assert isinstance(extras, dict)
    listed = [text for texts in extras.values() for text in texts]
    return [*runtime_requirements(), *map(Requirement, listed)]


@pytest.mark.parametrize("lock", [RUNTIME, DEV])
def test_every_package_is_pinned_with_the_hashes_of_its_files(lock: str) -> None:
    found = pins(lock)
    assert found, f"{lock} pins nothing"
    for name, pinned in found.items():
        for pin in pinned:
            assert pin.specifier.operator == "==", f"{pin}: not pinned"
            assert pin.hashes, f"{name} has no hashes: pip would not check what it installs"
            assert all(digest.startswith("sha256:") for digest in pin.hashes), pin


@pytest.mark.parametrize(
    ("lock", "requirements"),
    [(RUNTIME, runtime_requirements), (DEV, every_requirement)],
    ids=[RUNTIME, DEV],
)
def test_the_lock_pins_what_pyproject_asks_for(
    lock: str, requirements: Callable[[], list[Requirement]]
) -> None:
    stale = []
    for requirement in requirements():
        pinned = pins(lock).get(canonicalize_name(requirement.name), [])
        if not pinned or not all(requirement.specifier.contains(p.version) for p in pinned):
            stale.append(f"{requirement} (locked: {pinned or 'nothing'})")
    assert not stale, f"{lock} is out of date, run scripts/lock: {stale}"


def test_the_image_runs_the_versions_the_tests_ran() -> None:
    tested = {name: {str(pin) for pin in pinned} for name, pinned in pins(DEV).items()}
    for name, pinned in pins(RUNTIME).items():
        assert {str(pin) for pin in pinned} == tested.get(name), (
            f"{name}: {pinned} in {RUNTIME}, {tested.get(name)} in {DEV}; run scripts/lock"
        )


def test_the_packages_used_past_their_public_api_are_bounded_above() -> None:
    """Litestar and prometheus_client are used past their public API (see pyproject.toml):
    bounded below their next minor release, so that scripts/lock --upgrade stops there."""
    for requirement in runtime_requirements():
        if canonicalize_name(requirement.name) in ("litestar", "prometheus-client"):
            assert any(spec.operator == "<" for spec in requirement.specifier), requirement

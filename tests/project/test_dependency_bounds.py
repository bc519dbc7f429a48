"""The dependency ranges are tested at both ends: `.ci/run` installs the newest versions the ranges
allow in one fresh environment and the versions of `.ci/lower-bounds.txt` in another, and runs the
suite in each. This test keeps that file equal to setup.cfg's lower bounds, so raising or adding a
dependency cannot leave its lowest version untested."""

from __future__ import annotations

import configparser
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _declared_lower_bounds() -> dict[str, str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = config["options"]["install_requires"].splitlines()
    for extra in config["options.extras_require"].values():
        lines += extra.splitlines()
    bounds: dict[str, str] = {}
    for line in filter(None, (text.strip() for text in lines)):
        requirement = Requirement(line)
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lower) == 1, f"{line}: every dependency needs exactly one lower bound (>=)"
        assert any(spec.operator == "<" for spec in requirement.specifier), f"{line}: no upper bound"
        bounds[requirement.name.lower()] = lower[0]
    return bounds


def _pinned() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / ".ci" / "lower-bounds.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, version = line.strip().partition("==")
            pins[name.lower()] = version
    return pins


def test_lower_bounds_file_pins_exactly_the_declared_lower_bounds() -> None:
    assert _pinned() == _declared_lower_bounds()


def test_ci_installs_both_ends_in_fresh_environments() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m venv" in script
    assert "-c .ci/lower-bounds.txt" in script

"""YAML merge keys (`<<: *anchor`) in a scenario are refused with their line: the project reads
YAML 1.2-style plain mappings, where `<<` would otherwise come out as a key nobody wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from grammar.yaml_source import load_located
from state_store.scenario import ScenarioError, load_scenario

DEFAULT = Path(__file__).resolve().parents[2] / "state_store" / "scenarios" / "default.yaml"


@pytest.mark.parametrize("merge", [
    "    <<: *common\n",
    "    <<: *common\n    <<: *common\n",
    "    <<: [*common, *common]\n",
    "    ? <<\n    : *common\n",
])
def test_a_merge_key_is_refused_with_its_line(tmp_path: Path, merge: str) -> None:
    text = DEFAULT.read_text()
    anchor = "x-common: &common {scope: global, level: read-only}\n"
    user = f"  - name: extra\n{merge}    password: pw\n"
    path = tmp_path / "merge.yaml"
    path.write_text(anchor + text.replace("users:\n", "users:\n" + user))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    line = (anchor + text).split("\n").index("users:") + 3
    assert error.value.problems == [
        f"{path}:{line}: YAML syntax: merge keys (<<) are not supported: write the keys out"]


def test_a_quoted_or_value_double_angle_is_plain_text() -> None:
    assert load_located('"<<": 1\nb: <<\nc: [<<]\n') == {"<<": 1, "b": "<<", "c": ["<<"]}

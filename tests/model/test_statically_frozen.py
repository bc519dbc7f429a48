"""`statically_frozen`: the dataclass's behaviour at run time, assignment refused by mypy."""

from __future__ import annotations

import pickle
import textwrap
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pytest

from state_store.frozen import statically_frozen
from state_store.views import ClientInfo, RouterInfo


@statically_frozen
@dataclass(frozen=True)
class _Sample:
    name: str
    count: int = 3
    tags: tuple[str, ...] = field(default_factory=tuple)
    extra: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Plain:
    name: str
    count: int = 3
    tags: tuple[str, ...] = field(default_factory=tuple)
    extra: dict[str, int] = field(default_factory=dict)


def test_same_values_defaults_and_factories_as_the_dataclass() -> None:
    for args, kwargs in [(("a",), {}), (("a", 5), {}), (("a",), {"tags": ("x",)}), ((), {"name": "b", "count": 0})]:
        fast, plain = _Sample(*args, **kwargs), _Plain(*args, **kwargs)  # type: ignore[arg-type]
        assert asdict(fast) == asdict(plain)
        assert repr(fast).replace("_Sample", "_Plain") == repr(plain)
    assert _Sample("a").extra is not _Sample("a").extra  # a new object from the factory each time


def test_equal_hashable_replaceable_and_picklable_as_a_frozen_dataclass() -> None:
    item = _Sample("a", 1, ("t",))
    assert item == _Sample("a", 1, ("t",)) and item != _Sample("a", 2, ("t",))
    info = RouterInfo("NY_Appliance1", "NY", True, 0)
    assert hash(info) == hash(RouterInfo("NY_Appliance1", "NY", True, 0)) == hash(("NY_Appliance1", "NY", True, 0))
    assert replace(item, count=2) == _Sample("a", 2, ("t",))
    assert pickle.loads(pickle.dumps(item)) == item
    assert pickle.loads(pickle.dumps(info)) == info


def test_wrong_arguments_fail_as_before() -> None:
    with pytest.raises(TypeError):
        _Sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Sample("a", 1, (), {}, 5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Sample("a", nope=1)  # type: ignore[call-arg]


def test_the_engine_views_use_it() -> None:
    for cls in (ClientInfo, RouterInfo):
        assert "__setattr__" not in cls.__dict__
        assert cls.__init__.__qualname__ == f"{cls.__name__}.__init__"


def test_mypy_refuses_assignment(tmp_path: Path) -> None:
    """The guard the run time no longer has: `.ci/run`'s mypy --strict refuses it."""
    from mypy import api

    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""\
        from state_store.views import RouterInfo
        info = RouterInfo("NY_Appliance1", "NY", True, 0)
        info.up = False
    """))
    out, _, status = api.run(["--strict", "--no-incremental", "--follow-imports=silent", str(probe)])
    assert status == 1 and 'Property "up" defined in "RouterInfo" is read-only' in out


def test_refuses_what_it_cannot_build() -> None:
    @dataclass
    class Mutable:
        name: str

    @dataclass(frozen=True, slots=True)
    class Slotted:
        name: str

    @dataclass(frozen=True)
    class Posted:
        name: str

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, kw_only=True)
    class KeywordOnly:
        name: str

    @dataclass(frozen=True)
    class FrozenChild(_Plain):  # its base still refuses assignment at run time
        more: int = 0

    for cls in (Mutable, Slotted, Posted, KeywordOnly, FrozenChild):
        with pytest.raises(TypeError, match="statically_frozen"):
            statically_frozen(cls)

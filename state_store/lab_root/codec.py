"""The lab's state and recorded calls <-> JSON documents, the only forms a lab file holds.

Why JSON and never pickle: a lab file may come from anywhere (a damaged copy, a foreign file, a
hand edit), and decoding must neither run code nor crash. Every value read back is checked
against the record field it fills (``dataclasses.fields`` of the record classes: the root's users
and each section's kinds, ``state_store.lab_section``), references between records are checked,
and the first problem is reported as one line (``CodecError``), which the store turns into a
``LabFileError`` naming the file.

A state document::

    {"format": FORMAT, "version": 1, "now_ms": int, "settings": {str: str}, "meta": {str: str},
     "next_ids": {kind: int}, "ha_core": Kernel.snapshot() (the HA kernel) | null,
     "sections": [system, ...], "records": {kind: {"fields": [name, ...], "rows": [[value, ...], ...]}}}

Rows are positional (one list per record, in the fields' order) to keep big labs small. Call
arguments keep their Python types through a tagged form: a JSON array is a list, and every JSON
object is a tag: ``{"t": [...]}`` a tuple, ``{"d": [[key, value], ...]}`` a dict, ``{"h": "..."}``
a ``HashedSecret``.

The records of every kind sit side by side under ``records``, the root's (``users``) and each
held section's, as lab files have always held them; ``sections`` names the systems whose section
the document holds (a lab of HA systems only holds none), so reading it imports only those
systems' models (the registry lists the systems that keep one: ``state_store.systems.SECTIONS``).
An older document, without ``sections``, holds each section that has rows in it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import MISSING, fields
from operator import attrgetter
from typing import Any

from ..journal import CallRecord
from ..kernel import Kernel
from ..loader import section_model, section_models
from ..passwords import HashedSecret
from .bulk import bulk
from .state import KINDS, RootState

FORMAT = "solace-shell lab state"
# 1: one record per message, copy, stream entry and delivery; 2: runs (messages, spooled copies, stream
# entries and deliveries end with a ``count`` field); 3: the ``settled`` kind (messages folded out of
# the ledger, ``state_store.solace.settle``). Version 1 documents are read with count 1; documents of
# versions 1 and 2 have no settled messages (a kind missing from a document has no records).
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)


class CodecError(ValueError):
    """A document that is not a valid lab state or call list; the message is one line."""


# ------------------------------------------------------------------ field checks
def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_str(v: Any) -> bool:
    return type(v) is str


def _is_bool(v: Any) -> bool:
    return type(v) is bool


def _is_opt_int(v: Any) -> bool:
    return v is None or type(v) is int


def _is_opt_str(v: Any) -> bool:
    return v is None or type(v) is str


def _is_json_dict(v: Any) -> bool:
    return type(v) is dict


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "int": (_is_int, "an integer"),
    "str": (_is_str, "a string"),
    "bool": (_is_bool, "true or false"),
    "int | None": (_is_opt_int, "an integer or null"),
    "str | None": (_is_opt_str, "a string or null"),
    "dict[str, Any]": (_is_json_dict, "an object"),
}

class KindSpec:
    """What the codec needs of one record class: its field names, getters and checks."""

    def __init__(self, cls: type, kind: str, refs: dict[tuple[str, str], str] | None = None,
                 check_row: Callable[[str, int, list[Any]], str | None] | None = None) -> None:
        self.cls = cls
        self.kind = kind
        fs = fields(cls)
        self.names = [f.name for f in fs]
        self.get: Callable[[Any], tuple[Any, ...]] = attrgetter(*self.names)
        self.checks = []
        for f in fs:
            if f.type not in _CHECKS:  # a new field type must get a check before it can be stored
                raise TypeError(f"{cls.__name__}.{f.name}: no codec check for {f.type!r}")
            self.checks.append(_CHECKS[str(f.type)])
        # trailing fields with a plain default or an empty mapping: a lab written before they were
        # added lacks them
        self.defaults = [f.default if f.default is not MISSING else {} if f.default_factory is dict else MISSING
                         for f in fs]
        self.key = "seq" if kind == "repl_entries" else "id"
        self.row_ok = _row_checker([str(f.type) for f in fs])
        self.refs = [(self.names.index(f), target) for (k, f), target in (refs or {}).items() if k == kind]
        self.check_row = check_row


_INLINE = {
    "int": "type(r[{i}]) is int", "str": "type(r[{i}]) is str", "bool": "type(r[{i}]) is bool",
    "int | None": "(r[{i}] is None or type(r[{i}]) is int)", "str | None": "(r[{i}] is None or type(r[{i}]) is str)",
    "dict[str, Any]": "type(r[{i}]) is dict",
}


def _row_checker(types: list[str]) -> Callable[[list[Any]], bool]:
    """One function checking every value of a row, its tests written out inline.

    Why generated (as dataclasses generates ``__init__``): a lab of a million messages is a few
    million rows; one call per row instead of one per value makes decoding it several times
    faster. A row that fails is looked at again value by value for the message."""
    body = " and ".join(_INLINE[t].format(i=i) for i, t in enumerate(types)) or "True"
    namespace: dict[str, Any] = {}
    # the text comes from _INLINE only; run through the exec ``dataclasses`` uses (a start's
    # compiled-code cache may have replaced the builtin: see state_store.solace.frozen)
    getattr(dataclasses, "exec", exec)(f"def row_ok(r):\n    return {body}\n", namespace)
    check: Callable[[list[Any]], bool] = namespace["row_ok"]
    return check


ROOT_SPECS: dict[str, KindSpec] = {kind: KindSpec(cls, kind) for cls, kind in KINDS.items()}


_SECTION_SPECS: dict[str, dict[str, KindSpec]] = {}


def section_specs(name: str) -> dict[str, KindSpec]:
    """The kinds of system ``name``'s section (imported on first use), as the codec checks them,
    in persistence order (a record only refers to kinds listed before it, or its own kind)."""
    found = _SECTION_SPECS.get(name)
    if found is None:
        model = section_model(name)
        if model is None:
            raise CodecError(f"the lab holds a section of {name[:80]!r}, which is no registered system")
        found = _SECTION_SPECS[name] = {kind: KindSpec(cls, kind, dict(model.refs), model.check_row)
                                        for cls, kind in model.kinds.items()}
    return found


def specs(names: list[str] | None = None) -> dict[str, KindSpec]:
    """The kinds of the sections of ``names`` (None: every registered system's, each imported),
    then the root's."""
    out: dict[str, KindSpec] = {}
    for name in [m.name for m in section_models()] if names is None else names:
        out.update(section_specs(name))
    out.update(ROOT_SPECS)
    return out


# ------------------------------------------------------------------ state
def encode_state(st: RootState) -> dict[str, Any]:
    """The whole state as a JSON-able document (the records are read, never copied first): the
    root's records and those of each section the lab holds."""
    records: dict[str, Any] = {}
    for spec in specs(list(st.sections)).values():
        kind = spec.kind
        get = spec.get
        records[kind] = {"fields": spec.names, "rows": [get(r) for r in st.records(kind).values()]}
    return {
        "format": FORMAT, "version": VERSION, "now_ms": st.now_ms,
        "settings": dict(st.settings), "meta": dict(st.meta), "next_ids": dict(st.next_ids),
        "ha_core": st.kernel.snapshot() if st.kernel.groups else None,
        "sections": list(st.sections), "records": records,
    }


BULK = 10_000  # records (or rows) from which encoding or decoding pauses the collector (state.bulk)


def state_text(st: RootState) -> str:
    big = sum(len(st.records(kind)) for kind in specs(list(st.sections))) > BULK
    with bulk() if big else nullcontext():
        return dumps(encode_state(st))


def dumps(doc: Any) -> str:
    try:
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # a NaN or infinity: no JSON for it
        raise CodecError(f"cannot store a value: {exc}") from None


def loads(text: str | bytes) -> Any:
    """JSON text to a document; bad JSON (or JSON nested beyond Python's recursion) is one line."""
    try:
        with bulk() if len(text) > 100 * BULK else nullcontext():
            return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CodecError(f"not valid JSON ({str(exc).splitlines()[0][:200]})") from None


def _str_map(doc: dict[str, Any], key: str) -> dict[str, str]:
    value = doc.get(key)
    if type(value) is not dict or not all(type(v) is str for v in value.values()):
        raise CodecError(f"'{key}' must be an object of strings")
    return dict(value)


def decode_state(doc: Any) -> RootState:
    """A document made by ``encode_state`` back to a state; anything else raises CodecError."""
    parts = doc.get("records") if type(doc) is dict else None
    rows = sum(len(p["rows"]) for p in parts.values() if type(p) is dict and type(p.get("rows")) is list) \
        if type(parts) is dict else 0
    with bulk() if rows > BULK else nullcontext():
        return _decode_state(doc)


def _decode_state(doc: Any) -> RootState:
    if type(doc) is not dict or doc.get("format") != FORMAT:
        raise CodecError("not a lab state document")
    if doc.get("version") not in READABLE_VERSIONS:
        *older, newest = (str(v) for v in READABLE_VERSIONS)
        raise CodecError(f"lab state version {doc.get('version')!r}, this program reads "
                         f"{', '.join(older)} and {newest}")
    now = doc.get("now_ms")
    if type(now) is not int or now < 0:
        raise CodecError("'now_ms' must be a non-negative integer")
    core = doc.get("ha_core")
    st = RootState(decode_kernel(core) if core is not None else None)
    st.now_ms = now  # the document's clock is the lab's (one clock: the kernel's)
    st.settings.update(_str_map(doc, "settings"))
    st.meta.update(_str_map(doc, "meta"))
    records = doc.get("records")
    if type(records) is not dict:
        raise CodecError("'records' must be an object")
    names = _sections(doc, records)
    all_specs = specs(names)
    next_ids = doc.get("next_ids")
    if type(next_ids) is not dict or not all(k in all_specs and type(v) is int and v >= 1
                                             for k, v in next_ids.items()):
        raise CodecError("'next_ids' must map record kinds to positive integers")
    unknown = sorted(set(records) - set(all_specs))
    if unknown:
        raise CodecError(f"unknown record kind {unknown[0]!r}")
    for name in names:
        model = section_model(name)
        assert model is not None  # (section_specs checked it)
        section = model.new_section(st)
        st.add_section(name, section, list(model.kinds.values()))
        for kind, spec in section_specs(name).items():
            _decode_kind(section, spec, records.get(kind, {"fields": spec.names, "rows": []}))
    for kind, spec in ROOT_SPECS.items():
        _decode_kind(st, spec, records.get(kind, {"fields": spec.names, "rows": []}))
    for kind, value in next_ids.items():
        st.next_ids[kind] = max(value, st.next_ids.get(kind, 1))
    return st


def _sections(doc: dict[str, Any], records: dict[str, Any]) -> list[str]:
    """The systems whose section the document holds: the ones it names (``sections``); a document
    written before it named them holds each registered system's section that has rows in it (those
    documents were written with every kind, most of them empty)."""
    named = doc.get("sections")
    if named is None:
        return [m.name for m in section_models()
                if any(_has_rows(records.get(kind)) for kind in m.kinds.values())]
    if type(named) is not list or not all(type(n) is str for n in named) or len(set(named)) != len(named):
        raise CodecError("'sections' must be a list of distinct system names")
    for name in named:
        section_specs(name)  # a name no registered system has is refused here
    return list(named)


def _has_rows(part: Any) -> bool:
    return type(part) is dict and type(part.get("rows")) is list and bool(part["rows"])


def decode_kernel(data: Any) -> Kernel:
    try:
        if type(data) is not dict:
            raise TypeError("not an object")
        return Kernel.restore(data)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise CodecError(f"the HA core snapshot is damaged ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0][:200] if str(exc) else 'bad value'})") from None


def _decode_kind(st: Any, spec: KindSpec, part: Any) -> None:
    kind = spec.kind
    if type(part) is not dict or type(part.get("fields")) is not list or type(part.get("rows")) is not list:
        raise CodecError(f"records of {kind!r} must be an object with 'fields' and 'rows' lists")
    names = part["fields"]
    rows = part["rows"]
    pad: list[Any] = []
    if names != spec.names:
        # fields appended to a record class since the lab was written take their defaults
        # (Queue.reject_on_discard, Vpn.max_spool_mb, ...); anything else is refused
        stored = len(names) if type(names) is list else 0
        pad = spec.defaults[stored:]
        if names != spec.names[:stored] or not stored or any(d is MISSING for d in pad):
            raise CodecError(f"records of {kind!r} have fields {names!r:.200}, this program expects {spec.names!r}")
        names = spec.names
    checks, width, cls, key_at, row_ok = spec.checks, len(names), spec.cls, names.index(spec.key), spec.row_ok
    seen: set[int] = set()
    counted = names[-1] == "count"
    for n, row in enumerate(rows):
        if pad and type(row) is list and len(row) == width - len(pad):
            row = row + [dict(d) if type(d) is dict else d for d in pad]
        if type(row) is not list or len(row) != width:
            raise CodecError(f"{kind} row {n}: expected a list of {width} values")
        if not row_ok(row):
            for name, (check, what), value in zip(names, checks, row, strict=True):
                if not check(value):
                    raise CodecError(f"{kind} row {n}: {name} must be {what}, not {json.dumps(value)[:60]}")
        if counted and row[-1] < 1:
            raise CodecError(f"{kind} row {n}: count must be at least 1, not {row[-1]}")
        if spec.check_row is not None:
            problem = spec.check_row(kind, n, row)
            if problem is not None:
                raise CodecError(problem)
        rec_id = row[key_at]
        if rec_id < 1 or rec_id in seen:
            raise CodecError(f"{kind} row {n}: {spec.key} {rec_id} is {'taken' if rec_id in seen else 'not positive'}")
        seen.add(rec_id)
        for at, target in spec.refs:
            ref = row[at]
            if ref is not None and ref not in st.records(target) and not (target == kind and ref in seen):
                raise CodecError(f"{kind} row {n}: {names[at]} {ref} refers to no record of {target!r}")
        st.add(cls(*row))


# ------------------------------------------------------------------ calls
def encode_value(v: Any) -> Any:
    t = type(v)
    if v is None or t is str or t is int or t is bool:
        return v
    if t is float:
        if not math.isfinite(v):
            raise CodecError(f"cannot store the number {v!r}")
        return v
    if t is HashedSecret:
        return {"h": str(v)}
    if t is list:
        return [encode_value(x) for x in v]
    if t is tuple:
        return {"t": [encode_value(x) for x in v]}
    if t is dict:
        return {"d": [[encode_value(k), encode_value(x)] for k, x in v.items()]}
    raise CodecError(f"cannot store a value of type {t.__name__} in a call")


_INT64 = 2**63


def decode_value(v: Any, depth: int = 0) -> Any:
    if depth > 50:
        raise CodecError("call arguments nested too deeply")
    t = type(v)
    if t is int and not -_INT64 <= v < _INT64:  # no command can give more (SQLite's integers)
        raise CodecError(f"the number {str(v)[:40]} is out of range")
    if v is None or t is str or t is int or t is bool or t is float:
        return v
    if t is list:
        return [decode_value(x, depth + 1) for x in v]
    if t is dict and len(v) == 1:
        (tag, inner), = v.items()
        if tag == "t" and type(inner) is list:
            return tuple(decode_value(x, depth + 1) for x in inner)
        if tag == "h" and type(inner) is str:
            return HashedSecret(inner)
        if tag == "d" and type(inner) is list and all(type(p) is list and len(p) == 2 for p in inner):
            out = {}
            for k, x in inner:
                key = decode_value(k, depth + 1)
                try:
                    out[key] = decode_value(x, depth + 1)
                except TypeError:  # an unhashable key
                    raise CodecError("a call argument has a dictionary key that cannot be one") from None
            return out
    raise CodecError(f"not a call argument: {json.dumps(v)[:60]}")


def encode_calls(calls: list[CallRecord]) -> list[Any]:
    return [[c.name, [encode_value(a) for a in c.args], {k: encode_value(x) for k, x in c.kwargs.items()}]
            for c in calls]


def decode_calls(doc: Any) -> list[CallRecord]:
    """A list made by ``encode_calls`` back to call records (the names are checked by the store,
    which knows the Engine)."""
    if type(doc) is not list:
        raise CodecError("a calls row must hold a list")
    out = []
    for n, item in enumerate(doc):
        if (type(item) is not list or len(item) != 3 or type(item[0]) is not str or type(item[1]) is not list
                or type(item[2]) is not dict):
            raise CodecError(f"call {n}: expected [name, [arguments], {{keywords}}]")
        name, args, kwargs = item
        out.append(CallRecord(name, tuple(decode_value(a) for a in args),
                              {str(k): decode_value(x) for k, x in kwargs.items()}))
    return out

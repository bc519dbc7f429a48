"""``MessageRuns``: key order, lookup by key, and the message-id interval index, checked against a
plain scan after random filing, removal and splits (with and without a rebuild of the index; runs
may overlap in message ids, as two copies of one message in a queue do)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from state_store.kernel.ranges import normalize as merge
from state_store.kernel.ranges import subtract_sorted as subtract
from state_store.kernel.runs import MessageRuns


@dataclass(eq=False)
class Copy:
    key: int
    message_id: int | None
    count: int
    kind: str = "a"


class Parted(MessageRuns[Copy]):
    """Runs indexed apart by kind, as a stream's message entries and acks are."""

    __slots__ = ()

    def part(self, rec: Copy) -> str:
        return rec.kind


ops = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 60), st.integers(1, 6), st.booleans(), st.sampled_from("ab")),
    st.tuples(st.just("pop"), st.integers(0, 40)),
    st.tuples(st.just("split"), st.integers(0, 40), st.integers(1, 5), st.booleans()),
    st.tuples(st.just("query"), st.integers(0, 70), st.integers(0, 8), st.sampled_from(["a", "b", None])),
), max_size=250)


@given(ops, st.booleans())
def test_the_index_answers_as_a_scan(steps: list[tuple[int | str | bool | None, ...]], parted: bool) -> None:
    runs: MessageRuns[Copy] = Parted() if parted else MessageRuns()
    filed: dict[int, Copy] = {}
    next_key = 1
    for step in steps:
        if step[0] == "add":
            _, mid, count, named, kind = step
            assert isinstance(mid, int) and isinstance(count, int) and isinstance(kind, str)
            rec = Copy(next_key, mid if named else None, count, kind)
            runs.add(next_key, rec)
            filed[next_key] = rec
            next_key += count
        elif step[0] == "pop" and filed:
            _, n = step
            assert isinstance(n, int)
            key = sorted(filed)[n % len(filed)]
            assert runs.pop(key) is filed.pop(key)
        elif step[0] == "split" and filed:
            _, n, k, rebuild = step
            assert isinstance(n, int) and isinstance(k, int)
            rec = filed[sorted(filed)[n % len(filed)]]
            if k < rec.count:
                tail = Copy(rec.key + k, None if rec.message_id is None else rec.message_id + k, rec.count - k,
                            rec.kind)
                rec.count = k
                runs.add(tail.key, tail)  # as BrokerState.split: the index allows for a shortened run
                if rebuild:
                    runs.invalidate()
                filed[tail.key] = tail
        elif step[0] == "query":
            _, lo, width, part = step
            assert isinstance(lo, int) and isinstance(width, int) and (part is None or isinstance(part, str))
            if not parted and part is not None:
                part = ""  # one index for all
            want = [filed[k] for k in sorted(filed) if (m := filed[k].message_id) is not None and width > 0
                    and m < lo + width and m + filed[k].count > lo
                    and (part is None or not parted or filed[k].kind == part)]
            assert runs.overlapping(lo, lo + width, part) == want
        assert list(runs) == [filed[k] for k in sorted(filed)]
        for key in range(1, next_key):
            holder = next((r for k, r in filed.items() if k <= key < k + r.count), None)
            assert runs.find(key) is holder


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6))), st.lists(st.tuples(st.integers(0, 30),
                                                                                      st.integers(0, 6))))
def test_merge_and_subtract_are_set_operations(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> None:
    ra = [(x, x + w) for x, w in a]
    rb = [(x, x + w) for x, w in b]
    set_a = {i for x, y in ra for i in range(x, y)}
    set_b = {i for x, y in rb for i in range(x, y)}
    merged = merge(ra)
    assert {i for x, y in merged for i in range(x, y)} == set_a
    assert all(y < x2 for (_, y), (x2, _) in zip(merged, merged[1:], strict=False))
    left = subtract(merged, merge(rb))
    assert {i for x, y in left for i in range(x, y)} == set_a - set_b

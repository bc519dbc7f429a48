"""The message ledger: every message, where its copies are, and every delivery.

Why: the lab's audit must say what each message became (delivered once, duplicated, lost and why)
whatever product moved it. A message has an origin key (a JMS message ID for SwiftMQ, a replication
group message ID for Solace, an event ID for Geode) so a resend can be recognised; copies are kept
per node and queue; a delivery records whether the client saw it as a duplicate or it was discarded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .timers import JsonValue


@dataclass
class Message:
    id: int
    group: str
    queue: str
    origin_key: str
    client: str
    persistent: bool
    published_ms: int
    dropped: str = ""          # reason code of the last copy removal that was not a delivery


@dataclass(frozen=True)
class Delivery:
    client: str
    message: int
    at_ms: int
    node: str
    duplicate: bool = False
    discarded: bool = False


@dataclass
class Ledger:
    messages: dict[int, Message] = field(default_factory=dict)
    # node key -> queue -> message ids in order
    copies: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    # resends refused by duplicate detection: (client, message id, at_ms, node)
    discarded_resends: list[tuple[str, int, int, str]] = field(default_factory=list)
    next_id: int = 1

    def add(self, group: str, queue: str, origin_key: str, client: str, persistent: bool, now_ms: int) -> Message:
        msg = Message(self.next_id, group, queue, origin_key, client, persistent, now_ms)
        self.messages[msg.id] = msg
        self.next_id += 1
        return msg

    def queue_copies(self, node: str, queue: str) -> list[int]:
        return self.copies.setdefault(node, {}).setdefault(queue, [])

    def put(self, node: str, msg: Message) -> None:
        ids = self.queue_copies(node, msg.queue)
        if msg.id not in ids:
            ids.append(msg.id)

    def remove(self, node: str, queue: str, msg_id: int) -> None:
        ids = self.queue_copies(node, queue)
        if msg_id in ids:
            ids.remove(msg_id)

    def drop_node(self, node: str, reason: str, only: set[int] | None = None) -> list[int]:
        """Remove copies held by a node (all, or the given ids); returns the ids removed and
        records the reason on every message that has no copy left anywhere."""
        removed: list[int] = []
        for ids in self.copies.get(node, {}).values():
            keep = [i for i in ids if only is not None and i not in only]
            removed += [i for i in ids if i not in keep]
            ids[:] = keep
        for i in removed:
            if not self.holders(i):
                self.messages[i].dropped = reason
        return removed

    def replace_image(self, source: str, target: str, reason: str) -> list[int]:
        """The target's store becomes a copy of the source's (persistent copies only).
        Returns the ids the target held that the source did not (overwritten)."""
        before = {i for ids in self.copies.get(target, {}).values() for i in ids}
        image: dict[str, list[int]] = {}
        for queue, ids in self.copies.get(source, {}).items():
            image[queue] = [i for i in ids if self.messages[i].persistent]
        self.copies[target] = image
        after = {i for ids in image.values() for i in ids}
        gone = sorted(before - after)
        for i in gone:
            if not self.holders(i):
                self.messages[i].dropped = reason
        return gone

    def holders(self, msg_id: int) -> list[str]:
        q = self.messages[msg_id].queue
        return sorted(n for n, qs in self.copies.items() if msg_id in qs.get(q, ()))

    def deliveries_of(self, msg_id: int) -> list[Delivery]:
        return [d for d in self.deliveries if d.message == msg_id]

    # -- snapshot ----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, JsonValue]:
        return {
            "next_id": self.next_id,
            "messages": [[m.id, m.group, m.queue, m.origin_key, m.client, m.persistent, m.published_ms, m.dropped]
                         for m in self.messages.values()],
            "copies": self.copies,
            "deliveries": [[d.client, d.message, d.at_ms, d.node, d.duplicate, d.discarded] for d in self.deliveries],
            "discarded_resends": [list(r) for r in self.discarded_resends],
        }

    @classmethod
    def restore(cls, data: dict[str, JsonValue]) -> Ledger:
        led = cls()
        led.next_id = int(data.get("next_id", 1))
        for row in data.get("messages", []):
            m = Message(int(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[4]), bool(row[5]),
                        int(row[6]), str(row[7]))
            led.messages[m.id] = m
        copies = data.get("copies", {})
        led.copies = {str(n): {str(q): [int(i) for i in ids] for q, ids in qs.items()}
                      for n, qs in copies.items()}
        led.deliveries = [Delivery(str(r[0]), int(r[1]), int(r[2]), str(r[3]), bool(r[4]), bool(r[5]))
                          for r in data.get("deliveries", [])]
        led.discarded_resends = [(str(r[0]), int(r[1]), int(r[2]), str(r[3]))
                                 for r in data.get("discarded_resends", [])]
        return led

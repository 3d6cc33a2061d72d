"""The brokers of benchmarks/floor_bench.py: one Mosquitto for the whole floor, or
(``pits`` > 0) one per pit, each bridged into the floor's broker, as docs/scaling.md
describes.

Every broker is tests/support/mosquitto.py's: examples/mosquitto/tablectl.conf and its
ACL, TLS, a password per user, its own test CA. Two changes, both configuration:
logging as the example does (the tests add a debug line per message, which is theirs,
not a pit's), and ``queue``, when given, as max_queued_messages.

A pit's bridge (appended to the pit broker's configuration) carries ``tablectl/#`` out
at QoS 1 with a persistent session (``cleansession false``) over TLS, checked against
the floor broker's CA, logging in as the pit (``pit-K``); on the floor broker that user
may write under ``tablectl/`` (the pit's broker has already held each table to its own
topics).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.mosquitto import ACL, HOST, Broker

QUIET = ["log_type error", "log_type warning", "log_type notice", "log_type information"]


def password(user: str) -> str:
    return f"bench-{user}-secret"


def configure(broker: Broker, queue: int | None, extra: tuple[str, ...] = ()) -> None:
    """The broker logs as the example does: no line per message; with ``queue``, that
    max_queued_messages; ``extra`` lines appended."""
    lines = [ln for ln in broker.conf.read_text().splitlines() if ln != "log_type all"]
    if queue is not None:
        lines = [ln for ln in lines if not ln.startswith("max_queued_messages ")]
        lines.append(f"max_queued_messages {queue}")
    broker.conf.write_text("\n".join([*lines, *QUIET, *extra]) + "\n")


def bridge(pit: str, floor: Broker) -> tuple[str, ...]:
    """A pit broker's bridge into ``floor``: the lines docs/scaling.md shows."""
    return (
        f"connection {pit}",
        f"address {HOST}:{floor.port}",
        "bridge_protocol_version mqttv311",
        f"remote_clientid {pit}-bridge",
        f"remote_username {pit}",
        f"remote_password {password(pit)}",
        "cleansession false",
        "topic tablectl/# out 1",
        f"bridge_cafile {floor.certs.ca}",
        "bridge_tls_version tlsv1.2",
        "try_private true",
        "notifications false",
        "restart_timeout 1 30",
    )


class Brokers:
    """``floor``: the broker the floor follows; ``pits``: the pit brokers bridged into
    it (none: the tables publish to ``floor`` itself)."""

    def __init__(self, root: Path, tables: list[str], pits: int, queue: int | None) -> None:
        names = [f"pit-{k}" for k in range(1, pits + 1)]
        users = {"floor": password("floor")}
        if not pits:
            users |= {t: password(t) for t in tables}
        users |= {p: password(p) for p in names}
        self.floor = Broker(root / "floor-broker", users)
        if pits:
            acl = root / "floor-broker" / "tablectl.acl"
            grants = [f"user {p}\ntopic write tablectl/#" for p in names]
            acl.write_text(ACL.read_text() + "\n" + "\n".join(grants) + "\n")
            text = self.floor.conf.read_text().replace(f"acl_file {ACL}", f"acl_file {acl}")
            self.floor.conf.write_text(text)
        configure(self.floor, queue)
        self.pits: list[Broker] = []
        for k, pit in enumerate(names):
            mine = {t: password(t) for i, t in enumerate(tables) if i % pits == k}
            broker = Broker(root / pit, mine)
            configure(broker, queue, bridge(pit, self.floor))
            self.pits.append(broker)

    def of(self, index: int) -> Broker:
        """The broker table ``index`` publishes to."""
        return self.pits[index % len(self.pits)] if self.pits else self.floor

    def start(self) -> None:
        for broker in [self.floor, *self.pits]:
            broker.start()

    def stop(self) -> None:
        for broker in [*self.pits, self.floor]:
            if broker.proc is not None:
                broker.stop()

    def pids(self) -> tuple[int, list[int]]:
        """The floor broker's pid and the pits'."""
        assert self.floor.proc is not None
        return self.floor.proc.pid, [b.proc.pid for b in self.pits if b.proc is not None]

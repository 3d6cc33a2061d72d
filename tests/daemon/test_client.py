"""``tablectl status``, ``events`` and ``send`` (controller/client.py) against a real
console API: an ``ApiServer`` in a temporary runtime directory with a real Baccarat
table behind it, journaled to a real SQLite file, served by its own thread as the
daemon serves it; and against a real ``tablectl run --simulate`` process."""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
import structlog

from controller import cli
from controller.api import Access, ApiServer, Peer, Ticket
from controller.daemon.wiring import PublishingJournal
from controller.journal import SqliteJournal
from controller.rules.baccarat import BaccaratRules
from controller.table.baccarat import BaccaratTable
from controller.table.events import Command, ManualShuffle, Wager
from drivers import messages as m
from tests.support.flood import Flooded, ask_hello, close_all, flood
from tests.support.tables import Devices

ME = Access(uids=(os.getuid(),))
NOBODY = Peer(0, 0, 0, ())  # the sender of a command the test queues itself
TIMEOUT = 10.0
EXITS = {"done": 0, "failure": 1, "usage": 2, "refused": 3}


class TableBehindApi:
    """The daemon's shape in one process: the API's ``submit`` queues each command for
    the table's own thread, which handles it inside ``handling`` (its entries become
    the sender's ``result``) and sets the status snapshot after each."""

    def __init__(self, runtime_dir: Path) -> None:
        self.runtime_dir = runtime_dir
        self.journal_path = runtime_dir / "journal.db"
        self.commands: queue.Queue[tuple[Command, Ticket]] = queue.Queue()
        self.handled: list[Command] = []
        self.events: queue.Queue[Command | m.Event] = queue.Queue()  # not through the API
        self.state = ""
        self.server = ApiServer(runtime_dir, self._submit, dealer=ME, floor=ME, events=ME)
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _submit(self, command: Command, ticket: Ticket) -> bool:
        self.commands.put_nowait((command, ticket))
        return True

    def open(self) -> None:
        """Cards shuffled by hand and burned, as the shoe reports them: wagering is open."""
        self.events.put_nowait(ManualShuffle())
        for n, token in enumerate(("AS", "2S"), 1):
            self.events.put_nowait(m.CardDrawn("shoe", n, token[0], token[1], False))
        deadline = time.monotonic() + TIMEOUT
        while not self.events.empty() or self.state != "wagering":
            assert time.monotonic() < deadline, "the table did not open for wagers"
            time.sleep(0.01)

    def __enter__(self) -> TableBehindApi:
        self.server.start()
        self._thread.start()
        assert self._ready.wait(TIMEOUT)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(TIMEOUT)
        self.server.close()

    def _serve(self) -> None:
        file = SqliteJournal(self.journal_path)
        self.journal = journal = PublishingJournal(file, self.server)
        table = BaccaratTable(BaccaratRules.from_dict("baccarat", {}), journal, Devices())
        self._ready.set()
        try:
            while not self._stop.is_set():
                while not self.events.empty():
                    table.handle(self.events.get_nowait())
                self.state = str(table.state)
                try:
                    command, ticket = self.commands.get(timeout=0.02)
                except queue.Empty:
                    continue
                self.handled.append(command)
                with self.server.handling(ticket):
                    table.handle(command)
                    # Set before the result goes out, so a status read after it is current.
                    self.server.set_status(
                        {
                            "id": "T7",
                            "game": "baccarat",
                            "ready": True,
                            "state": str(table.state),
                            "shoe": table.shoe_number,
                            "round": table.round,
                            "rounds_played": journal.counts["round_end"],
                            "devices": {"shoe": "connected"},
                        }
                    )
        finally:
            file.close()


@pytest.fixture(autouse=True)
def _keep_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """main() in this process must not point structlog at pytest's capture of this test,
    nor cache its loggers there: later tests would log to a closed file. Warnings go to
    the real stderr, as the command's would, and the configuration is put back."""
    before = structlog.get_config()
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.__stderr__),
        cache_logger_on_first_use=False,
    )
    monkeypatch.setattr(cli, "configure_logging", lambda level="warning", stream=None: None)
    yield
    structlog.configure(**before)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableBehindApi]:
    with TableBehindApi(tmp_path) as behind:
        yield behind


def tablectl(
    capsys: pytest.CaptureFixture[str], *argv: str, runtime_dir: Path | None = None
) -> tuple[int, str, str]:
    """``tablectl ARGV`` in this process: its exit code, stdout and stderr."""
    if runtime_dir is not None:
        argv = (argv[0], "--runtime-dir", str(runtime_dir), *argv[1:])
    try:
        code = cli.main(list(argv))
    except SystemExit as exit_:  # argparse's own exit, as the console script would end
        code = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --------------------------------------------------------------------------- send


def test_send_prints_done_and_exits_0(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = tablectl(capsys, "send", "manual_shuffle", runtime_dir=table.runtime_dir)
    assert (code, err) == (EXITS["done"], "")
    assert out.startswith("done: manual_shuffle (ticket 1, journal 1-")
    assert [type(c).__name__ for c in table.handled] == ["ManualShuffle"]


def test_a_wager_the_table_refuses_exits_3_with_its_section_and_reason(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    """No shoe shuffled yet: the table journals a ``refused`` entry, which comes back."""
    code, out, err = tablectl(
        capsys, "send", "wager", "seat=1", "bet=banker", "amount=100",
        runtime_dir=table.runtime_dir,
    )  # fmt: skip
    assert (code, err) == (EXITS["refused"], "")
    refused = table.journal.last_refusal
    assert out == (
        f"refused: wager: {refused['reason']} ({refused['section']}; ticket 1, journal 2)\n"
    )


def test_key_value_fields_are_typed_as_the_daemon_lists_them(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    """``seat`` an int, ``amount`` an exact decimal, ``bet`` and ``player`` strings (a
    player name of digits stays a string); ``--json`` keeps a JSON amount's digits."""
    tablectl(
        capsys, "send", "wager", "seat=3", "bet=banker", "amount=12.50", "player=0042",
        runtime_dir=table.runtime_dir,
    )  # fmt: skip
    tablectl(
        capsys, "send", "wager", "--json", '{"seat": 2,\n "bet": "player", "amount": 7.25}',
        "--json-out", runtime_dir=table.runtime_dir,
    )  # fmt: skip
    first, second = table.handled
    assert first == Wager(seat=3, bet="banker", amount=Decimal("12.50"), player="0042")
    assert isinstance(second, Wager) and second.amount == Decimal("7.25")


def test_json_out_prints_the_apis_result(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = tablectl(
        capsys, "send", "--json-out", "reshuffle", "--floor", runtime_dir=table.runtime_dir
    )
    result = json.loads(out)
    assert (result["type"], result["command"], result["ticket"]) == ("result", "reshuffle", 1)
    assert code == EXITS[result["outcome"]]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("wagr", "seat=1"), "no command 'wagr' (unknown_command)"),
        (("wager", "seat=x", "bet=banker", "amount=5"), "'seat' must be a whole number (bad_type)"),
        (("wager", "seat=1", "colour=red"), "wager has no field 'colour' (unknown_field)"),
        (("wager", "bet=banker", "amount=5"), "needs field 'seat' (missing_field)"),
        (("recut",), "recut is a floor command: send it on floor.sock (wrong_socket)"),
        (("wager", "seat=1", "banker"), "field 2 is not key=value"),
        (("wager", "=1"), "field 1 is not key=value"),
        (("wager", "seat=1", "seat=2"), "field 'seat' is given twice"),
        (("wager", "--json", "[1]"), "--json must be a JSON object"),
        (("wager", "--json", "{seat: 1}"), "--json is not valid JSON"),
        (("wager", "seat=1", "--json", "{}"), "as key=value or as --json, not both"),
        (("wager", "--json", "{}", "seat=1"), "unrecognized arguments"),
        (("wager", "--timeout", "0"), "must be more than 0 seconds"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_reaches_the_table(
    table: TableBehindApi,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    message: str,
) -> None:
    code, out, err = tablectl(capsys, "send", *argv, runtime_dir=table.runtime_dir)
    assert (code, out) == (EXITS["usage"], "")
    assert message in one_line(err)
    assert table.handled == [] and table.commands.empty()


# Ruling R16: amounts not written plainly, each refused in one line, exit 2, before the
# table: by the API's field conversion (bad_type), or by send itself for --json.
UNPLAIN = [
    (("amount=1e30",), "must be an amount written plainly"),
    (("amount=1.5E+999999999",), "must be an amount written plainly"),
    (("amount=1e-400",), "must be an amount written plainly"),
    (("amount=1e400",), "must be an amount written plainly"),
    (("amount=NaN",), "must be an amount written plainly"),
    (("amount=inf",), "must be an amount written plainly"),
    (("amount=12,50",), "must be an amount written plainly"),
    (("amount=",), "must be an amount written plainly"),
    (("--json", '{"seat": 1, "bet": "tie", "amount": 1e30}'), "must be an amount written plainly"),
    (("--json", '{"seat": 1, "bet": "tie", "amount": 1.5E+999999999}'), "(bad_type)"),
    (("--json", '{"seat": 1, "bet": "tie", "amount": 1e-400}'), "(bad_type)"),
    (("--json", '{"seat": 1, "bet": "tie", "amount": NaN}'), "NaN is not a JSON number"),
    (("--json", '{"seat": 1, "bet": "tie", "amount": -Infinity}'), "-Infinity is not a JSON"),
    (("--json", '{"amount": ' + "[" * 100_000), "--json is nested too deeply"),
]


@pytest.mark.parametrize(("fields", "message"), UNPLAIN)
def test_an_amount_not_written_plainly_is_one_line_exit_2(
    table: TableBehindApi,
    capsys: pytest.CaptureFixture[str],
    fields: tuple[str, ...],
    message: str,
) -> None:
    pairs = () if fields[0] == "--json" else ("seat=1", "bet=tie")
    code, out, err = tablectl(
        capsys, "send", "wager", *pairs, *fields, runtime_dir=table.runtime_dir
    )
    assert (code, out) == (EXITS["usage"], "")
    assert message in one_line(err)
    assert table.handled == [] and table.commands.empty()


@pytest.mark.reg("545.8(b)")
@pytest.mark.parametrize(
    ("amount", "why"),
    [
        ("12.345", "not a whole number of the table's 1 chips"),
        ("0.0000001", "not a whole number"),
        ("0", "holds no tie wager to withdraw"),
        ("-5", "is not an amount"),
        ("10001", "over the table's maximum wager of 10000"),
        pytest.param("1" + "0" * 5000, "over the table's maximum", id="5001-digits"),
    ],
)
def test_a_plain_amount_that_is_not_the_tables_chips_is_its_refusal_exit_3(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str], amount: str, why: str
) -> None:
    # Ruling R16: sent as key=value (even a number int() would refuse) and as --json.
    table.open()
    args = json.dumps({"seat": 1, "bet": "tie", "amount": amount}).replace(f'"{amount}"', amount)
    for fields in (("seat=1", "bet=tie", f"amount={amount}"), ("--json", args)):
        code, out, err = tablectl(capsys, "send", "wager", *fields, runtime_dir=table.runtime_dir)
        assert (code, err) == (EXITS["refused"], "")
        assert out.startswith("refused: wager: ") and why in out
        assert "(ruling R16) (545.8(b); ticket" in out
    assert table.state == "wagering" and len(table.handled) == 2


def test_a_typed_card_is_never_echoed(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    """551.8(e): a floorperson's card may be the hole card; errors name the field."""
    code, _, err = tablectl(
        capsys, "send", "--floor", "floor_clear", "card=TD", "TD",
        runtime_dir=table.runtime_dir,
    )  # fmt: skip
    assert code == EXITS["usage"] and "TD" not in err
    code, _, err = tablectl(
        capsys, "send", "dealers_card", "--json", '{"card": "9S"}', runtime_dir=table.runtime_dir
    )
    assert code == EXITS["usage"] and "9S" not in err and "unknown_field" in err


@pytest.mark.parametrize("argv", [("status",), ("events", "--follow"), ("send", "no_more_bets")])
def test_no_daemon_is_one_line_naming_the_socket_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = tablectl(capsys, *argv, runtime_dir=tmp_path)
    socket_name = {"status": "events", "events": "events", "send": "dealer"}[argv[0]]
    assert (code, out) == (EXITS["failure"], "")
    assert one_line(err) == (
        f"tablectl: error: {tmp_path / socket_name}.sock: no such socket: is the daemon running?"
    )


def test_a_dead_daemons_socket_file_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The socket file a crashed daemon leaves behind: nobody listens on it."""
    with TableBehindApi(tmp_path):
        pass
    import socket

    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(tmp_path / "dealer.sock"))
    left.close()
    code, _, err = tablectl(capsys, "send", "no_more_bets", runtime_dir=tmp_path)
    assert code == EXITS["failure"] and "dealer.sock: nobody listens" in one_line(err)


def test_the_runtime_dir_comes_from_the_environment(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLECTL_RUNTIME_DIR", str(table.runtime_dir))
    code, out, _ = tablectl(capsys, "status")
    assert code == EXITS["done"] and out.startswith("table: starting")
    monkeypatch.delenv("TABLECTL_RUNTIME_DIR")
    code, _, err = tablectl(capsys, "status")
    assert code == EXITS["failure"] and "/run/tablectl/events.sock" in err


# --------------------------------------------------------------------------- status


def test_status_shows_state_shoe_round_and_devices(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = tablectl(capsys, "status", runtime_dir=table.runtime_dir)
    assert code == 0 and out == "table: starting (no status yet)\njournal: none streamed yet\n"
    tablectl(capsys, "send", "manual_shuffle", runtime_dir=table.runtime_dir)
    code, out, err = tablectl(capsys, "status", runtime_dir=table.runtime_dir)
    last = table.journal.file.last_seq
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "table T7 (baccarat): burn_due",
        "shoe 1, round 1, 0 rounds played",
        "devices: shoe connected",
        f"journal: last entry streamed {last}",
    ]
    code, out, _ = tablectl(capsys, "status", "--json", runtime_dir=table.runtime_dir)
    status = json.loads(out)
    assert status["last_seq"] == last and status["table"]["state"] == "burn_due"


# --------------------------------------------------------------------------- events


def test_events_prints_the_journal_then_the_live_stream_without_gap_or_repeat(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    tablectl(capsys, "send", "manual_shuffle", runtime_dir=table.runtime_dir)
    written = table.journal.file.last_seq
    later = threading.Timer(
        0.5,
        lambda: table.commands.put(
            (Wager(seat=1, bet="banker", amount=5), Ticket(99, "wager", "dealer", NOBODY, None, 0))
        ),
    )
    later.start()
    code, out, err = tablectl(
        capsys, "events", "--journal", str(table.journal_path), "--seconds", "1.5",
        runtime_dir=table.runtime_dir,
    )  # fmt: skip
    later.join()
    assert (code, err) == (0, "")
    seqs = [int(line.split()[0]) for line in out.splitlines()]
    assert seqs == list(range(1, table.journal.file.last_seq + 1))
    assert len(seqs) > written  # the wager's entries came live
    assert out.splitlines()[0].startswith("1 command {")


def test_events_json_lines_are_the_apis_event_messages(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    tablectl(capsys, "send", "manual_shuffle", runtime_dir=table.runtime_dir)
    code, out, _ = tablectl(capsys, "events", "--journal", str(table.journal_path), "--json")
    messages = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and messages
    assert all(m["v"] == 1 and m["type"] == "event" for m in messages)
    assert messages[0]["entry"]["type"] == "command"


def test_events_without_a_journal_file_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = tablectl(capsys, "events", "--journal", str(tmp_path / "none.db"))
    assert code == EXITS["usage"] and "no such journal" in one_line(err)


def test_follow_ends_cleanly_on_ctrl_c(table: TableBehindApi) -> None:
    follower = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "events", "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TABLECTL_RUNTIME_DIR": str(table.runtime_dir)},
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(table.server._clients._subscribers) == 0:
            assert time.monotonic() < deadline, "the follower did not subscribe"
            time.sleep(0.02)
        table.commands.put(
            (Wager(seat=1, bet="banker", amount=5), Ticket(1, "wager", "dealer", NOBODY, None, 0))
        )
        assert follower.stdout is not None
        assert follower.stdout.readline().startswith("1 command {")
        follower.send_signal(signal.SIGINT)
        _, err = follower.communicate(timeout=TIMEOUT)
    finally:
        follower.kill()
    assert (follower.returncode, err) == (0, "")


# --------------------------------------------------------------------------- help


@pytest.mark.parametrize(
    "command",
    ["run", "status", "events", "send", "analyze", "bench", "journal", "journal verify",
     "journal export"],
)  # fmt: skip
def test_help_of_every_subcommand_exits_0(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main([*command.split(), "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("usage: tablectl")


# --------------------------------------------------------------------------- end to end


def test_against_a_simulated_daemon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tablectl run --simulate`` as a process: a follower gets both rounds' round_end
    lines, ``status`` shows the playing table, a wager is accepted and answered."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    daemon = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--simulate", "--rounds", "2",
         "--pace-ms", "50", "--workdir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    follower: subprocess.Popen[str] | None = None
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "events.sock").exists():
            assert daemon.poll() is None, daemon.communicate()[1]
            assert time.monotonic() < deadline, "the daemon's sockets did not appear"
            time.sleep(0.02)
        follower = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "events", "--follow",
             "--runtime-dir", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        while True:
            code, out, err = tablectl(capsys, "status", runtime_dir=tmp_path)
            assert code == 0, err
            # The sockets open while the devices still connect ("connecting the
            # devices", a device "connecting"): the playing table comes after.
            if "rounds played" in out and "connecting" not in out:
                break
            assert time.monotonic() < deadline, out
            time.sleep(0.02)
        assert out.startswith("table simulated (baccarat): ")
        assert "devices: shoe connected, shuffler connected" in out
        code, out, err = tablectl(
            capsys, "send", "wager", "seat=1", "bet=player", "amount=10", runtime_dir=tmp_path
        )
        # Accepted and answered: done, or refused by the table mid-round (545.8(c)).
        assert code in (EXITS["done"], EXITS["refused"]) and err == "", err
        assert out.startswith(("done: wager (ticket 1,", "refused: wager: ")), out
        assert "ticket 1," in out
        out, err = follower.communicate(timeout=60)
        assert daemon.wait(timeout=30) == 0
    finally:
        for proc in (follower, daemon):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    round_ends = [line for line in out.splitlines() if line.split()[1:2] == ["round_end"]]
    assert len(round_ends) == 2
    # The daemon stopping ends the stream: one line, exit 1 (docs/cli.md).
    assert follower.returncode == EXITS["failure"]
    assert one_line(err).endswith("events.sock: the daemon closed the connection")


# --------------------------------------------------------------------------- a crowded daemon


def _take_every_place(path: Path) -> list[Flooded]:
    """As many clients on ``path`` as the API serves: each served (it answers hello)."""
    from controller.api import MAX_CLIENTS

    clients = flood(path, MAX_CLIENTS)
    for client in clients:
        assert ask_hello(client)["type"] == "hello"
    return clients


def test_a_crowded_socket_is_tried_again_briefly_then_said_in_one_line(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.api import MAX_CLIENTS

    clients = _take_every_place(table.runtime_dir / "events.sock")
    try:
        started = time.monotonic()
        code, out, err = tablectl(capsys, "status", runtime_dir=table.runtime_dir)
        took = time.monotonic() - started
    finally:
        close_all(clients)
    assert (code, out) == (EXITS["failure"], "")
    assert one_line(err) == (
        f"tablectl: error: {table.runtime_dir / 'events.sock'}: {MAX_CLIENTS} clients use "
        "events.sock already: try again later (too_many_clients; tried for 2 s)"
    )
    assert 1.5 <= took < 4


def test_a_command_sent_while_crowded_goes_through_once_when_a_place_frees(
    table: TableBehindApi, capsys: pytest.CaptureFixture[str]
) -> None:
    clients = _take_every_place(table.runtime_dir / "dealer.sock")
    leave = threading.Timer(0.3, clients[0].sock.close)
    leave.start()
    try:
        code, out, err = tablectl(
            capsys, "send", "--json", "{}", "manual_shuffle", runtime_dir=table.runtime_dir
        )
    finally:
        leave.join()
        close_all(clients)
    assert code == EXITS["done"], err
    assert out.startswith("done: manual_shuffle")
    # The lines the crowded connection carried were never read: sent again, handled once.
    assert [c.name for c in table.handled] == ["manual_shuffle"]


def test_a_full_listen_queue_is_tried_again_briefly_then_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    # A socket whose listener never accepts: its queue full, a connect fails at once.
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "events.sock"))
    listener.listen(0)
    queued = []
    try:
        while True:
            waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            waiting.setblocking(False)
            queued.append(waiting)
            waiting.connect(str(tmp_path / "events.sock"))
    except BlockingIOError:
        pass
    try:
        started = time.monotonic()
        code, _, err = tablectl(capsys, "status", runtime_dir=tmp_path)
        took = time.monotonic() - started
    finally:
        for waiting in queued:
            waiting.close()
        listener.close()
    assert code == EXITS["failure"]
    assert one_line(err) == (
        f"tablectl: error: {tmp_path / 'events.sock'}: the daemon does not accept "
        "connections: its queue of them is full (tried for 2 s)"
    )
    assert 1.5 <= took < 4

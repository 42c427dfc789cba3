"""The head watch (distcfr.distributed.head_watch) without a cluster: a TCP listener on loopback plays the
head's GCS port. The watch calls its handler once the port refuses connections for its grace
time, or answers nothing for its longer one, never while it listens; the guard process says the
run's line (and removes what it was told to) when its driver ends without a goodbye while the
head is gone, and says nothing otherwise. About 5 s in all."""

import socket
import subprocess
import sys
import threading
import time

from distcfr.distributed import head_watch

LINE = "train: the head at {address} is gone ({why}); go on with --resume x.ckpt"


def listener() -> tuple[socket.socket, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock, f"127.0.0.1:{sock.getsockname()[1]}"


def test_probe_tells_a_listening_port_from_a_closed_one():
    sock, address = listener()
    assert head_watch.probe(address) == "up"
    sock.close()
    assert head_watch.probe(address) == "refused"


def test_the_watch_calls_its_handler_once_the_head_refuses_for_its_grace_time():
    sock, address = listener()
    lost: list[tuple[str, float]] = []
    called = threading.Event()
    watch = head_watch.HeadWatch(address, lambda why: (lost.append((why, time.monotonic())), called.set()),
                                 refused_seconds=1.0, period=0.2)
    try:
        time.sleep(1.0)
        assert not lost and watch.running()  # the head answers: nothing to say
        closed = time.monotonic()
        sock.close()
        assert called.wait(10)
        why, when = lost[0]
        assert why == "nothing listens on its port" and 1.0 <= when - closed < 5.0
        time.sleep(0.5)
        assert len(lost) == 1 and not watch.running()
    finally:
        watch.stop()


def silent_head() -> tuple[socket.socket, list[socket.socket], str]:
    """A port whose backlog is full: the kernel drops further connections unanswered, as a head whose
    machine is cut off or gone would."""
    sock, address = listener()
    sock.listen(0)
    held = []
    for _ in range(4):
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(sock.getsockname())
        held.append(client)
    time.sleep(0.2)
    return sock, held, address


def test_a_head_that_does_not_answer_is_given_up_after_the_silent_grace_time():
    sock, held, address = silent_head()
    lost: list[str] = []
    called = threading.Event()
    watch = head_watch.HeadWatch(address, lambda why: (lost.append(why), called.set()), silent_seconds=1.0,
                                 period=0.2)
    try:
        assert head_watch.probe(address, 0.2) == "silent"
        assert called.wait(10) and lost == ["it has not answered for 1 s"]
    finally:
        watch.stop()
        for s in [sock, *held]:
            s.close()


def test_a_stopped_watch_says_nothing():
    sock, address = listener()
    lost: list[str] = []
    watch = head_watch.HeadWatch(address, lost.append, refused_seconds=0.2, period=0.1)
    watch.stop()
    sock.close()
    time.sleep(1.0)
    assert not lost and not watch.running()


def guard(address: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "distcfr.distributed.head_watch", address], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_the_guard_says_the_line_and_tidies_up_when_its_driver_ends_without_a_goodbye(tmp_path):
    sock, address = listener()
    leftover = tmp_path / ".run.ckpt.abc123.tmp"
    leftover.write_bytes(b"half a checkpoint")
    kept = tmp_path / "run.ckpt"
    kept.write_bytes(b"the checkpoint")
    sock.close()  # the head is gone
    proc = guard(address)
    _, err = proc.communicate(f"say\t{LINE}\ntidy\t{tmp_path}/.run.ckpt.*.tmp\n", timeout=30)  # then its stdin ends
    assert err == f"train: the head at {address} is gone (nothing listens on its port); go on with --resume x.ckpt\n"
    assert not leftover.exists() and kept.read_bytes() == b"the checkpoint"


def test_the_guard_says_nothing_after_a_goodbye_or_while_the_head_answers(tmp_path):
    sock, address = listener()
    leftover = tmp_path / "recovery"
    leftover.mkdir()
    try:
        proc = guard(address)  # the head answers: the driver ended for another reason
        assert proc.communicate(f"say\t{LINE}\ntidy\t{leftover}\n", timeout=30)[1] == ""
    finally:
        sock.close()
    proc = guard(address)  # the head is gone, but the driver said goodbye (the run no longer needed it)
    assert proc.communicate(f"say\t{LINE}\ntidy\t{leftover}\nbye\t\n", timeout=30)[1] == ""
    assert leftover.is_dir()


def test_the_guard_waits_a_moment_for_a_head_whose_port_still_answers_as_the_driver_ends():
    sock, address = listener()
    threading.Timer(1.0, sock.close).start()  # the head's port closes a second after the driver ended
    began = time.monotonic()
    assert head_watch._gone(address, within=4.0) == "nothing listens on its port"
    assert 0.8 < time.monotonic() - began < 3.0
    kept, address = listener()
    began = time.monotonic()
    assert head_watch._gone(address, within=1.0) is None  # it stays: not a lost head
    assert time.monotonic() - began >= 1.0
    kept.close()

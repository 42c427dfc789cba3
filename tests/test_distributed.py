"""Ray: bitwise-equal results whatever the workers, actor and node loss, checkpoints and
resume, and the CLI against a real `ray start --head` on loopback with token auth."""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import msgpack
import pytest

import distcfr
from distcfr.io.schema import seal_map
from distcfr.solve.checkpoint import Checkpoint
from distcfr.train import main

SEED_GAME = "draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)"
TRAIN = [sys.executable, "-m", "distcfr.train"]


def train(tmp_path, name, *argv) -> bytes:
    out = tmp_path / f"{name}.msgpack"
    assert main(["--quiet", "--no-tables", "--out", str(out), *argv]) == 0
    return out.read_bytes()


def local_run(spec, shards, iterations, algorithm="dcfr") -> bytes:
    solver = distcfr.Solver(distcfr.load_game(spec), algorithm=algorithm, shards=shards)
    return solver.solve(iterations=iterations).probs.tobytes()


@pytest.mark.parametrize("spec", ["leduc", SEED_GAME])
@pytest.mark.slow
def test_strategy_files_bitwise_equal_on_0_1_2_3_workers(ray_local, tmp_path, spec):
    files = [train(tmp_path, f"w{w}", "--game", spec, "--workers", str(w), "--shards", "4",
                   "--iterations", "25") for w in (0, 1, 2, 3)]
    assert all(f == files[0] for f in files[1:])


class KillBefore:
    """A shard set that SIGKILLs the process of one Ray actor just before its n-th call
    (mid-iteration); Ray restarts the actor and, for a rerunnable call, retries the call."""

    CALLS = ("cfr_sums", "profile_value", "br_start", "br_level_q", "br_level_apply", "br_root")

    def __init__(self, shards, calls_before_kill):
        self.inner, self.countdown = shards, calls_before_kill
        self.n_shards = shards.n_shards
        self.killed = []

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if name not in self.CALLS:
            return attr

        def call(*args):
            self.countdown -= 1
            if self.countdown == 0:
                pid = self.inner.pids()[0]
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            return attr(*args)

        return call


@pytest.mark.slow
def test_killed_actor_is_restarted_and_result_is_bitwise_the_same(ray_local):
    from distcfr.distributed.ray_shards import RayShards

    spec = SEED_GAME
    shards = KillBefore(RayShards(spec, 4, 2), calls_before_kill=7)  # the second half of iteration 4
    solver = distcfr.Solver(distcfr.load_game(spec), algorithm="dcfr", shards=4, shard_set=shards)
    try:
        strategy = solver.solve(iterations=12)
        assert len(shards.killed) == 1 and shards.inner.pids()[0] != shards.killed[0]  # a new process
        assert strategy.probs.tobytes() == local_run(spec, 4, 12)
        # an actor lost in the middle of a best response: the evaluation is redone from the start
        expected = distcfr.Solver(distcfr.load_game(spec), algorithm="dcfr", shards=4).solve(iterations=12)
        shards.countdown = 3
        assert strategy.evaluator.exploitability(strategy.probs).tobytes() == \
            expected.evaluator.exploitability(expected.probs).tobytes()
        assert len(shards.killed) == 2 and shards.inner.pids()[0] != shards.killed[1]
    finally:
        solver.close()


@pytest.mark.slow
def test_two_node_cluster_spreads_actors_and_survives_losing_a_node(tmp_path):
    import ray
    from ray.cluster_utils import Cluster

    from distcfr.distributed.ray_shards import RayShards

    if ray.is_initialized():
        ray.shutdown()  # this test needs its own (multi-node) cluster
    fast_failure = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500,
                    "health_check_failure_threshold": 3}
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "_system_config": fast_failure})
    worker = cluster.add_node(num_cpus=2)
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        shards = RayShards(SEED_GAME, 4, 2)
        assert shards.nodes() == 2  # one actor per node
        solver = distcfr.Solver(distcfr.load_game(SEED_GAME), algorithm="dcfr", shards=4, shard_set=shards)
        for _ in range(5):
            solver.step()
        cluster.remove_node(worker, allow_graceful=False)
        strategy = solver.solve(iterations=12)
        assert shards.nodes() == 1  # the lost node's actor was restarted on the one left
        assert strategy.probs.tobytes() == local_run(SEED_GAME, 4, 12)
        solver.close()
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_resume_is_bitwise_as_if_never_stopped(ray_local, tmp_path):
    straight = train(tmp_path, "straight", "--game", SEED_GAME, "--shards", "4", "--iterations", "30",
                     "--workers", "0")
    ckpt = tmp_path / "run.ckpt"
    train(tmp_path, "part", "--game", SEED_GAME, "--shards", "4", "--iterations", "12", "--workers", "0",
          "--checkpoint", str(ckpt))
    resumed = train(tmp_path, "resumed", "--resume", str(ckpt), "--iterations", "30", "--workers", "2")
    assert resumed == straight
    # the same command line with --checkpoint picks the run up again (here: already done)
    again = train(tmp_path, "again", "--game", SEED_GAME, "--shards", "4", "--iterations", "30",
                  "--workers", "0", "--checkpoint", str(ckpt))
    assert again == straight


def test_resume_keeps_predictive_state(tmp_path):
    spec = "leduc"
    straight = distcfr.Solver(distcfr.load_game(spec), algorithm="pcfr+").solve(iterations=20)
    first = distcfr.Solver(distcfr.load_game(spec), algorithm="pcfr+")
    first.solve(iterations=7)
    first.checkpoint().save(tmp_path / "p.ckpt")
    second = distcfr.Solver.from_checkpoint(Checkpoint.load(tmp_path / "p.ckpt"))
    assert second.solve(iterations=20).probs.tobytes() == straight.probs.tobytes()


def test_bad_checkpoints_are_refused(tmp_path, capsys):
    ckpt = tmp_path / "good.ckpt"
    train(tmp_path, "s", "--game", "kuhn", "--iterations", "5", "--checkpoint", str(ckpt), "--workers", "0")
    good = ckpt.read_bytes()
    obj = msgpack.unpackb(good)
    cases = {
        "truncated": good[: len(good) // 2],
        "garbage": os.urandom(300),
        "strategy file": (tmp_path / "s.msgpack").read_bytes(),
        "version": seal_map({**obj, "version": 9}),
        "wrong shape": seal_map({**obj, "game": "leduc"}),
        "lying array": seal_map({**obj, "regrets": {**obj["regrets"], "shape": [1, 10**6, 2]}}),
    }
    for name, data in cases.items():
        bad = tmp_path / f"{name}.ckpt"
        bad.write_bytes(data)
        out = tmp_path / "out.msgpack"
        assert main(["--resume", str(bad), "--iterations", "10", "--out", str(out), "--quiet"]) == 2, name
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, name
        assert not out.exists(), name
    assert main(["--resume", str(ckpt), "--game", "leduc", "--iterations", "10", "--quiet",
                 "--out", str(tmp_path / "o.msgpack")]) == 2
    assert "kuhn" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, seconds: float) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"nothing listens on {port}")


def processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            pass
    return found


@pytest.fixture
def ray_head():
    """A real `ray start --head` on loopback with a fresh token, in its own process group,
    ended through that group (never `ray stop`)."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # Ray's socket paths must stay under 107 bytes
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    env.pop("RAY_ADDRESS", None)
    ray_cli = str(Path(sys.executable).with_name("ray"))
    head = subprocess.Popen([ray_cli, "start", "--head", "--block", "--node-ip-address=127.0.0.1",
                             f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
                             f"--temp-dir={temp}"],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, 60)
        yield port, env
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        for _ in range(50):  # every process of that Ray (they carry its temp dir) is gone
            if not processes_mentioning(temp):
                break
            time.sleep(0.2)
        assert not processes_mentioning(temp)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow
def test_cli_on_a_real_ray_start_head(ray_head, tmp_path):
    port, env = ray_head
    out, summary = tmp_path / "c.msgpack", tmp_path / "c.json"
    run = subprocess.run([*TRAIN, "--game", SEED_GAME, "--address", f"127.0.0.1:{port}", "--workers", "2",
                          "--shards", "4", "--iterations", "25", "--algorithm", "dcfr", "--out", str(out),
                          "--summary-json", str(summary), "--no-tables"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    data = json.loads(summary.read_text())
    assert data["workers"] == 2 and data["shards"] == 4 and data["nodes"] == 1
    local = tmp_path / "local.msgpack"
    assert main(["--game", SEED_GAME, "--workers", "0", "--shards", "4", "--iterations", "25",
                 "--algorithm", "dcfr", "--out", str(local), "--quiet", "--no-tables"]) == 0
    assert out.read_bytes() == local.read_bytes()
    # a client with the wrong token is turned away with one line
    wrong = {**env, "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    run = subprocess.run([*TRAIN, "--game", "kuhn", "--address", f"127.0.0.1:{port}", "--workers", "1",
                          "--iterations", "5", "--out", str(tmp_path / "w.msgpack")],
                         env=wrong, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_cluster_not_there_is_one_line(tmp_path, capsys):
    assert main(["--game", "kuhn", "--address", f"127.0.0.1:{free_port()}", "--workers", "1",
                 "--out", str(tmp_path / "k.msgpack")]) == 2
    err = capsys.readouterr().err
    assert "no Ray cluster reachable" in err and len(err.strip().splitlines()) == 1


class Listener:
    """A TCP listener on 127.0.0.1 that is not a Ray head: ``silent`` never answers (the kernel
    still completes the handshake), ``garbage`` answers every connection with bytes that are not
    HTTP/2, ``closing`` hangs up at once. Started and stopped by the test (its thread joined)."""

    def __init__(self, behaviour: str):
        self.behaviour = behaviour
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True) if behaviour != "silent" else None
        if self.thread:
            self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                if self.behaviour == "garbage":
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(range(256)))

    def close(self):
        self.stop.set()
        if self.thread:
            self.thread.join(5)
        self.sock.close()


@pytest.mark.parametrize("behaviour, message", [("silent", "does not answer as a Ray head"),
                                                ("garbage", "not as a Ray head"),
                                                ("closing", "without answering as a Ray head")])
def test_address_that_is_not_a_ray_head_is_one_line_quickly(tmp_path, capsys, behaviour, message):
    listener = Listener(behaviour)
    try:
        start = time.monotonic()
        rc = main(["--game", "kuhn", "--address", f"127.0.0.1:{listener.port}", "--workers", "1",
                   "--iterations", "3", "--out", str(tmp_path / "k.msgpack"), "--quiet"])
        elapsed = time.monotonic() - start
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert message in err and f"127.0.0.1:{listener.port}" in err and "--port" in err, err
    assert elapsed < 15
    assert not (tmp_path / "k.msgpack").exists()


@pytest.mark.slow
def test_wrong_or_missing_token_is_one_line_quickly(ray_head, tmp_path):
    port, env = ray_head
    address = f"127.0.0.1:{port}"
    wrong = {**env, "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    mode_only = {k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN"}
    missing = {k: v for k, v in mode_only.items() if k != "RAY_AUTH_MODE"}
    cases = {"wrong token": (wrong, "not the cluster's"), "no token": (mode_only, "no token is set"),
             "no token, no auth mode": (missing, "RAY_AUTH_MODE is not token")}
    for name, (case_env, reason) in cases.items():
        case_env = {**case_env, "HOME": str(tmp_path)}  # no ~/.ray/auth_token to fall back on
        for how in ("HOST:PORT", "auto"):
            argv, run_env = ["--address", address], case_env
            if how == "auto":
                argv, run_env = ["--address", "auto"], {**case_env, "RAY_ADDRESS": address}
            start = time.monotonic()
            run = subprocess.run([*TRAIN, "--game", "kuhn", *argv, "--workers", "1", "--iterations", "5",
                                  "--out", str(tmp_path / "w.msgpack")],
                                 env=run_env, capture_output=True, text=True, timeout=60)
            elapsed = time.monotonic() - start
            where = f"{name}, {how}"
            assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, (where, run.stderr)
            assert reason in run.stderr and "RAY_AUTH_TOKEN" in run.stderr and address in run.stderr, \
                (where, run.stderr)
            assert elapsed < 15, (where, elapsed)
    assert not (tmp_path / "w.msgpack").exists()


@pytest.mark.slow
def test_killed_driver_loses_at_most_checkpoint_every(tmp_path):
    ckpt, out = tmp_path / "k.ckpt", tmp_path / "k.msgpack"
    argv = ["--game", "leduc", "--algorithm", "dcfr", "--iterations", "3000", "--workers", "0",
            "--checkpoint", str(ckpt), "--checkpoint-every", "50", "--out", str(out), "--no-tables"]
    driver = subprocess.Popen([*TRAIN, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not ckpt.exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    driver.kill()  # SIGKILL: no chance to save anything more
    driver.wait()
    saved = msgpack.unpackb(ckpt.read_bytes())["iteration"]
    assert saved % 50 == 0 and 0 < saved < 3000
    assert main([*argv, "--quiet"]) == 0  # the same command line finishes the run
    assert out.read_bytes()  # and its result is that of an undisturbed run:
    expected = tmp_path / "e.msgpack"
    assert main(["--game", "leduc", "--algorithm", "dcfr", "--iterations", "3000", "--workers", "0",
                 "--out", str(expected), "--quiet", "--no-tables"]) == 0
    assert out.read_bytes() == expected.read_bytes()


@pytest.mark.slow
def test_sigterm_saves_a_checkpoint_and_exits(tmp_path):
    ckpt, out = tmp_path / "t.ckpt", tmp_path / "t.msgpack"
    driver = subprocess.Popen([*TRAIN, "--game", "leduc", "--iterations", "200000", "--workers", "0",
                               "--checkpoint", str(ckpt), "--checkpoint-every", "100000", "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(3)
    driver.send_signal(signal.SIGTERM)
    stdout, _ = driver.communicate(timeout=60)
    assert driver.returncode == 130 and "interrupted" in stdout
    saved = msgpack.unpackb(ckpt.read_bytes())["iteration"]
    assert 0 < saved < 200000 and out.exists()
    assert msgpack.unpackb(out.read_bytes())["iterations"] == saved  # the strategy of the same iteration


@pytest.mark.slow
def test_embedded_ray_ignores_a_cluster_address_left_in_the_environment(tmp_path):
    # RAY_ADDRESS (or a stale /tmp/ray address file) points at a cluster that is not there:
    # the embedded Ray must start its own private instance, not join or fail.
    env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{free_port()}"}
    out = tmp_path / "e.msgpack"
    run = subprocess.run([*TRAIN, "--game", SEED_GAME, "--workers", "2", "--shards", "4", "--iterations", "5",
                          "--algorithm", "dcfr", "--out", str(out), "--no-tables"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "on 2 workers" in run.stdout
    assert out.read_bytes() == train(tmp_path, "local", "--game", SEED_GAME, "--workers", "0", "--shards", "4",
                                     "--iterations", "5", "--algorithm", "dcfr")

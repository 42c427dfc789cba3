"""The run loop: stopping rules, a stop request in the middle of an iteration, and a clean,
quick exit when the whole process group is signalled."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hooks import hooks

import distcfr
from distcfr.errors import WorkersLost
from distcfr.solve.run import RunPlan, run
from distcfr.stopping import StopRequested

SPEC = "draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)"


class StopOnCall:
    """A shard set whose n-th cfr_sums call is interrupted, as a signal arriving while the
    coordinator waits on its workers would interrupt it."""

    def __init__(self, inner, n):
        self.inner, self.n = inner, n

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def cfr_sums(self, sigma, players):
        self.n -= 1
        if self.n == 0:
            raise StopRequested
        return self.inner.cfr_sums(sigma, players)


def test_a_stop_between_the_two_halves_of_an_iteration_resumes_bitwise(tmp_path):
    from distcfr.engine.shard_set import LocalShards

    game = distcfr.load_game(SPEC)
    straight = distcfr.Solver(game, algorithm="dcfr", shards=4).solve(iterations=9)
    ckpt = tmp_path / "half.ckpt"
    stopped = distcfr.Solver(game, algorithm="dcfr", shards=4,
                             shard_set=lambda layout, k: StopOnCall(LocalShards(layout, k), 10))
    result = run(stopped, RunPlan(iterations=9, checkpoint=ckpt), handle_signals=False)
    assert result.interrupted
    saved = distcfr.Checkpoint.load(ckpt)
    assert (saved.iteration, saved.phase) == (4, 1)  # the 10th call is player 2's half of iteration 5
    with distcfr.Solver.from_checkpoint(saved) as resumed:
        assert resumed.solve(iterations=9).probs.tobytes() == straight.probs.tobytes()


class _SignalledWhileSaving:
    """The part of a sampled solver that run() drives: at its first save the whole process group is
    signalled (here: this process), with the signal held by the save, and its workers go with it
    before Ray can tell (``workers_alive`` still says yes)."""

    state_on_workers, waiting_on_shards = True, False

    def __init__(self):
        self.iteration, self.recovered, self.signalled = 0, False, False

    def step(self):
        self.iteration += 1

    def checkpoint(self):
        if not self.signalled:
            self.signalled = True
            os.kill(os.getpid(), signal.SIGTERM)
        raise WorkersLost("a sampled worker died and its table rows with it")

    def recover(self, checkpoint):
        self.recovered = True

    def workers_alive(self):
        return True

    def abandon_work(self):
        pass


def test_workers_lost_to_a_signal_held_by_a_save_stop_the_run_and_are_not_rebuilt(tmp_path):
    solver = _SignalledWhileSaving()
    result = run(solver, RunPlan(iterations=10, checkpoint=tmp_path / "ck", checkpoint_every=2))
    assert result.interrupted and result.workers_lost and not solver.recovered
    assert solver.iteration == 2 and not (tmp_path / "ck").exists()


class _Ticking:
    """The part of a solver that run() drives, an iteration taking ``seconds``."""

    state_on_workers, waiting_on_shards = False, False

    def __init__(self, seconds: float):
        self.iteration, self.seconds = 0, seconds

    def abandon_work(self):  # nothing runs on workers here
        pass

    def step(self):
        time.sleep(self.seconds)
        self.iteration += 1


def test_a_time_limited_run_reads_once_at_half_its_time_whatever_its_readings_took():
    solver, reads = _Ticking(0.01), []
    plan = RunPlan(seconds=0.4, eval_every=10**6, read_share=0.0,  # no reading due by the cadence or the share
                   hooks=hooks(read=lambda s: reads.append((s.iteration, time.perf_counter()))))
    began = time.perf_counter()
    run(solver, plan, handle_signals=False)
    assert len(reads) == 1
    iteration, when = reads[0]
    assert when - began >= 0.2 and 0 < iteration < solver.iteration  # past half the limit, and the run went on


def test_a_due_evaluation_waits_until_its_expected_time_fits_its_share():
    looks = []

    def evaluator(s):
        looks.append((s.iteration, time.perf_counter()))
        return 1.0

    for forecast in (None, lambda s: 0.2):
        looks.clear()
        plan = RunPlan(iterations=60, eval_every=1, evaluate=True, eval_share=0.5,
                       hooks=hooks(evaluate=evaluator, **({"forecast": forecast} if forecast else {})))
        began = time.perf_counter()
        run(_Ticking(0.01), plan, handle_signals=False)
        if forecast is None:
            assert looks[0][0] == 1  # nothing taken yet: the first is due at once
        else:  # expected to take 0.2 s: not before the run has spent 0.4 s, half of it on the evaluations
            assert looks[0][1] - began >= 0.4 and looks[-1][0] == 60  # the last iteration's is due whatever it takes


def test_plan_arguments_are_checked():
    for bad in ({}, {"iterations": 0}, {"target": -1.0}, {"iterations": 5, "eval_every": 0}):
        with pytest.raises(distcfr.BadParameter):
            RunPlan(**bad)


def ray_processes_in_group(pgid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if os.getpgid(int(proc.name)) == pgid:
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


@pytest.mark.slow
def test_sigterm_to_the_whole_process_group_saves_and_exits_in_seconds(tmp_path):
    ckpt, out = tmp_path / "g.ckpt", tmp_path / "g.msgpack"
    driver = subprocess.Popen([sys.executable, "-m", "distcfr.train", "--game", SPEC, "--workers", "2",
                               "--shards", "4", "--iterations", "1000000", "--checkpoint", str(ckpt),
                               "--checkpoint-every", "1000000", "--out", str(out), "--no-tables"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline, read = time.time() + 90, []  # the lines read here, for the messages below
        while not any("workers on" in line for line in read) and time.time() < deadline:  # Ray is up
            line = driver.stderr.readline()
            if not line and driver.poll() is not None:
                break
            read.append(line)
        assert any("workers on" in line for line in read), ("no progress line on workers", read)
        time.sleep(1.0)
        start = time.time()
        os.killpg(driver.pid, signal.SIGTERM)  # what timeout, systemd and Slurm do
        stdout, stderr = driver.communicate(timeout=30)
        elapsed = time.time() - start
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait()
    # seconds, not Ray's minute-long wait on its gone processes; the margin is for a loaded 2-core CI
    # machine, where every Ray process of the group runs its own exit at once (8.7 s seen there once,
    # 0.05-0.8 s on an idle one; a frozen control store costs the 3 s release deadline)
    assert elapsed < 20, (elapsed, stdout, read, stderr)
    assert "interrupted" in stdout, (stdout, read, stderr, driver.returncode)
    chatter = [line for line in stderr.splitlines() if line.strip() and not line.lstrip().startswith("iteration")]
    assert not chatter, stderr  # only the run's own progress lines, no Ray messages
    assert distcfr.Checkpoint.load(ckpt).iteration > 0 and out.exists()
    for _ in range(50):
        if not ray_processes_in_group(driver.pid):
            break
        time.sleep(0.1)
    assert not ray_processes_in_group(driver.pid)


def test_a_signal_that_numba_wraps_in_a_system_error_still_stops_the_run():
    """numba's dispatcher turns a signal handler's stop, raised while it runs Python code to set up a
    compiled call, into a SystemError chained to it (seen when SIGTERM met a final bracket): the run
    stops as for any signal, rather than raising the SystemError; one with no stop inside still raises."""

    def compiled_call_meets_the_signal(s):
        try:
            signal.raise_signal(signal.SIGTERM)  # the run's handler raises its stop here: an evaluation waits
            time.sleep(5)
        except KeyboardInterrupt as stop:
            raise SystemError("CPUDispatcher(<function big_blind_sums>) returned a result with an exception set") \
                from stop
        return 1.0

    plan = RunPlan(iterations=3, eval_every=1, evaluate=True, hooks=hooks(evaluate=compiled_call_meets_the_signal))
    began = time.perf_counter()
    result = run(_Ticking(0.0), plan)
    assert result.interrupted and time.perf_counter() - began < 2

    def broken(s):
        raise SystemError("a compiled call failed on its own")

    with pytest.raises(SystemError, match="on its own"):
        run(_Ticking(0.0), RunPlan(iterations=3, eval_every=1, evaluate=True, hooks=hooks(evaluate=broken)))


def test_interrupt_in_finds_a_stop_down_the_chain_and_nothing_elsewhere():
    from distcfr.stopping import interrupt_in

    stop = StopRequested()
    unpickle = SystemError("<function _numba_unpickle> returned a result with an exception set")
    unpickle.__cause__ = stop
    dispatcher = SystemError("CPUDispatcher(<function big_blind_sums>) returned a result with an exception set")
    dispatcher.__cause__ = unpickle  # two levels, as numba raised them
    assert interrupt_in(dispatcher) is stop
    assert interrupt_in(SystemError("no stop")) is None and interrupt_in(None) is None

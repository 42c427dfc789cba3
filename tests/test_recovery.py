"""A sampled run on Ray survives lost workers by itself: their rows come back from the run's last
recovery point onto new workers, and the run ends with the bytes of an undisturbed one."""

import os
import signal
import time

import numpy as np
import pytest
from hooks import hooks

from distcfr.errors import WorkersLost
from distcfr.solve.launch import open_solver
from distcfr.solve.run import RunPlan, run

SMALL = "draw27(ranks=8,suits=2,hand=3,stacks=10)"
OPTIONS = {"sampling": True, "batch": 600, "seed": 5, "shards": 4}


def undisturbed(iterations: int) -> dict:
    with open_solver(SMALL, workers=0, **OPTIONS) as solver:
        return solver.solve(iterations).tables


def killing_one_worker_at(iterations: set[int]):
    def on_iteration(solver, _):
        if solver.iteration in iterations:
            iterations.discard(solver.iteration)
            os.kill(solver.shards.pids()[0], signal.SIGKILL)  # a lost process, as a lost node's

    return on_iteration


@pytest.mark.slow
@pytest.mark.parametrize("recovery_point", [True, False])
def test_a_worker_killed_mid_run_is_recovered_with_the_same_bytes(ray_local, tmp_path, recovery_point):
    """About 20 s each: two losses, one right after a recovery point and one between two."""
    point = tmp_path / "recovery.ckpt" if recovery_point else None
    with open_solver(SMALL, workers=2, **OPTIONS) as solver:
        result = run(solver, RunPlan(12, recovery=point, checkpoint_every=3), killing_one_worker_at({4, 9}),
                     handle_signals=False)
        disturbed = solver.average_strategy().tables
    assert [r["lost_at"] for r in result.recoveries] == [4, 9]
    # noticed by the next step (after 4: from the point at 3) or the save due at 9 (from the point at 6);
    # without a point, from the start
    assert [r["resumed_at"] for r in result.recoveries] == ([3, 6] if recovery_point else [0, 0])
    expected = undisturbed(12)
    assert all(np.array_equal(disturbed[name], expected[name]) for name in expected)


def killing_one_worker_first(work):
    """``work(solver)`` that kills one of the solver's workers the first time it is called."""
    killed = []

    def killing(solver):
        if not killed:
            killed.append(solver.shards.pids()[0])
            os.kill(killed[0], signal.SIGKILL)
        return work(solver)

    return killing


@pytest.mark.slow
def test_a_worker_lost_in_an_evaluation_or_the_runs_end_work_is_recovered_with_the_same_bytes(ray_local, tmp_path):
    """About 15 s. One worker goes while an evaluation at iteration 4 (a progress bracket) gathers
    from the workers, another while the run's end gathers the average strategy: each time the run
    goes back to its recovery point, runs the iterations after it again, and it ends with the bytes
    of an undisturbed run."""
    evaluations, gathered = [], []

    def evaluate(solver):
        evaluations.append(solver.iteration)
        return float(solver.average_strategy().tables["btn_push"].sum())

    def at_end(solver):
        gathered.append((solver.iteration, solver.average_strategy().tables))

    plan = RunPlan(8, recovery=tmp_path / "recovery.ckpt", checkpoint_every=3, eval_every=4, evaluate=True,
                   hooks=hooks(evaluate=killing_one_worker_first(evaluate), at_end=killing_one_worker_first(at_end)))
    with open_solver(SMALL, workers=2, **OPTIONS) as solver:
        result = run(solver, plan, handle_signals=False)
    assert [(r["lost_at"], r["resumed_at"]) for r in result.recoveries] == [(4, 3), (8, 6)]
    assert result.iterations_run == 8 and evaluations == [4, 4, 8, 8] and [i for i, _ in gathered] == [8]
    expected = undisturbed(8)
    assert all(np.array_equal(gathered[0][1][name], expected[name]) for name in expected)


@pytest.mark.slow
def test_a_worker_lost_in_a_value_reading_is_recovered_with_the_same_bytes_and_readings(ray_local, tmp_path):
    """About 10 s. A run's value readings are read where the rows lie, like its progress brackets: one
    worker goes while the reading at iteration 4 gathers; the run goes back to its recovery point, and
    its readings and its end are those of an undisturbed run."""
    readings = []

    def read(solver):
        readings.append((solver.iteration, *solver.values(20)))

    plan = RunPlan(6, recovery=tmp_path / "recovery.ckpt", checkpoint_every=3, eval_every=4,
                   hooks=hooks(read=killing_one_worker_first(read)), read_share=1.0)
    with open_solver(SMALL, workers=2, **OPTIONS) as solver:
        result = run(solver, plan, handle_signals=False)
        disturbed = solver.average_strategy().tables
    assert [(r["lost_at"], r["resumed_at"]) for r in result.recoveries] == [(4, 3)]
    assert [i for i, *_ in readings] == [4, 6]  # the lost one never returned; the last iteration reads too
    with open_solver(SMALL, workers=0, **OPTIONS) as solver:
        solver.solve(4)
        value, se = solver.values(20)
        expected = solver.solve(6).tables
    assert readings[0][1].tobytes() == value.tobytes() and readings[0][2].tobytes() == se.tobytes()
    assert all(np.array_equal(disturbed[name], expected[name]) for name in expected)


@pytest.mark.slow
def test_the_command_line_says_how_many_recoveries_and_what_they_cost(ray_local, tmp_path, monkeypatch, capsys):
    import json

    import distcfr.train as train

    real_run = train.run

    def run_with_a_loss(solver, plan, on_iteration=None, handle_signals=True):
        kill = killing_one_worker_at({2})

        def both(s, expl):
            kill(s, expl)
            if on_iteration is not None:
                on_iteration(s, expl)

        return real_run(solver, plan, both, handle_signals=False)

    monkeypatch.setattr(train, "run", run_with_a_loss)
    summary = tmp_path / "s.json"
    assert train.main(["--game", SMALL, "--sampling", "--batch", "600", "--seed", "5", "--shards", "4",
                       "--iterations", "6", "--workers", "2", "--quiet", "--checkpoint-every", "1", "--no-tables",
                       "--bracket-samples", "200",
                       "--out", str(tmp_path / "s.msgpack"), "--summary-json", str(summary)]) == 0
    assert "recovered from lost workers 1 time(s)" in capsys.readouterr().out
    data = json.loads(summary.read_text())
    assert [r["lost_at"] for r in data["recoveries"]] == [2] and data["recoveries"][0]["seconds"] > 0


class _LosingOnce:
    """The part of a sampled solver that run() drives: its workers are lost at iteration 2, and the
    first ``failed_rebuilds`` attempts to rebuild them are lost too (a node the cluster still lists)."""

    state_on_workers, waiting_on_shards = True, False

    def __init__(self, failed_rebuilds: int):
        self.iteration, self.failed_rebuilds, self.rebuilds = 0, failed_rebuilds, 0

    def abandon_work(self):  # nothing runs on workers here
        pass

    def step(self):
        if self.iteration == 2 and self.rebuilds == 0:
            raise WorkersLost("a worker died")
        self.iteration += 1

    def recover(self, checkpoint):
        self.rebuilds += 1
        if self.rebuilds <= self.failed_rebuilds:
            raise WorkersLost("a new worker went to the lost node")
        self.iteration = 0

    def workers_alive(self):
        return True


def test_a_rebuild_lost_again_is_tried_again_and_a_run_stops_after_its_attempts(monkeypatch):
    import distcfr.solve.run as run_module

    pauses = []
    monkeypatch.setattr(run_module.time, "sleep", pauses.append)
    solver = _LosingOnce(failed_rebuilds=2)
    result = run(solver, RunPlan(5), handle_signals=False)
    assert solver.iteration == 5 and solver.rebuilds == 3 and pauses == [1, 2]
    assert [(r["lost_at"], r["resumed_at"], r["attempts"]) for r in result.recoveries] == [(2, 0, 3)]
    with pytest.raises(WorkersLost):
        run(_LosingOnce(failed_rebuilds=run_module.RECOVERY_ATTEMPTS), RunPlan(5), handle_signals=False)


class _LostAtTheEnd:
    """A solver whose workers are lost once, in the run's end work; an iteration takes 10 ms."""

    state_on_workers, waiting_on_shards = True, False

    def __init__(self):
        self.iteration, self.rebuilds = 0, 0

    def abandon_work(self):  # nothing runs on workers here
        pass

    def step(self):
        time.sleep(0.01)
        self.iteration += 1

    def at_end(self, solver):
        if not self.rebuilds:
            raise WorkersLost("a worker died during the final bracket")

    def recover(self, checkpoint):
        self.rebuilds += 1
        self.iteration = 0

    def workers_alive(self):
        return True


def test_a_timed_run_that_recovers_in_its_end_work_keeps_to_its_time_limit():
    solver = _LostAtTheEnd()
    result = run(solver, RunPlan(seconds=0.3, hooks=hooks(at_end=solver.at_end)), handle_signals=False)
    first = result.recoveries[0]["lost_at"]
    assert solver.rebuilds == 1 and first >= 20  # about 30 iterations in the 0.3 s
    assert solver.iteration <= 3 and result.iterations_run == solver.iteration  # the limit was spent
    assert result.wall_seconds < 0.3 + 0.1


class _SlowRebuild(_LosingOnce):
    """Workers lost at iteration 2, and a rebuild that would take a minute: a stop arrives meanwhile."""

    def __init__(self):
        super().__init__(failed_rebuilds=0)
        self.saved = False

    def recover(self, checkpoint):
        self.rebuilds += 1
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)

    def checkpoint(self):
        self.saved = True
        raise AssertionError("a half-built solver is not saved")


def test_a_stop_while_workers_are_rebuilt_is_heard_at_once_and_saves_nothing(tmp_path):
    solver, began = _SlowRebuild(), time.perf_counter()
    result = run(solver, RunPlan(5, checkpoint=tmp_path / "ck", checkpoint_every=100))
    assert time.perf_counter() - began < 5 and solver.rebuilds == 1
    assert result.interrupted and result.recovering and not solver.saved and not result.recoveries

"""The library's launch policy (distcfr.solve.launch): the mode, the one "auto" worker policy, the
memory refusal, options a mode cannot use, and a solver that releases what it started."""

import numpy as np
import pytest

import distcfr
from distcfr.errors import BadParameter
from distcfr.solve.contract import SolverContract
from distcfr.solve.launch import RAY_WORTH_SECONDS, Launch, auto_workers, open_solver, resume_solver, use_sampling

SMALL = "draw27(ranks=8,suits=2,hand=3,stacks=10)"


def test_the_mode_is_sampled_exactly_when_the_game_is_too_large_or_sampling_is_asked():
    assert not use_sampling(distcfr.load_game("leduc"), None)
    assert not use_sampling(distcfr.load_game(SMALL), None)
    assert use_sampling(distcfr.load_game(SMALL), True)
    assert use_sampling(distcfr.load_game("draw27(ranks=13,suits=4,hand=5)"), None)
    with pytest.raises(BadParameter, match="leduc cannot be solved by sampling"):
        use_sampling(distcfr.load_game("leduc"), True)
    with pytest.raises(BadParameter, match="only be solved by sampling"):
        use_sampling(distcfr.load_game("draw27(ranks=13,suits=4,hand=5)"), False)


def test_one_auto_policy_for_both_modes():
    assert auto_workers(RAY_WORTH_SECONDS / 2, 32, None) == 0  # a short pass stays in-process
    assert auto_workers(10.0, 1, None) == 0  # one shard: nothing to split
    assert 1 <= auto_workers(10.0, 32, None) <= 32
    assert auto_workers(10.0, 2, None) <= 2


@pytest.mark.parametrize("sampling", [False, True])
def test_both_solvers_keep_the_contract(sampling):
    with open_solver(SMALL, sampling=sampling, workers=0) as solver:
        assert isinstance(solver, SolverContract)
        assert solver.mode == ("sampled" if sampling else "exact")
        solver.step()
        assert (solver.iteration, solver.phase) == (1, 0)
        assert solver.describe()["workers"] == 0
        assert solver.deals_done > 0
        bracket = solver.bracket(200)
        low, high = bracket.interval()
        assert low.shape == high.shape == (1,) and 0 <= low[0] <= high[0]
        value, se = solver.values(50)
        assert value.shape == se.shape == (1,) and se[0] >= 0
        if not sampling:  # exact: the bracket's ends are the exact exploitability, the value has no error
            strategy = solver.average_strategy()
            assert low[0] == high[0] == strategy.exploitability() and se[0] == 0
            assert value[0] == strategy.value()
        solver.release_strategy()
        solver.step()  # a further iteration after the release
        assert solver.iteration == 2


def test_options_a_mode_cannot_use_are_refused():
    with pytest.raises(BadParameter, match="batch, seed and deal shares"):
        open_solver("leduc", batch=100)
    with pytest.raises(BadParameter, match="batch, seed and deal shares"):
        open_solver("leduc", deal_shares=(2, 1))
    with pytest.raises(BadParameter, match="deal shares must be two whole numbers from 1 to 64"):
        open_solver(SMALL, sampling=True, deal_shares=(0, 1))
    with pytest.raises(BadParameter, match="alternately"):
        open_solver(SMALL, sampling=True, updates="simultaneous")
    with pytest.raises(BadParameter, match="alpha"):
        open_solver(SMALL, sampling=True, alpha=2.0)
    with pytest.raises(BadParameter, match="not used with sampling"):
        open_solver(SMALL, sampling=True, algorithm="dcfr")
    with pytest.raises(BadParameter, match="needs workers"):
        Launch(workers=0, address="127.0.0.1:6379")
    with pytest.raises(BadParameter, match="auto or a whole number"):
        Launch(workers=-1)


def test_the_estimate_is_said_and_a_solve_that_cannot_fit_is_refused(monkeypatch):
    said = []
    with open_solver("kuhn", workers=0, report=said.append) as solver:
        assert solver.launch.memory.this_machine > 0
    assert said and said[0].startswith("memory: about")
    monkeypatch.setattr("distcfr.solve.launch.available_bytes", lambda: 1_000)
    for spec, sampling in (("leduc", None), (SMALL, True)):
        with pytest.raises(BadParameter, match="needs about"):
            open_solver(spec, sampling=sampling, workers=0)


def test_a_sampled_solve_from_python_resumes_bitwise(tmp_path):
    with open_solver(SMALL, sampling=True, workers=0, batch=500, seed=2) as solver:
        solver.solve(iterations=3)
        solver.checkpoint().save(tmp_path / "a.ckpt")
        solver.solve(iterations=5)
        straight = solver.average_strategy().tables
    with resume_solver(str(tmp_path / "a.ckpt"), workers=0) as solver:
        assert solver.iteration == 3
        resumed = solver.solve(iterations=5).tables
    assert all(np.array_equal(straight[name], resumed[name]) for name in straight)


SCRIPT = f"""
import sys
from distcfr.solve.launch import open_solver
with open_solver({SMALL!r}, sampling=True, workers=2, batch=500) as solver:
    assert solver.launch.started_ray and solver.describe()["workers"] == 2
    solver.step()
    print(solver.iteration, sys.modules["ray"].is_initialized())
print(sys.modules["ray"].is_initialized())
"""


@pytest.mark.slow
def test_a_solver_on_ray_releases_the_ray_it_started():
    """In a process of its own (this test session's Ray would be reused otherwise): about 15 s."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "True", "False"]


@pytest.mark.parametrize("placeable, expected", [(3, 3), (1, 1), (0, 0)])
def test_a_rebuild_after_lost_workers_takes_what_the_cluster_can_place_down_to_this_process(
        monkeypatch, placeable, expected):
    """``--workers 4`` is the most asked for: the cluster's alive nodes list 3 CPUs, of which
    ``placeable`` can be placed; one fewer is asked for each time, then the run goes on in this process."""
    from distcfr.errors import TooFewCpus

    monkeypatch.setattr("distcfr.distributed.runtime.alive_cpus", lambda: 3)
    said, asked = [], []
    launch = Launch(workers=4, report=said.append)
    launch.on_workers = 4

    def on_ray(n):
        asked.append(n)
        if n > placeable:
            raise TooFewCpus(f"cannot give {n}")
        return f"{n} workers"

    shards = launch._rebuilt(4, on_ray, lambda: "in this process", lambda: None)
    assert asked == list(range(3, max(placeable, 1) - 1, -1))  # never more than the alive CPUs
    assert launch.on_workers == expected and shards == (f"{expected} workers" if expected else "in this process")
    assert said == [f"  workers lost: the run goes on with {expected} of the 4 asked for (it had 4)" if expected else
                    "  workers lost: the cluster has no CPU left for one; the run goes on in this process (it had 4)"]

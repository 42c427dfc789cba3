"""Sampled draw27 through the engine: agreement with the reference driver, bitwise determinism
across worker counts and stop/resume, agreement with the exact solver where it reaches, the
rules refused under sampling, and a smoke run of the real 5-card game."""

import json

import numpy as np
import pytest
from reference_sampled import solve_sampled

import distcfr
from distcfr.engine.deal_schedule import DealSchedule
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.sampled_bracket import drawn_deals
from distcfr.evaluate.class_strategy import load_class_strategy
from distcfr.solve.checkpoint import SampledCheckpoint
from distcfr.solve.sampled_run import BracketOptions, SampledRun, round_factor
from distcfr.solve.sampled_solver import SampledSolver, default_deal_shares
from distcfr.train import main

SMALL = "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"


@pytest.mark.parametrize("rule", ["lcfr", "lcfr-square", "lcfr-cubic", "lcfr-flat"])
def test_one_shard_matches_the_reference_driver(rule):
    # the same deals (one shard) and float64 tables: the same arithmetic as the reference, except that
    # ours plays float32 current strategies (1e-7 apart), which 8 rounds of regret matching amplify
    solver = SampledSolver(distcfr.load_game(SMALL), rule, batch=300, seed=5, shards=1, table_dtype=np.float64)
    solver.solve(iterations=8)
    ours = solver.shards.group.average(np.float64)  # (the solver hands out float16, as files store it)
    reference = solve_sampled(6, 2, 2, (2.0, 3.0), iterations=8, batch=300, seed=5, rule=rule)
    for name, table in reference.items():
        assert np.abs(ours[name] - table).max() < 1e-5  # a different deal or update moves them by ~1e-1


def cli(tmp_path, name, *argv):
    out = tmp_path / f"{name}.msgpack"
    assert main(["--game", SMALL, "--sampling", "--batch", "400", "--shards", "4", "--seed", "3", "--quiet",
                 "--bracket-samples", "200", "--out", str(out), *argv]) == 0
    return out.read_bytes()


def test_same_seed_same_file_on_0_and_1_workers_and_after_resume(tmp_path):
    straight = cli(tmp_path, "w0", "--iterations", "12", "--workers", "0")
    ckpt = tmp_path / "run.ckpt"
    cli(tmp_path, "part", "--iterations", "5", "--workers", "0", "--checkpoint", str(ckpt))
    assert SampledCheckpoint.load(ckpt).iteration == 5
    assert cli(tmp_path, "resumed", "--iterations", "12", "--workers", "0", "--resume", str(ckpt)) == straight
    assert cli(tmp_path, "other_seed", "--iterations", "12", "--workers", "0", "--seed", "4") != straight


@pytest.mark.slow
def test_same_seed_same_file_on_1_2_3_workers(ray_local, tmp_path):
    files = [cli(tmp_path, f"w{w}", "--iterations", "6", "--workers", str(w)) for w in (0, 1, 2, 3)]
    assert all(f == files[0] for f in files[1:])


@pytest.mark.slow
@pytest.mark.parametrize("workers", [2, 3])
def test_workers_on_other_nodes_are_sent_only_the_rows_their_deals_read_and_give_the_same_bits(ray_local, workers):
    from distcfr.distributed.ray_shards import RayClassBlocks

    game = distcfr.load_game("draw27(ranks=8,suits=2,hand=3,stacks=2:3:1)")
    batch, blocks = 150, 6  # fewer deals per worker than rows: a worker's deals cannot hold every other row

    def as_if_on_their_own_nodes(spec, n, seed, b):
        shards = RayClassBlocks(spec, n, workers, seed, b)
        shards.node_ids = list(range(workers))  # every actor reads the others' rows as if across a network
        return shards

    local = SampledSolver(game, batch=batch, seed=2, shards=blocks)
    local.solve(iterations=5)
    spread = SampledSolver(game, batch=batch, seed=2, shards=blocks, shard_set=as_if_on_their_own_nodes)
    try:
        read = [len(ray_local.get(a.plan.remote(1, 6))) for a in spread.shards.actors]
        rows = np.diff(spread.shards.starts)
        assert all(n < spread.kernel.n_classes - own for n, own in zip(read, rows)) and max(read) > 0
        spread.solve(iterations=5)
        assert spread.iteration == local.iteration == 5
        for name, table in spread.current_strategy().items():
            assert np.array_equal(table, local.current_strategy()[name])
        for name, table in spread.average_strategy().tables.items():
            assert np.array_equal(table, local.average_strategy().tables[name])
    finally:
        spread.close()


@pytest.mark.slow
def test_checkpoints_stream_the_same_bytes_on_any_worker_count_and_resume_bitwise(ray_local, tmp_path,
                                                                                   monkeypatch):
    import distcfr.io.sampled_checkpoint as file_format

    monkeypatch.setattr(file_format, "CHUNK_BYTES", 1000)  # chunks of a few rows, many across two workers' rows
    checkpoints = []
    for workers in (0, 1, 3):
        checkpoints.append(tmp_path / f"w{workers}.ckpt")
        cli(tmp_path, f"part{workers}", "--iterations", "4", "--workers", str(workers), "--checkpoint",
            str(checkpoints[-1]))
    assert len({c.read_bytes() for c in checkpoints}) == 1
    straight = cli(tmp_path, "straight", "--iterations", "9", "--workers", "0")
    assert cli(tmp_path, "resumed", "--iterations", "9", "--workers", "2", "--resume", str(checkpoints[1])) == straight


def test_sampled_strategy_converges_to_the_exact_game():
    game = distcfr.load_game(SMALL)
    exact = distcfr.Solver(game).solve(target_exploitability=1e-7, iterations=20_000)
    short, long = (SampledSolver(game, batch=500, seed=11, shards=2).solve(iterations=n) for n in (4, 120))
    exploitability = [s.to_exact().exploitability_per_variant() for s in (short, long)]
    assert (exploitability[1] < exploitability[0] / 3).all()
    bracket = long.bracket(2_000, seed=7)
    # the sampled value is the exact game's value of the sampled profile, within its standard errors
    profile_value = long.to_exact().value_per_variant
    assert (np.abs(bracket.value - profile_value) < 4.5 * bracket.value_se).all()
    assert (np.abs(profile_value - exact.value_per_variant) < exploitability[1] * 2 + 1e-9).all()


@pytest.mark.parametrize("algorithm", ["dcfr", "cfr+", "pcfr+"])
def test_rules_that_fail_under_sampling_are_refused(tmp_path, capsys, algorithm):
    assert main(["--game", SMALL, "--sampling", "--algorithm", algorithm, "--iterations", "2",
                 "--out", str(tmp_path / "x.msgpack")]) == 2
    err = capsys.readouterr().err
    assert "lcfr" in err and len(err.strip().splitlines()) == 1


def test_show_reads_a_sampled_file(tmp_path, capsys):
    cli(tmp_path, "s", "--iterations", "20", "--workers", "0")
    from distcfr.show import main as show

    assert show([str(tmp_path / "s.msgpack"), "--hand", "7c3d"]) == 0
    printed = capsys.readouterr().out
    assert "sampled lcfr-flat after 20 iterations" in printed and "button after the big blind drew 2" in printed
    assert show([str(tmp_path / "s.msgpack"), "--hand", "7c7c"]) == 2
    capsys.readouterr()
    assert show([str(tmp_path / "s.msgpack"), "--stack", "3", "--hand", "7c3d"]) == 0
    one = capsys.readouterr().out
    assert "3BB" in one and "2BB" not in one and one.count("button after the big blind drew 2") == 1
    assert show([str(tmp_path / "s.msgpack"), "--stack", "7"]) == 2
    err = capsys.readouterr().err
    assert "no stack of 7 BB (it has 2, 3)" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_real_five_card_game_runs(tmp_path):
    summary = tmp_path / "f.json"
    out = tmp_path / "f.msgpack"
    # no refinement round: the real game's final bracket in half a minute (one round takes a minute more of
    # CI at 2 per class, two take 4 minutes); the rounds are held to the exact figure on small decks
    # the button's half on 4 deals per batch deal: the default on a deck of this many classes (not set here)
    assert main(["--game", "draw27(ranks=13,suits=4,hand=5,stacks=10)", "--iterations", "2", "--batch", "2000",
                 "--bracket-samples", "2", "--bracket-rounds", "0", "--workers", "0", "--quiet", "--out", str(out),
                 "--summary-json", str(summary)]) == 0
    data = json.loads(summary.read_text())
    low, high = data["exploitability_ci"]
    assert data["mode"] == "sampled" and data["deals"] == 2 * 2000 * (4 + 1) and 0 <= low <= high
    assert data["deal_shares"] == [4, 1]
    assert data["bracket"]["refine_rounds"] == 0 and data["bracket"]["refine_deals"] == 0
    assert data["bracket"]["deals"] == 4 * 2 * 134_459  # two sets per player, 2 deals per hand class each
    assert data["exploitability"] == max(row["exploitability"] for row in data["per_variant"])
    loaded = load_class_strategy(out)
    assert loaded.tables["btn_draw"].shape == (134_459, 6, 1, 32)


def test_a_half_iteration_cut_short_and_finished_later_gives_the_same_bits(monkeypatch):
    # batch 200 < the 280 classes: a half-iteration updates some classes, wrapping round (rows not consecutive)
    game = distcfr.load_game("draw27(ranks=8,suits=2,hand=3,stacks=3:10:7)")

    def tables(solver):
        regrets, sums = solver.shards.tables()
        return {(kind, name): t.tobytes() for kind, d in (("r", regrets), ("s", sums)) for name, t in d.items()}

    import distcfr.engine.class_blocks as class_blocks

    straight = SampledSolver(game, batch=200, seed=2, shards=4)
    straight.solve(iterations=7)
    cut = SampledSolver(game, batch=200, seed=2, shards=4)
    cut.solve(iterations=3)
    kernel, calls = cut.shards.group.kernel, []
    real = kernel.class_sums

    def stopped_on_the_third_shard(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # what a signal raises into the shard's sums
        return real(*args, **kwargs)

    monkeypatch.setattr(kernel, "class_sums", stopped_on_the_third_shard)
    # one block per call (runs of blocks give the same bits: the straight run evaluates its 4 blocks in one)
    monkeypatch.setattr(class_blocks, "RUN_DEALS", 1)
    with pytest.raises(KeyboardInterrupt):
        cut.step()
    assert cut.iteration == 3 and cut.in_flight == (0, 4)
    saved = cut.checkpoint()  # finishes the half-iteration first
    assert (saved.iteration, saved.phase) == (3, 1)
    cut.solve(iterations=7)
    assert tables(cut) == tables(straight)
    assert cut.shards.group.kernel.n_classes > 200


def bits_with(monkeypatch, constant: str, value: int, iterations: int, **options) -> list[bytes]:
    """The bytes of a sampled solve's tables, current and average strategies, with
    ``distcfr.engine.class_blocks.<constant>`` set to ``value`` (a knob that must not change them)."""
    import distcfr.engine.class_blocks as class_blocks

    monkeypatch.setattr(class_blocks, constant, value)
    solver = SampledSolver(distcfr.load_game("draw27(ranks=8,suits=2,hand=3,stacks=3:10:7)"), **options)
    solver.solve(iterations=iterations)
    regrets, sums = solver.shards.tables()
    arrays = [*regrets.values(), *sums.values(), *solver.current_strategy().values(),
              *solver.average_strategy().tables.values()]
    return [np.asarray(a).tobytes() for a in arrays]


def test_table_passes_in_cache_sized_pieces_give_the_bits_of_one_pass(monkeypatch):
    # regret matching and updates go over the tables a few rows at a time; every row's arithmetic is its own, so
    # one row per piece, the default pieces and whole tables at once give the same bits (wrapped batches included)
    from distcfr.engine.class_blocks import CACHE_BYTES

    def state(cache_bytes):
        return bits_with(monkeypatch, "CACHE_BYTES", cache_bytes, 5, batch=200, seed=2, shards=4)

    default = state(CACHE_BYTES)
    assert state(1) == default
    assert state(1 << 40) == default


def test_runs_of_blocks_in_one_call_give_the_bits_of_one_block_per_call(monkeypatch):
    # in-process, consecutive class blocks are evaluated together (each drawing from its own stream); a class's
    # sums are its own, so one block per call, the default runs and all blocks at once give the same bits
    from distcfr.engine.class_blocks import RUN_DEALS

    def state(run_deals):
        return bits_with(monkeypatch, "RUN_DEALS", run_deals, 4, batch=1000, seed=4, shards=7)

    one_each = state(1)
    assert state(300) == one_each and state(RUN_DEALS) == one_each and state(1 << 40) == one_each


def test_each_stack_of_a_list_is_the_stack_solved_alone_to_float32_rounding():
    # the same deals (the stream does not depend on the stacks) and per-stack arithmetic; only BLAS's choice of
    # kernel for the stacks' rows of a product moves the last bits, so one iteration agrees to a few ulps
    def tables(stacks, iterations):
        solver = SampledSolver(distcfr.load_game(f"draw27(ranks=8,suits=2,hand=3,stacks={stacks})"), batch=600,
                               seed=3, shards=4)
        solver.solve(iterations=iterations)
        return solver.shards.tables()[0]

    together = tables("3:24:3", 1)  # 8 stacks: 3, 6, ..., 24
    for at, stack in ((0, 3), (3, 12), (7, 24)):
        alone = tables(f"{stack}", 1)
        for name, table in alone.items():
            mine = together[name][..., at:at + 1, :]
            assert np.abs(mine - table).max() <= 8 * np.spacing(np.abs(table).max()), (stack, name)
            assert np.abs(table).max() > 1  # real regrets, not empty tables


def test_a_sampled_stack_sweep_finds_the_one_card_break_even(tmp_path):
    # the seed write-up's one-card game: the exact break-even stack is 3.9403 BB (python -m distcfr.seeds)
    summary, out, png = tmp_path / "sweep.json", tmp_path / "sweep.msgpack", tmp_path / "sweep.png"
    assert main(["--game", "draw27(ranks=13,suits=1,hand=1,stacks=3:5:0.25)", "--sampling", "--iterations", "300",
                 "--batch", "2000", "--bracket-samples", "8000", "--workers", "0", "--quiet", "--out", str(out),
                 "--summary-json", str(summary), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(summary.read_text())
    low, high = data["break_even_interval"]
    assert low <= 3.9403 <= high and high - low < 0.5
    assert len(data["break_even"]) == 1 and abs(data["break_even"][0] - 3.9403) < 0.25
    values = np.array([row["value"] for row in data["per_variant"]])
    assert values[0] > 0 > values[-1]  # short stacks favour the button
    # every stack's sampled value lands on the exact game value: within its error bars around the value of
    # the profile it measures, which is itself within the profile's exact exploitability of the game value
    game = distcfr.load_game("draw27(ranks=13,suits=1,hand=1,stacks=3:5:0.25)")
    exact = distcfr.Solver(game).solve(target_exploitability=1e-7, iterations=20_000).value_per_variant
    profile = load_class_strategy(out).to_exact()
    se = np.array([row["value_se"] for row in data["per_variant"]])
    assert (np.abs(values - profile.value_per_variant) < 4.5 * se).all()
    assert (np.abs(values - exact) < 4.5 * se + profile.exploitability_per_variant() + 1e-9).all()
    assert np.abs(values - exact).max() < 0.02  # BB: the sweep's values, not just their signs


def test_a_sampled_solve_that_cannot_fit_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("distcfr.solve.launch.available_bytes", lambda: 10_000_000_000)  # 10 GB free
    ckpt = tmp_path / "sweep.ckpt"
    assert main(["--game", "draw27(ranks=13,suits=4,hand=5,stacks=1:20:0.5)", "--iterations", "1", "--workers", "0",
                 "--checkpoint", str(ckpt), "--out", str(tmp_path / "s.msgpack")]) == 2
    err = capsys.readouterr().err
    assert "needs about" in err and "fewer stacks, a smaller game or a cluster" in err
    assert len(err.strip().splitlines()) == 1
    assert not ckpt.exists()


def test_progress_brackets_are_off_where_a_bracket_does_not_fit_beside_the_workers(tmp_path, capsys, monkeypatch):
    from distcfr.engine.memory import sampled_estimate
    from distcfr.solve.launch import BRACKET_MARGIN

    game = distcfr.load_game(SMALL)
    memory = sampled_estimate(sampled_kernel(game), 400, 4, 0)
    # available memory where the run fits and a bracket beside it does not
    between = (memory.this_machine + memory.with_bracket / BRACKET_MARGIN) / 2
    monkeypatch.setattr("distcfr.solve.launch.available_bytes", lambda: int(between))
    summary = tmp_path / "s.json"
    assert main(["--game", SMALL, "--sampling", "--batch", "400", "--shards", "4", "--iterations", "20",
                 "--eval-every", "2", "--workers", "0", "--bracket-samples", "200",
                 "--out", str(tmp_path / "s.msgpack"), "--summary-json", str(summary)]) == 0
    assert "progress brackets and value readings off" in capsys.readouterr().out
    data = json.loads(summary.read_text())
    assert data["bracket_history"] == [] and data["settling"] is None  # no readings either: they need the room
    assert 0 <= data["exploitability_ci"][0] < data["exploitability_ci"][1]
    for stack in data["per_variant"]:  # the final bracket scored the latest iterate too, with its standard error
        gain, se = stack["latest_iterate_estimate"]
        assert se > 0 and stack["exploitability_ci"][0] >= max(gain - 2.241 * se, 0)
    assert main(["--game", SMALL, "--sampling", "--batch", "400", "--shards", "4", "--iterations", "20",
                 "--target-exploitability", "0.1", "--out", str(tmp_path / "t.msgpack")]) == 2
    assert "needs a bracket beside the workers" in capsys.readouterr().err


@pytest.mark.slow
def test_the_workers_bracket_and_value_reading_are_the_gathered_strategys_bit_for_bit(ray_local, monkeypatch):
    import distcfr.engine.sampled_bracket as sampled
    from distcfr.solve.launch import Launch

    monkeypatch.setattr(sampled, "BRACKET_CHUNK", 60)  # 2 classes per chunk: 18 chunks over the 3 workers

    with SampledSolver(distcfr.load_game(SMALL), batch=400, seed=3, shards=5, shard_set=Launch(3).sampled) as solver:
        solver.solve(iterations=6)
        latest = solver.latest_strategy()  # the latest iterate the workers publish for the bracket to score
        spread, gathered = solver.bracket(30), solver.average_strategy().bracket(30, latest=latest)
        one_round = solver.bracket(30, rounds=1), solver.average_strategy().bracket(30, rounds=1, latest=latest)
        readings = solver.values(30), solver.average_strategy().values(30)  # value readings: the same way
    assert [x.tobytes() for x in readings[0]] == [x.tobytes() for x in readings[1]]
    for field in ("low", "low_se", "high", "high_se", "value", "value_se", "latest_low", "latest_low_se"):
        assert getattr(spread, field).tobytes() == getattr(gathered, field).tobytes(), field
        assert getattr(one_round[0], field).tobytes() == getattr(one_round[1], field).tobytes(), field
    assert spread.extra_deals == gathered.extra_deals > one_round[0].extra_deals == one_round[1].extra_deals > 0
    assert spread.focus_deals == gathered.focus_deals > 0  # the focus round too, its classes where their rows lie
    assert (spread.rounds, one_round[0].rounds) == (2, 1)
    lower, upper = spread.interval()
    assert (lower < upper).all() and (spread.high_se > 0).all() and (spread.value_se > 0).all()


@pytest.mark.slow
def test_ctrl_c_on_ray_workers_saves_the_checkpoint_and_says_so_in_one_line(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    ckpt, out = tmp_path / "c.ckpt", tmp_path / "c.msgpack"
    driver = subprocess.Popen([sys.executable, "-m", "distcfr.train", "--sampling", "--batch", "300000",
                               "--game", "draw27(ranks=8,suits=2,hand=3,stacks=3:10:7)", "--iterations", "100000",
                               "--workers", "2", "--checkpoint", str(ckpt), "--checkpoint-every", "1",
                               "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    waited = time.monotonic()
    while not ckpt.exists() and time.monotonic() - waited < 90:  # Ray is up and the workers run iterations
        time.sleep(0.2)
    time.sleep(1.0)
    driver.send_signal(signal.SIGINT)  # (Ray's ray.get answers it with a KeyboardInterrupt of its own)
    stdout, stderr = driver.communicate(timeout=120)
    assert driver.returncode == 130 and "interrupted" in stdout and "Traceback" not in stderr, stderr[-2000:]
    assert SampledCheckpoint.load(ckpt).iteration > 0 and out.exists()


def test_deal_shares_give_each_players_half_its_deals(monkeypatch):
    # deal shares (button, big blind) multiply the batch in each player's half: the deals evaluated,
    # deals_done and the visits follow them; a half of k times the batch is a batch k times as large (shares (2, 2)
    # of 150 deals are 300 deals a half, the cycle's positions included), and other shares are another solve
    game = distcfr.load_game("draw27(ranks=8,suits=2,hand=3,stacks=3:10:7)")
    kernel = sampled_kernel(game)
    real, evaluated = kernel.class_sums, {0: 0, 1: 0}

    def counted(sigma, deals, player, counts, **options):
        evaluated[player] += len(deals)
        return real(sigma, deals, player, counts, **options)

    monkeypatch.setattr(kernel, "class_sums", counted)

    def solve(shares, batch):  # 300 deals > the 280 classes: wraps round
        solver = SampledSolver(game, batch=batch, seed=3, shards=5, deal_shares=shares)
        solver.solve(iterations=4)
        return solver, [np.asarray(t).tobytes() for t in solver.average_strategy().tables.values()]

    solver, bits = solve((3, 1), 300)
    assert evaluated == {0: 4 * 900, 1: 4 * 300}
    assert solver.deals_done == 4 * 1200
    assert solver.visits(0).sum() == 4 * 900 and solver.visits(1).sum() == 4 * 300
    assert solver.visits(0).min() == 4 * 900 // 280 and solver.visits(1).max() == -(-4 * 300 // 280)
    assert solve((2, 2), 150)[1] == solve((1, 1), 300)[1] != bits


def test_the_default_deal_shares_follow_the_decks_classes():
    # 4:1 from 1,250 hand classes (the default batch is 8 deals per class there: 4 and 5 cards from 52),
    # 1:1 below, whatever the batch; a small deck's solver takes 1:1 and halves of its batch
    assert default_deal_shares(sampled_kernel(distcfr.load_game("draw27(ranks=13,suits=4,hand=4,stacks=10)"))) == (4, 1)
    assert default_deal_shares(sampled_kernel(distcfr.load_game("draw27(ranks=13,suits=2,hand=3,stacks=10)"))) == (4, 1)
    assert default_deal_shares(sampled_kernel(distcfr.load_game("draw27(ranks=10,suits=4,hand=3,stacks=10)"))) == (1, 1)
    solver = SampledSolver(distcfr.load_game("draw27(ranks=8,suits=2,hand=3,stacks=10)"), batch=300, seed=0, shards=2)
    assert solver.deal_shares == (1, 1) and solver.schedule == DealSchedule(300, 300)


def test_deal_shares_are_kept_by_checkpoints_and_resume_bitwise(tmp_path):
    game = distcfr.load_game(SMALL)

    def solver():
        return SampledSolver(game, batch=300, seed=1, shards=3, deal_shares=(3, 1))

    def bits(s):
        return [np.asarray(t).tobytes() for t in s.average_strategy().tables.values()]

    whole, half = solver(), solver()
    whole.solve(iterations=6)
    half.solve(iterations=3)
    half.checkpoint().save(tmp_path / "c.ckpt")
    loaded = SampledCheckpoint.load(tmp_path / "c.ckpt")
    assert loaded.deal_shares == (3, 1)
    resumed = SampledSolver.from_checkpoint(loaded)
    assert resumed.deal_shares == (3, 1) and resumed.deals_done == 3 * (900 + 300)
    while resumed.iteration < 6:
        resumed.step()
    default = SampledSolver(game, batch=300, seed=1, shards=3)  # shares 1:1: another solve
    default.solve(iterations=6)
    assert bits(resumed) == bits(whole) != bits(default)


@pytest.mark.parametrize("argv, says", [
    (["--deal-shares", "0:1"], "deal shares must be two whole numbers from 1 to 64 (button, big blind), got 0:1"),
    (["--deal-shares", "4"], "not BUTTON:BIG_BLIND"),
    (["--deal-shares", "4:x"], "not BUTTON:BIG_BLIND"),
])
def test_bad_deal_shares_are_one_line_and_exit_2(tmp_path, capsys, argv, says):
    out = tmp_path / "s.msgpack"
    assert main(["--game", SMALL, "--sampling", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and "--deal-shares" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_deal_shares_on_an_exact_run_or_another_runs_checkpoint_are_refused(tmp_path, capsys):
    out = tmp_path / "k.msgpack"
    assert main(["--game", "kuhn", "--deal-shares", "2:1", "--iterations", "1", "--out", str(out)]) == 2
    assert "--deal-shares is a sampled solve's option" in capsys.readouterr().err
    ckpt = tmp_path / "r.ckpt"
    cli(tmp_path, "r", "--iterations", "2", "--checkpoint", str(ckpt))
    assert main(["--resume", str(ckpt), "--deal-shares", "2:1", "--iterations", "3", "--quiet",
                 "--out", str(tmp_path / "r2.msgpack")]) == 2
    err = capsys.readouterr().err
    assert "deal_shares=(1, 1) run; the command line asks for deal_shares=(2, 1)" in err


def test_the_final_brackets_forecast_uses_the_latest_iterations_rate_not_the_time_between(monkeypatch):
    solver = SampledSolver(distcfr.load_game(SMALL), batch=200, seed=3, shards=2)
    hooks = SampledRun(solver, BracketOptions(), iterations=5)
    assert solver.step_rate is None and hooks.seconds_per_class(solver) is None
    clock = [100.0]
    monkeypatch.setattr("distcfr.solve.sampled_solver.time.perf_counter", lambda: clock[0])
    monkeypatch.setattr("distcfr.solve.sampled_run.time.perf_counter", lambda: clock[0])
    hooks.start = clock[0]
    half = solver.shards.half_iteration

    def timed_half(*args):  # each half-iteration takes 2 s of the fake clock
        half(*args)
        clock[0] += 2.0

    monkeypatch.setattr(solver.shards, "half_iteration", timed_half)
    solver.step()
    clock[0] += 1000.0  # a bracket or a reading between iterations: not the iterations' rate
    solver.step()
    rate = 4.0 / solver.schedule.per_iteration
    assert solver.step_rate == pytest.approx(rate)
    assert hooks.seconds_per_deal(solver) == pytest.approx(rate)
    cost = hooks.seconds_per_class(solver)
    kernel = solver.kernel
    assert cost(4, 0) == pytest.approx(kernel.bracket_deal_cost * drawn_deals(4, kernel.n_classes) * rate
                                       * round_factor(0, hooks.focus))

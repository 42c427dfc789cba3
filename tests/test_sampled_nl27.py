"""The sampled nl27 kernel: on decks small enough to enumerate every deal, its values are the exact
solver's, its counterfactual sums add up to the deal values, and a class's sums do not depend on
the other classes of the call."""

import itertools

import numpy as np
import pytest

import distcfr
from distcfr.engine import sampled_nl27
from distcfr.engine.layout import Layout
from distcfr.engine.sampled_nl27 import SampledNl27
from distcfr.errors import BadParameter
from distcfr.games.registry import load_game


def legal_uniform(kernel: SampledNl27) -> dict:
    """Tables playing every action of the game alike (its copies never)."""
    out = {t.name: np.full((kernel.n_classes if t.keyed == "class" else kernel.n_keys, *t.shape), 1 / t.n_actions)
           for t in kernel.strategy_tables}
    for dec in kernel.pre_decisions:
        original = dec.alias == np.arange(dec.alias.shape[1])
        out[("btn_pre", "bb_pre")[dec.player]][:, dec.index] = original / original.sum(1, keepdims=True)
    for t in kernel.templates:
        for dec in filter(None, t.decisions):
            original = dec.alias == np.arange(dec.alias.shape[1])
            cols = (t.base[dec.player] + dec.index) * kernel.k2 + np.arange(kernel.k2)
            out[("btn_post", "bb_post")[dec.player]][:, cols] = original / original.sum(1, keepdims=True)
    return out


def every_deal(kernel: SampledNl27) -> np.ndarray:
    """(D, 4H) every ordered deal of both hands and a stub of 2H cards (hands as sorted sets)."""
    h = kernel.hand
    out = []
    for cards in itertools.permutations(kernel.deck, 4 * h):
        if h == 1 or (list(cards[:h]) == sorted(cards[:h]) and list(cards[h:2 * h]) == sorted(cards[h:2 * h])):
            out.append(cards)
    return np.array(out)


def random_tables(kernel: SampledNl27, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for t in kernel.strategy_tables:
        x = rng.random((kernel.n_classes if t.keyed == "class" else kernel.n_keys, *t.shape))
        out[t.name] = x / x.sum(-1, keepdims=True)
    return out


def grouped(kernel, deals, player):
    h = kernel.hand
    classes = kernel.classes.classify(np.sort(deals[:, player * h:(player + 1) * h], axis=1))[0]
    order = np.argsort(classes, kind="stable")
    return deals[order], np.bincount(classes, minlength=kernel.n_classes)


@pytest.mark.parametrize("spec", ["nl27(ranks=13,suits=1,hand=1,stacks=10)",
                                  "nl27(ranks=5,suits=1,hand=1,stacks=6,open=2.5/4,limp=0)",
                                  "nl27(ranks=3,suits=2,hand=1,stacks=4,bet=1,cap=2)",
                                  "nl27(ranks=6,suits=1,hand=1,stacks=2:8:3)"])
def test_uniform_value_is_the_exact_games(spec):
    """With one card a draw of the rule is the draw of its mask, and a profile that plays every
    action alike is the same strategy whatever keys its decisions: the exact solver's value."""
    kernel = SampledNl27(load_game(spec[:-1] + ",draw=rule,post=value)"))
    value = kernel.deal_values(legal_uniform(kernel), every_deal(kernel)).mean(0)
    layout = Layout(load_game(spec))
    exact = distcfr.Strategy(layout, layout.uniform_strategy()).value_per_variant
    np.testing.assert_allclose(value, exact, atol=1e-12)


@pytest.mark.parametrize("spec", ["nl27(ranks=7,suits=1,hand=1,stacks=3:9:3,draw=rule,post=value)",
                                  "nl27(ranks=4,suits=2,hand=2,stacks=4,bet=1,cap=2,draw=rule,post=3)"])
def test_counterfactual_sums_add_up_to_the_deal_values(spec):
    """The button's first decision: its strategy times its action values, summed over the deals, is
    the sum of the deal values; the big blind's draws likewise give its part at each line."""
    kernel = SampledNl27(load_game(spec))
    tables = random_tables(kernel, 3)
    deals = every_deal(kernel)
    if len(deals) > 20_000:
        deals = deals[np.random.default_rng(0).choice(len(deals), 20_000, replace=False)]
    deals, counts = grouped(kernel, deals, 0)
    got = kernel.class_sums(tables, deals, 0, counts)
    root = kernel.pre_decisions[0]
    original = root.alias == np.arange(root.alias.shape[1])
    sigma = np.stack([kernel.fold(tables["btn_pre"][c, 0], root.alias) for c in got["btn_pre"].rows])
    total = np.where(original, sigma * got["btn_pre"].q[:, 0], 0).sum((0, 2))
    np.testing.assert_allclose(total, kernel.deal_values(tables, deals).sum(0), rtol=2e-5)


def test_a_class_sums_do_not_depend_on_the_other_classes_of_the_call(monkeypatch):
    """Class sums of all classes in one call equal those of each class alone, bit for bit, however the
    deals are cut in pieces; post-draw sums are integers and add up exactly."""
    monkeypatch.setattr(sampled_nl27, "DEAL_CHUNK", 37)
    kernel = SampledNl27(load_game("nl27(ranks=6,suits=2,hand=1,stacks=5,draw=rule,post=value)"))
    tables = random_tables(kernel, 5)
    deals, counts = grouped(kernel, every_deal(kernel)[::7], 1)
    whole = kernel.class_sums(tables, deals, 1, counts)
    ends = np.cumsum(counts)
    post = np.zeros((kernel.n_keys, *kernel.strategy_table("bb_post").shape), np.int64)
    for c in range(kernel.n_classes):
        alone = np.zeros_like(counts)
        alone[c] = counts[c]
        part = kernel.class_sums(tables, deals[ends[c] - counts[c]:ends[c]], 1, alone)
        for name in ("bb_pre", "bb_draw"):
            assert part[name].rows.tolist() == [c]
            assert np.array_equal(part[name].q[0], whole[name].q[c])
            assert np.array_equal(part[name].reach[0], whole[name].reach[c])
        post[part["bb_post"].rows] += part["bb_post"].q
    assert np.array_equal(post[whole["bb_post"].rows], whole["bb_post"].q)


def test_refuses_the_unabstracted_game():
    with pytest.raises(BadParameter, match="draw=rule"):
        SampledNl27(load_game("nl27(ranks=6,suits=1,hand=1)"))


# ---- the solver: the exact game of the same abstraction, worker counts, resume -----------------------
TINY = "nl27(ranks=6,suits=1,hand=1,stacks=5,draw=rule,post=value)"


@pytest.mark.slow
def test_sampled_solve_nears_the_exact_solution_of_the_same_abstract_game():
    """On a deck the exact solver takes, the sampled average's exact value tends to the abstract game's
    value and its exact exploitability falls, the more deals it has seen."""
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game(TINY)
    exact = distcfr.Strategy(*SampledNl27(game).to_exact(legal_uniform(SampledNl27(game))))
    solver = SampledSolver(game, batch=2000, seed=1)
    found = []
    for iterations in (10, 200):
        solver.solve(iterations - solver.iteration)
        tables = {name: t.astype(np.float64) for name, t in solver.average_strategy().tables.items()}
        found.append(distcfr.Strategy(*solver.kernel.to_exact(tables)))
    from distcfr.solve.solver import Solver

    value = Solver(game).solve(2000).value_per_variant[0]  # dcfr: exploitability ~1e-5
    assert exact.exploitability() > 0.1  # the uniform strategy, for scale
    print([f.exploitability() for f in found], [f.value_per_variant[0] for f in found], value)
    assert found[0].exploitability() < exact.exploitability()
    assert found[1].exploitability() < min(found[0].exploitability() / 4, 0.03)
    assert abs(found[1].value_per_variant[0] - value) < 0.01


@pytest.mark.slow
def test_with_perfect_recall_kept_the_sampled_solve_nears_the_full_games_value():
    """On one card a hand class and its final card say all a player knows after the draw: the game the
    sampled solver takes keeps perfect recall (keys per class and value), and is the full game."""
    from distcfr.solve.sampled_solver import SampledSolver
    from distcfr.solve.solver import Solver

    full = load_game("nl27(ranks=6,suits=1,hand=1,stacks=5)")
    game = full.sampled_form()
    assert (game.params.draw, game.params.post) == ("rule", "recall")
    solver = SampledSolver(game, batch=2000, seed=1)
    solver.solve(300)
    tables = {name: t.astype(np.float64) for name, t in solver.average_strategy().tables.items()}
    found = distcfr.Strategy(*solver.kernel.to_exact(tables))
    value = Solver(full).solve(2000).value_per_variant[0]  # dcfr: exploitability ~1e-5
    print(found.exploitability(), found.value_per_variant[0], value)
    assert found.exploitability() < 0.03 and abs(found.value_per_variant[0] - value) < 0.01


def tables_after(game, iterations: int, shard_set=None, **kw) -> dict:
    from distcfr.solve.sampled_solver import SampledSolver

    solver = SampledSolver(game, batch=300, seed=4, shards=4, shard_set=shard_set, **kw)
    try:
        solver.solve(iterations)
        regrets, sums = solver.shards.tables()
        return {f"r.{n}": t for n, t in regrets.items()} | {f"s.{n}": t for n, t in sums.items()}
    finally:
        solver.close()


def test_stop_and_resume_gives_the_same_tables(tmp_path):
    from distcfr.solve.checkpoint import SampledCheckpoint
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game("nl27(ranks=5,suits=2,hand=1,stacks=3:6:3,draw=rule,post=value)")
    straight = tables_after(game, 6)
    first = SampledSolver(game, batch=300, seed=4, shards=4)
    first.solve(2)
    first.checkpoint().save(tmp_path / "run.ckpt")
    first.close()
    resumed = SampledSolver.from_checkpoint(SampledCheckpoint.load(tmp_path / "run.ckpt"))
    resumed.solve(6)  # up to iteration 6
    regrets, sums = resumed.shards.tables()
    again = {f"r.{n}": t for n, t in regrets.items()} | {f"s.{n}": t for n, t in sums.items()}
    assert straight.keys() == again.keys() and any("post" in name for name in straight)
    for name, table in straight.items():
        assert np.array_equal(table, again[name]), name


@pytest.mark.slow
def test_the_same_tables_on_0_1_2_3_workers(ray_local):
    from distcfr.distributed.ray_shards import RayClassBlocks

    game = load_game("nl27(ranks=5,suits=2,hand=1,stacks=3:6:3,draw=rule,post=value)")
    local = tables_after(game, 4)
    for workers in (1, 2, 3):
        def on(spec, n, seed, schedule, w=workers):
            return RayClassBlocks(spec, n, w, seed, schedule)

        on_ray = tables_after(game, 4, on)
        for name, table in local.items():
            assert np.array_equal(table, on_ray[name]), (workers, name)



def test_key_sums_added_in_any_grouping_are_their_sum():
    """The groups' key sums added (as each actor adds its slice of a reduce-scatter): rows of any
    part, their sums added, the same whether added at once or in steps."""
    from distcfr.engine.class_blocks import added_key_sums

    rng = np.random.default_rng(3)
    dense = [rng.integers(-9, 9, (6, 2, 3)) * (rng.random((6, 1, 1)) < 0.5) for _ in range(3)]

    def part(q):
        rows = np.flatnonzero(q.reshape(len(q), -1).any(1))
        return {"post": (rows, q[rows], q[rows, :, 0])}

    parts = [part(q) for q in dense]
    rows, q, reach = added_key_sums(parts)["post"]
    total = np.zeros_like(dense[0])
    total[rows] = q
    assert np.array_equal(total, sum(dense)) and np.array_equal(reach, q[:, :, 0])
    stepwise = added_key_sums([added_key_sums(parts[:2]), parts[2]])["post"]
    assert all(np.array_equal(a, b) for a, b in zip(stepwise, (rows, q, reach)))
    assert added_key_sums([{}, parts[0]])["post"][0].tolist() == parts[0]["post"][0].tolist()


def test_a_groups_key_sums_cut_in_the_owners_slices_join_to_the_whole():
    """take_key_sums for groups owning blocks [0, 1) and [1, 2): each slice holds the reached rows of
    its owner's share of the key table, and the slices side by side are the sums taken whole."""
    from distcfr.engine.class_blocks import LocalClassBlocks, block_bounds
    from distcfr.engine.deal_schedule import DealSchedule

    blocks = LocalClassBlocks("nl27(ranks=5,suits=2,hand=1,stacks=3:6:3,draw=rule,post=value)", 2, 4,
                              DealSchedule(150, 150))
    group = blocks.group
    blocks._current_keys_on_groups()
    group.half_iteration(0, 1, {"name": "cfr+"}, blocks.parts[1])
    taken = group.key_sums
    whole = group.take_key_sums(0, 1)
    group.key_sums = taken
    sliced = group.take_key_sums(0, 1, [0, 1, 2])
    assert whole and len(sliced) == 2 and group.take_key_sums(0, 1, [0, 1, 2]) == [{}, {}]  # taken once
    for name, parts in whole.items():
        bounds = block_bounds(len(taken[2][name][0]), 2)
        assert all(name in part for part in sliced)  # both owners' rows are reached here
        for j, part in enumerate(sliced):
            assert bounds[j] <= part[name][0].min() and part[name][0].max() < bounds[j + 1]
        for whole_array, sliced_arrays in zip(parts, zip(*(part[name] for part in sliced))):
            assert np.array_equal(whole_array, np.concatenate(sliced_arrays))


def test_the_groups_play_the_key_strategy_the_owners_updated_and_the_average_in_evaluations():
    """After a half-iteration every group gathers the updated player's key strategy from the owners
    (only that player's tables); an evaluation plays the average, and the next half both players'
    current strategy again; what the groups play is the owners' slices put together."""
    from distcfr.engine.class_blocks import LocalClassBlocks, regret_matching_rows
    from distcfr.engine.deal_schedule import DealSchedule
    from distcfr.engine.sampled_kernel import key_tables

    spec = "nl27(ranks=5,suits=2,hand=1,stacks=3:6:3,draw=rule,post=value)"
    blocks = LocalClassBlocks(spec, 2, 4, DealSchedule(150, 150))
    owner = {t.name: t.player for t in key_tables(blocks.group.kernel)}
    sent, set_key_strategy = [], blocks.group.set_key_strategy
    blocks.group.set_key_strategy = lambda *slices: sent.append(
        {name: part[name][1].dtype for part in slices for name in part}) or set_key_strategy(*slices)
    for iteration in (1, 2):
        for player in (0, 1):
            blocks.half_iteration(player, iteration, {"name": "cfr+"})
            regrets = blocks.tables()[0]
            for name in owner:
                assert np.array_equal(blocks.group.shared[name], regret_matching_rows(regrets[name]))
    assert sent[0] == {name: np.float32 for name in owner}  # the first half: both players' uniform strategy
    assert [{owner[name] for name in names} for names in sent[1:]] == [{0}, {1}, {0}, {1}]
    blocks.value_sums(1, 1, [(0, blocks.starts[-1])])  # the groups play the average
    assert sent[-1] == {name: np.float16 for name in owner}
    averages = blocks.average()
    for name in owner:  # widened once, to the values a file of the average holds
        played = blocks.group.shared[name]
        assert played.dtype == np.float32 and np.array_equal(played, averages[name].astype(np.float32))
    blocks.half_iteration(0, 3, {"name": "cfr+"})
    assert sent[-2] == {name: np.float32 for name in owner}


@pytest.mark.slow
def test_a_checkpoint_on_ray_is_the_in_process_ones_and_resumes_there_bitwise(ray_local, tmp_path):
    """The key tables are the block set's, not a worker's: a checkpoint written from Ray workers streams
    them with the class rows, byte for byte the in-process run's, and resuming it on Ray ends as a
    straight run does."""
    from distcfr.train import main

    def cli(name, *argv):
        out = tmp_path / f"{name}.msgpack"
        assert main(["--game", "nl27(ranks=5,suits=2,hand=1,stacks=3:6:3,draw=rule,post=value)", "--sampling",
                     "--batch", "300", "--shards", "4", "--seed", "4", "--quiet", "--no-tables",
                     "--bracket-samples", "2", "--out", str(out), *argv]) == 0
        return out.read_bytes()

    ckpts = [tmp_path / f"w{workers}.ckpt" for workers in (0, 2)]
    for workers, ckpt in zip((0, 2), ckpts):
        cli(f"part{workers}", "--iterations", "3", "--workers", str(workers), "--checkpoint", str(ckpt))
    assert ckpts[0].read_bytes() == ckpts[1].read_bytes()
    straight = cli("straight", "--iterations", "6", "--workers", "0")
    assert cli("resumed", "--iterations", "6", "--workers", "2", "--resume", str(ckpts[1])) == straight


@pytest.mark.parametrize("spec", ["draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)",
                                  "nl27(ranks=6,suits=2,hand=2,stacks=4,draw=rule,post=value)"])
def test_both_kernels_keep_the_sampled_kernel_contract(spec):
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.engine.sampled_kernel import SampledKernel

    kernel = sampled_kernel(load_game(spec))
    assert isinstance(kernel, SampledKernel)
    for table in kernel.strategy_tables:
        assert table.shape[-1] == table.n_actions and table.shape[-2] == len(kernel.stacks)
        assert kernel.uniform()[table.name].shape == (kernel.table_rows(table), *table.shape)


def test_every_sampled_game_has_a_presentation_that_keeps_the_contract():
    import inspect

    from distcfr.engine.kernels import SAMPLED
    from distcfr.present.sampled import PRESENTATIONS, SampledPresentation, sampled_presentation

    assert set(PRESENTATIONS) == set(SAMPLED)
    wanted = {name: inspect.signature(f) for name, f in vars(SampledPresentation).items()
              if inspect.isfunction(f) and not name.startswith("_")}
    assert len(wanted) == 6
    for game in SAMPLED:
        module = sampled_presentation(load_game(game))
        for name, signature in wanted.items():
            given = inspect.signature(getattr(module, name))
            required = list(signature.parameters)[1:]  # less self
            assert list(given.parameters)[:len(required)] == required, (game, name)
            assert all(p.default is not p.empty for p in list(given.parameters.values())[len(required):])


def test_show_train_and_the_page_leave_each_sampled_games_reading_to_its_presentation():
    import inspect

    from distcfr.present.html_report import html_report
    from distcfr.show import sampled_text
    from distcfr.train import _SampledRun

    for reader in (sampled_text, _SampledRun, html_report):
        code = inspect.getsource(reader)
        for game in ("draw27", "nl27"):
            assert f'"{game}"' not in code and f"present.{game}" not in code, (reader, game)


# ---- the command line ------------------------------------------------------------------------------
def test_train_solves_nl27_by_sampling_and_gives_its_exact_exploitability_in_the_full_game(tmp_path, capsys):
    import json

    from distcfr.evaluate.class_strategy import load_class_strategy
    from distcfr.train import main

    out, summary = tmp_path / "s.msgpack", tmp_path / "s.json"
    assert main(["--game", "nl27(ranks=6,suits=2,hand=1,stacks=4:8:4)", "--sampling", "--iterations", "20",
                 "--batch", "500", "--exact-exploitability", "--out", str(out), "--summary-json", str(summary)]) == 0
    printed = capsys.readouterr().out
    assert "sampling solves nl27(ranks=6,suits=2,stacks=4:8:4,draw=rule)" in printed  # post=recall kept
    assert "; a stack costs about" in printed and "inside the interval" in printed
    data = json.loads(summary.read_text())
    assert data["exploitability"] > 0 and data["exploitability_exact"]["inside_interval"]
    for row in data["per_variant"]:  # one card: the bracket's responder is the full game's
        low, high = row["exploitability_ci"]
        assert 0 < low <= row["exploitability_exact"] <= high < 1 and abs(row["value"]) < 1
    strategy = load_class_strategy(out)
    assert strategy.tables["btn_post"].shape[0] == strategy.kernel.n_keys
    assert strategy.exact_exploitability() == pytest.approx([r["exploitability_exact"] for r in data["per_variant"]])


@pytest.mark.parametrize("argv, says", [
    (["--iterations", "2", "--bracket-rounds", "1"], "bracket has no refinement or focus rounds"),
    (["--iterations", "2", "--game", "nl27(ranks=6,suits=2,hand=1,draw=masks)"], "draw is all (every discard) or rule"),
    (["--iterations", "2", "--game", "nl27(ranks=6,suits=2,hand=1,post=1)"], "post is recall, value or a number"),
])
def test_train_refuses_what_nl27_sampling_cannot_do(tmp_path, capsys, argv, says):
    from distcfr.train import main

    game = [] if "--game" in argv else ["--game", "nl27(ranks=6,suits=2,hand=1)"]
    assert main([*game, "--sampling", "--batch", "200", "--out", str(tmp_path / "x.msgpack"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.msgpack").exists()


def test_a_stack_list_too_large_for_this_machine_is_refused_with_what_fits(tmp_path, capsys, monkeypatch):
    from distcfr.solve import launch
    from distcfr.train import main

    monkeypatch.setattr(launch, "available_bytes", lambda: 400_000_000)
    assert main(["--game", "nl27(ranks=8,suits=2,hand=2,stacks=3:60:3)", "--sampling", "--iterations", "1",
                 "--workers", "0", "--out", str(tmp_path / "x.msgpack")]) == 2
    err = capsys.readouterr().err
    assert "stacks fit here, a stack costs about" in err and "cluster" in err


def test_no_two_uses_share_a_deal_stream():
    from distcfr.engine import streams
    from distcfr.engine.sampled_bracket import FOCUS_MOST, FOCUS_PIECE
    from distcfr.train import MAX_BRACKET_ROUNDS

    domains = [streams.UNIFORM_DOMAIN, streams.CLASS_DOMAIN, streams.SOLVE_DOMAIN, streams.CYCLE_DOMAIN]
    assert len(set(domains)) == len(domains)
    assert MAX_BRACKET_ROUNDS <= streams.MAX_REFINE_ROUNDS
    taken = streams.class_streams(-(-FOCUS_MOST // FOCUS_PIECE))
    seen: dict[int, str] = {}
    for use, numbers in taken.items():
        for n in numbers:
            assert n not in seen, f"stream {n}: {use} and {seen[n]}"
            seen[n] = use


def test_the_real_deck_runs_end_to_end_for_a_few_iterations():
    """Five cards from 52 (the abstract game the sampled solver takes): two iterations, then the average
    strategy is a strategy and its values on fresh deals are finite and within the stacks."""
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game("nl27(ranks=13,suits=4,hand=5,stacks=20)").sampled_form()
    assert game.spec == "nl27(suits=4,hand=5,stacks=20,draw=rule,post=1024)"
    solver = SampledSolver(game, batch=600, seed=3, shards=4)
    try:
        solver.solve(2)
        average = solver.average_strategy().tables
        kernel = solver.kernel
        assert average["btn_pre"].shape == (134_459, kernel.n_pre[0], 1, kernel.pre_width)
        for name, table in average.items():
            assert np.allclose(table.astype(np.float64).sum(-1), 1, atol=2e-3), name
        deals = kernel.sample_deals(5, 0, 0, 500)
        values = kernel.deal_values({n: t.astype(np.float32) for n, t in average.items()}, deals)
        assert np.isfinite(values).all() and np.abs(values).max() <= 20
    finally:
        solver.close()


def test_sampled_deals_of_a_class_are_unbiased_against_every_deal_of_it():
    """A class's sums on deals drawn for it (its representative hand, the cycle over the other hands,
    the stub) approach the mean over every deal holding that hand, counted by enumeration."""
    kernel = SampledNl27(load_game("nl27(ranks=5,suits=2,hand=1,stacks=4,draw=rule,post=value)"))
    tables = random_tables(kernel, 9)
    every = every_deal(kernel)
    for player in (0, 1):
        for c in (0, 3):
            hand = kernel.classes.representative(np.array([c]))[0]
            exact = every[(every[:, player] == hand[0])]
            counts = np.zeros(kernel.n_classes, np.int64)
            counts[c] = len(exact)
            want = kernel.class_sums(tables, exact, player, counts)
            n = 40_000
            counts[c] = n
            drawn = kernel.sample_blocks_deals(3, [(1, 7, c)], player, c, [np.array([n])], 1,
                                               before=np.array([0]))
            assert (drawn[:, player] == hand[0]).all()
            got = kernel.class_sums(tables, drawn, player, np.array([n]), first=c)
            name = ("btn_pre", "bb_pre")[player]
            scale = np.abs(want[name].q[0] / len(exact)).max()
            np.testing.assert_allclose(got[name].q[0] / n, want[name].q[0] / len(exact), atol=0.03 * scale + 1e-3)


def test_train_resumes_from_the_spec_the_run_was_started_with(tmp_path):
    """The checkpoint holds the game with its abstractions filled in; the user's spec names none."""
    from distcfr.train import main

    argv = ["--game", "nl27(ranks=6,suits=2,hand=2,stacks=5)", "--sampling", "--batch", "500", "--bracket-samples",
            "2", "--workers", "0", "--quiet", "--no-tables"]
    ckpt, resumed, straight = tmp_path / "run.ckpt", tmp_path / "resumed.msgpack", tmp_path / "straight.msgpack"
    assert main([*argv, "--iterations", "4", "--checkpoint", str(ckpt), "--out", str(tmp_path / "first.msgpack")]) == 0
    assert main([*argv, "--iterations", "8", "--resume", str(ckpt), "--out", str(resumed)]) == 0
    assert main([*argv, "--iterations", "8", "--out", str(straight)]) == 0
    assert resumed.read_bytes() == straight.read_bytes()

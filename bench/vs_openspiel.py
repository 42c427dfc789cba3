"""distcfr against OpenSpiel's CFR+ on Kuhn poker and Leduc hold'em, side by side in one run.

    python bench/vs_openspiel.py            # full run, a few minutes on 2 cores
    python bench/vs_openspiel.py --quick    # smoke test, under a minute

Solvers: distcfr's default (``Solver(game)``, algorithm "auto"), distcfr's ``cfr+``,
OpenSpiel's C++ ``pyspiel.CFRPlusSolver`` and OpenSpiel's Python ``cfr.CFRPlusSolver`` (which
gets a wall budget of solving time and is reported as "not reached" where it runs out).

Method. Every solver runs its iterations (one iteration = an update of both players) and is
stopped at the same iteration counts: every iteration up to 20, every 5 up to 100, then every
10. At each stop its average policy is measured THE SAME WAY for every solver, by OpenSpiel's
C++ ``pyspiel.exploitability`` ((BR1 + BR2) / 2); distcfr's average strategy is exported
first into a ``pyspiel.TabularPolicy`` (distcfr's infosets are ranks only, so one distcfr row
fills every OpenSpiel infostate that differs only by suits). Only the iterations are timed:
policy export, averaging and evaluation are excluded for every solver, and so is the setup
(building the solver), which is shown in its own column. A target counts as reached at the
first stop where the exploitability is at or below it, so iteration counts have the
resolution of the schedule. The card mapping is checked on every showdown, and at the start
(uniform strategy) and the end, distcfr's own exact exploitability must agree with
OpenSpiel's on the exported policy to 1e-9.

Reading the ratios: "x C++" is OpenSpiel C++ CFR+'s figure divided by the solver's, so above
1 means faster than OpenSpiel C++: for ms/iter it is C++ ms/iter / solver ms/iter, and for a
target it is C++ time to the target / solver time to the target (which includes the effect
of needing fewer iterations). "< N" means the solver did not get there within its budget,
so its ratio is at most N. The evaluation table compares the cost of one exact
exploitability evaluation: distcfr's ``Strategy.exploitability()`` against
``pyspiel.exploitability`` on OpenSpiel C++'s average policy (median of repeats).
"""

from __future__ import annotations

import argparse
import copy
import importlib.metadata
import itertools
import os
import platform
import statistics
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr as os_cfr

import distcfr

OS_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}  # distcfr spec -> OpenSpiel game
CODES = {"kuhn": "pb", "leduc": "fcr"}  # OpenSpiel action id -> distcfr action code
RANKS = "JQK"
MAX_ITERATIONS = 20_000


def rank(game: str, card: int) -> int:
    """OpenSpiel card -> rank index into RANKS (Kuhn: the card; Leduc: card // 2, two suits
    per rank). Verified on every showdown by check_cards()."""
    return card if game == "kuhn" else card // 2


def check_cards(game: str, os_game) -> None:
    """Play every deal to a check-down showdown and compare OpenSpiel's payoff with the
    ranking implied by rank(): pairs with the board (Leduc) beat high card, higher rank wins."""
    n_cards = len(os_game.new_initial_state().chance_outcomes())
    n_dealt = 2 if game == "kuhn" else 3
    for deal in itertools.permutations(range(n_cards), n_dealt):
        state = os_game.new_initial_state()
        state.apply_action(deal[0])
        state.apply_action(deal[1])
        state.apply_action(CODES[game].index("p" if game == "kuhn" else "c"))
        state.apply_action(CODES[game].index("p" if game == "kuhn" else "c"))
        strength = [rank(game, c) for c in deal[:2]]
        if game == "leduc":
            state.apply_action(deal[2])
            state.apply_action(1)
            state.apply_action(1)
            board = rank(game, deal[2])
            strength = [s + 10 * (s == board) for s in strength]
        assert state.is_terminal()
        assert state.returns()[0] == np.sign(strength[0] - strength[1]), (deal, state.returns())


def infostate_table(game: str, d_game, os_game) -> dict[str, tuple[str, list[int]]]:
    """OpenSpiel infostate string -> (distcfr label, OpenSpiel legal actions), by walking
    OpenSpiel's whole tree; checks that the legal actions match distcfr's action codes."""
    table: dict[str, tuple[str, list[int]]] = {}

    def walk(state, cards: tuple, codes: tuple) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for card, _ in state.chance_outcomes():
                walk(state.child(card), cards + (card,), codes)
            return
        p = state.current_player()
        private = RANKS[rank(game, cards[p])]
        if len(cards) == 3:  # Leduc round 2: own rank / board rank
            private += "/" + RANKS[rank(game, cards[2])]
        label = f"{private}|{d_game.observation(codes, p)}"
        legal = state.legal_actions()
        assert [CODES[game][a] for a in legal] == [c for c, _ in d_game.actions(codes)], (label, legal)
        assert table.setdefault(state.information_state_string(), (label, legal)) == (label, legal)
        for a in legal:
            walk(state.child(a), cards, codes + (CODES[game][a],))

    walk(os_game.new_initial_state(), (), ())
    return table


def export(strategy, table) -> pyspiel.TabularPolicy:
    """A distcfr Strategy as an OpenSpiel C++ tabular policy."""
    rows = {label: list(strategy.action_probs(label).values()) for label, _ in table.values()}
    return pyspiel.TabularPolicy({info: list(zip(legal, rows[label], strict=True))
                                  for info, (label, legal) in table.items()})


def make_solvers(game: str, d_game, os_game, table):
    """name -> factory returning (step, snapshot, to_cpp_policy, rule name, distcfr solver or
    None): ``snapshot()`` copies the average policy cheaply, ``to_cpp_policy(snapshot)``
    turns it into a policy pyspiel.exploitability takes (done later, outside the timing)."""
    def distcfr_solver(algorithm):
        def build():
            s = distcfr.Solver(d_game, algorithm=algorithm)
            return s.step, s.average_strategy, lambda a: export(a, table), s.rule.name, s
        return build

    def cpp():
        s = pyspiel.CFRPlusSolver(os_game)
        # tabular_average_policy() is a copy; average_policy() would follow the live solver
        return s.evaluate_and_update_policy, s.tabular_average_policy, lambda p: p, "cfr+", None

    def python():
        s = os_cfr.CFRPlusSolver(os_game)
        # average_policy() returns one object updated in place: snapshot a copy
        return (s.evaluate_and_update_policy, lambda: copy.copy(s.average_policy()),
                os_policy.python_policy_to_pyspiel_policy, "cfr+", None)

    return {"distcfr default": distcfr_solver("auto"), "distcfr cfr+": distcfr_solver("cfr+"),
            "OpenSpiel C++ CFR+": cpp, "OpenSpiel Python CFR+": python}


EVAL_BATCH = 200  # iterations between batched evaluations of the snapshots


def next_stop(it: int) -> int:
    return it + (1 if it < 20 else 5 if it < 100 else 10)


def run(build, os_game, targets, budget_s):
    """Iterate to the smallest target, the budget of solving time or MAX_ITERATIONS.

    The average policy is snapshotted at every stop of the schedule (not timed) and the
    snapshots are evaluated in batches every EVAL_BATCH iterations: evaluating right after
    every few iterations would leave OpenSpiel's allocations and cache traffic in the next
    iterations' timing (measured: distcfr's Leduc iteration 0.31 ms undisturbed, 0.35-0.6 ms
    right after a pyspiel.exploitability call)."""
    t0 = time.perf_counter()
    step, snapshot, to_cpp_policy, rule, d_solver = build()
    setup_s = time.perf_counter() - t0
    solve_s, it, reached, expl = 0.0, 0, {}, float("nan")
    pending = []  # (iteration, solving seconds so far, policy snapshot)

    def evaluate_pending():
        nonlocal expl
        for at, seconds, snapshot in pending:
            expl = pyspiel.exploitability(os_game, to_cpp_policy(snapshot))
            for target in targets:
                if target not in reached and expl <= target:
                    reached[target] = (at, seconds)
        pending.clear()

    while len(reached) < len(targets) and solve_s < budget_s and it < MAX_ITERATIONS:
        stop = next_stop(it)
        t0 = time.perf_counter()
        for _ in range(stop - it):
            step()
        solve_s += time.perf_counter() - t0
        it = stop
        pending.append((it, solve_s, snapshot()))  # not timed
        if it % EVAL_BATCH == 0 or solve_s >= budget_s:
            evaluate_pending()
    evaluate_pending()
    return dict(rule=rule, setup_s=setup_s, solve_s=solve_s, iterations=it, expl=expl,
                reached=reached, budget_s=budget_s, solver=d_solver,
                policy=lambda: to_cpp_policy(snapshot()))


def median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def fmt_ratio(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def report_game(game: str, targets, budgets, quick: bool) -> None:
    d_game, os_game = distcfr.load_game(game), pyspiel.load_game(OS_NAMES[game])
    check_cards(game, os_game)
    table = infostate_table(game, d_game, os_game)
    uniform = distcfr.Solver(d_game).average_strategy()
    assert abs(uniform.exploitability() - pyspiel.exploitability(os_game, export(uniform, table))) < 1e-9

    results = {}
    for name, build in make_solvers(game, d_game, os_game, table).items():
        budget = budgets.get(name, budgets["default"])
        results[name] = r = run(build, os_game, targets, budget)
        print(f"  {game}: {name} done: {r['iterations']} iterations, {r['solve_s']:.1f} s, "
              f"exploitability {r['expl']:.3g}", file=sys.stderr, flush=True)
    ref = results["OpenSpiel C++ CFR+"]
    ref_ms = 1e3 * ref["solve_s"] / ref["iterations"]

    print(f"\n### {game} (OpenSpiel `{OS_NAMES[game]}`, {len(table)} OpenSpiel infostates = "
          f"{len({lab for lab, _ in table.values()})} distcfr infosets)\n")
    head = ["solver", "rule", "setup ms", "ms/iter", "iter/s", "ms/iter x C++"]
    for t in targets:
        head += [f"to {t:.0e}: iters", f"to {t:.0e}: s", f"to {t:.0e}: x C++"]
    head += ["last: iters", "last: exploitability"]
    print("| " + " | ".join(head) + " |\n|" + " --- |" * len(head))
    for name, r in results.items():
        ms = 1e3 * r["solve_s"] / r["iterations"]
        row = [name, r["rule"], f"{1e3 * r['setup_s']:.1f}", f"{ms:.3f}", f"{1e3 / ms:,.0f}",
               fmt_ratio(ref_ms / ms)]
        for t in targets:
            ref_t = ref["reached"].get(t)
            if t in r["reached"]:
                its, s = r["reached"][t]
                row += [f"{its:,}", f"{s:.3f}", fmt_ratio(ref_t[1] / s) if ref_t else "n/a"]
            else:
                row += [f"not reached within {r['solve_s']:.0f} s", "-",
                        f"< {fmt_ratio(ref_t[1] / r['solve_s'])}" if ref_t else "n/a"]
        row += [f"{r['iterations']:,}", f"{r['expl']:.3g}"]
        print("| " + " | ".join(row) + " |")

    print("\nCross-check at the last point (distcfr's own exact exploitability vs "
          "`pyspiel.exploitability` of the exported policy):\n")
    print("| solver | iterations | distcfr | OpenSpiel | difference |\n| --- | --- | --- | --- | --- |")
    for name, r in results.items():
        if r["solver"] is not None:
            ours, theirs = r["solver"].average_strategy().exploitability(), r["expl"]
            assert abs(ours - theirs) < 1e-9, (name, ours, theirs)
            print(f"| {name} | {r['iterations']:,} | {ours:.12f} | {theirs:.12f} | "
                  f"{abs(ours - theirs):.1e} |")

    d_solver = results["distcfr default"]["solver"]
    strategies = iter([d_solver.average_strategy() for _ in range(50)])  # fresh ones: results are cached
    d_ms = median_ms(lambda: next(strategies).exploitability(), 50)
    cpp_policy = ref["policy"]()
    reps = 50 if game == "kuhn" else 3 if quick else 7
    os_ms = median_ms(lambda: pyspiel.exploitability(os_game, cpp_policy), reps)
    print(f"\nOne exact exploitability evaluation: distcfr `Strategy.exploitability()` {d_ms:.3f} ms, "
          f"`pyspiel.exploitability` {os_ms:.3f} ms ({fmt_ratio(os_ms / d_ms)}x).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke test: Leduc to 1e-3 only, small budgets")
    args = parser.parse_args()
    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    print("## distcfr vs OpenSpiel CFR+\n")
    print(f"Command: `python bench/vs_openspiel.py{' --quick' if args.quick else ''}`  ")
    print(f"Machine: {os.cpu_count()} cores (`nproc` {len(os.sched_getaffinity(0))}), {cpu}, "
          f"load average {os.getloadavg()[0]:.2f} at start  ")
    print(f"Versions: distcfr {distcfr.__version__}, open-spiel {importlib.metadata.version('open_spiel')}, "
          f"numpy {np.__version__}, Python {platform.python_version()}")
    quick = args.quick
    report_game("kuhn", (1e-3, 1e-4), {"default": 10.0 if quick else 60.0}, quick)
    report_game("leduc", (1e-3,) if quick else (1e-3, 1e-4),
                {"default": 30.0 if quick else 180.0, "OpenSpiel Python CFR+": 8.0 if quick else 60.0}, quick)


if __name__ == "__main__":
    main()

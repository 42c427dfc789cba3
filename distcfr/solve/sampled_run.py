"""A sampled run's policy: when it brackets its progress and on how many deals, how long the next
bracket is expected to take, when progress brackets stop saying anything, when a target is given
up, its value readings, and the final bracket, whose default effort follows the run's own size.

:class:`SampledRun` is the run's :class:`~distcfr.solve.run.RunHooks`; all its state is built in its
constructor. What it has to say goes to a :class:`SampledRunReport` (the command line prints it; the
default says nothing)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from distcfr.engine.calibration import BRACKET_ROUND_COST
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS, drawn_deals, refine_steps
from distcfr.errors import BadParameter
from distcfr.evaluate.class_strategy import default_per_class, exact_seconds
from distcfr.evaluate.reach import noise_bound, out_of_reach, target_summary
from distcfr.evaluate.summary import add_exact, bracket_cost, sampled_summary, settling
from distcfr.evaluate.units import amount, duration, exploitability_text
from distcfr.solve.run import RunHooks

DEFAULT_MINUTES = 10.0  # a sampled solve given no stopping rule
EVAL_SHARE = 0.1  # progress brackets take at most this share of a run's time
PROGRESS_SHARE = 4  # a progress bracket has this many times fewer deals per class than the final one
# a run without a target makes progress brackets only of at least this many deals per class: with fewer, a
# bracket reads the best response's luckiest discards, not the strategy
MIN_PROGRESS_PER_CLASS = 16
# a value reading (the button's value per stack on fixed deals, at each progress evaluation and the end) has
# about READ_DEALS deals, and from MIN_READ_PER_CLASS to MAX_READ_PER_CLASS per hand class
READ_DEALS, MIN_READ_PER_CLASS, MAX_READ_PER_CLASS = 200_000, 8, 4096
READ_SHARE = 0.05  # and they take at most this share of the run's time
SAY_FINAL_BRACKET_TIME = 10.0  # seconds: a final bracket expected to take longer says so as it starts
# the final bracket's default effort: at most this share of the run's solving time, or FINAL_FLOOR_SECONDS where
# that is more (a run of seconds still gets a bracket worth reading); the full default is --bracket-samples away
FINAL_SHARE = 0.5
FINAL_FLOOR_SECONDS = 30.0
MIN_FINAL_PER_CLASS = 2


@dataclasses.dataclass(frozen=True)
class BracketOptions:
    """What a run's brackets are asked for on the command line: the final bracket's deals per hand class,
    refinement rounds and focus share (None: the defaults; the final bracket's default effort is sized to
    the run). Each bracket itself is made with a :class:`~distcfr.engine.sampled_bracket.BracketSettings`."""

    per_class: int | None = None
    rounds: int | None = None
    focus: int | None = None
    seed: int | None = None  # None: the bracket's own stream (distcfr.evaluate.class_strategy.BRACKET_SEED)

    @property
    def sized(self) -> bool:
        """Whether the final bracket's effort is left to the run's size (neither deals nor rounds given)."""
        return self.per_class is None and self.rounds is None


@dataclasses.dataclass(frozen=True)
class FinalBracketPlan:
    """The final bracket as it will be made: its deals per hand class, rounds, focus share, the seconds
    it is expected to take (None: no estimate) and the full default it stands in for."""

    per_class: int
    rounds: int
    focus: int
    expected: float | None
    full_per_class: int
    full_rounds: int

    @property
    def reduced(self) -> bool:
        return (self.per_class, self.rounds) != (self.full_per_class, self.full_rounds)


class SampledRunReport:
    """Where a sampled run says what it decided: ``note`` a line beside the progress, ``say`` a line of
    the run's end work; ``out_of_reach`` once the target looks out of reach (its target summary)."""

    def note(self, text: str) -> None:
        """A line printed above the progress line."""

    def say(self, text: str) -> None:
        """A line of the run's end work (the final bracket, files)."""

    def out_of_reach(self, summary: dict) -> None:
        """The target looks out of the brackets' reach (:func:`~distcfr.evaluate.reach.target_summary`)."""

    def before_save(self, checkpoint) -> None:
        """A checkpoint is about to be written."""

    def after_save(self, path, iteration: int) -> None:
        """A checkpoint's file is whole."""


class SampledRun(RunHooks):
    """The policy of a sampled run of ``solver`` (a SampledSolver, or any solver with ``bracket``,
    ``values``, ``kernel``, ``deals_done``): progress brackets of a quarter of the final one's samples;
    with a ``target``, one whose upper end meets it (or which says the target is out of reach) is a
    screen: a bracket of the final samples then decides. ``iterations`` and ``seconds`` are the run's
    limits (the plan's); ``fits``: whether brackets and readings fit beside the run (memory)."""

    def __init__(self, solver, settings: BracketOptions, report: SampledRunReport | None = None, *,
                 iterations: int | None = None, target: float | None = None, seconds: float | None = None,
                 eval_every: int = 10, fits: bool = True):
        self.report = report or SampledRunReport()
        self.settings, self.target, self.iterations, self.time_limit = settings, target, iterations, seconds
        self.eval_every, self.target_only = eval_every, iterations is None and seconds is None
        self.n_classes, self.labels, self.unit = solver.kernel.n_classes, solver.game.variant_labels, solver.game.unit
        self.full_per_class = settings.per_class or default_per_class(solver.kernel)
        refines = solver.kernel.refines
        if not refines and (settings.rounds or settings.focus):
            raise BadParameter(f"{solver.game.name}'s bracket has no refinement or focus rounds: leave out "
                               "--bracket-rounds and --bracket-focus")
        self.full_rounds = (REFINE_ROUNDS if settings.rounds is None else settings.rounds) if refines else 0
        self.per_class = max(2, self.full_per_class // PROGRESS_SHARE)  # progress brackets'
        self.focus = (FOCUS_SHARE if settings.focus is None else settings.focus) if refines else 0
        self.bracket_kw = {} if settings.seed is None else {"seed": settings.seed}
        self.evaluates = fits and (target is not None or self.per_class >= MIN_PROGRESS_PER_CLASS)
        self.reads = fits  # a reading fits beside the run where a bracket does
        self.eval_share, self.read_share = EVAL_SHARE, READ_SHARE  # the plan's shares of the run's time
        self.read_per_class = int(np.clip(READ_DEALS // self.n_classes, MIN_READ_PER_CLASS, MAX_READ_PER_CLASS))
        self.start, self.first_iteration, self.first_deals = time.perf_counter(), solver.iteration, solver.deals_done
        self.latest = None  # (iteration, bracket): the latest bracket
        self.history: list[dict] = []  # each bracket's figures
        self.readings: list[dict] = []  # value readings, on the same deals each time
        self.gave_up = self.warned = False
        self.told_wait = False  # the run said when its first progress bracket fits its share of the time
        self.final_in_run = 0.0  # seconds of a final bracket made at the run's last iteration
        self.final: FinalBracketPlan | None = None  # decided as the final bracket starts
        if fits and not self.evaluates:
            self.report.say(f"  progress brackets: none; at {self.per_class:,} deals per hand class (a quarter of the "
                            f"final bracket's) they could not tell this strategy from an equilibrium; "
                            f"{self.final_words()} comes at the end, and value readings say how far the values "
                            f"still move")

    @property
    def sized_final(self) -> bool:
        """Whether the final bracket's effort is sized to the run (none given, no target to hold it to)."""
        return self.settings.sized and not self.target

    def final_words(self) -> str:
        """The final bracket in words: its deals per class, or that they follow the run's size."""
        return "the final bracket, sized to the run," if self.sized_final else \
            f"the final bracket, {self.final_per_class:,} per class,"

    @property
    def final_per_class(self) -> int:
        """The final bracket's deals per hand class where it is not sized to the run (a target's check)."""
        return self.full_per_class

    # ---- the run's hooks ----------------------------------------------------------------------------------------
    def before_save(self, checkpoint) -> None:
        self.report.before_save(checkpoint)

    def after_save(self, path, iteration: int) -> None:
        self.report.after_save(path, iteration)

    def give_up(self) -> bool:
        """Whether the latest bracket says the target is out of its reach (a run with no other stopping
        rule then ends: it could not end otherwise)."""
        if not self.target_only:
            return False
        self.gave_up = out_of_reach(self.latest[1], self.target)
        return self.gave_up

    def forecast(self, solver) -> float:
        """How long the next progress bracket is expected to take: the last one's time, or before the first,
        its drawn deals at the kernel's ``bracket_deal_cost`` training deals each (at the run's rate so
        far), and its rounds (:func:`round_factor`); a first that does not fit the brackets' share of the
        time yet says once when it will."""
        if self.target:
            return 0.0
        if self.history:
            return self.history[-1]["eval_seconds"]
        elapsed = time.perf_counter() - self.start
        expected = (solver.kernel.bracket_deal_cost * drawn_deals(self.per_class, self.n_classes)
                    * self.seconds_per_deal(solver)
                    * round_factor(self.full_rounds, self.focus))
        if expected > EVAL_SHARE * elapsed and not self.told_wait:
            self.told_wait = True
            when = expected / EVAL_SHARE
            after = ("none comes before the run's end" if self.time_limit and when > self.time_limit else
                     f"the first comes after about {duration(when)} of the run")
            self.report.note(f"  progress brackets: one of {self.per_class:,} deals per hand class may take about "
                             f"{duration(expected)}; kept to {EVAL_SHARE:.0%} of the run's time, {after} "
                             f"({self.final_words()} comes at the end)")
        return expected

    def seconds_per_deal(self, solver) -> float:
        """Seconds per training deal: the latest whole iteration's (which the run's brackets, readings and
        start-up do not slow, and which follows the strategy as it grows sparse), else the run's so far."""
        if solver.step_rate is not None:
            return solver.step_rate
        elapsed = time.perf_counter() - self.start
        return elapsed / max(solver.deals_done - self.first_deals, 1)

    def read(self, solver) -> None:
        """A value reading of the average strategy: the button's value per stack on the same deals
        every time (``solver.values``), so that readings of the run show how far its values still move."""
        value, se = solver.values(self.read_per_class)
        self.readings.append({"seconds": time.perf_counter() - self.start, "iteration": solver.iteration,
                              "value": value.tolist(), "value_se": se.tolist()})

    def keep_evaluating(self) -> bool:
        """Whether progress brackets go on (a run without a target): not once one is noise-bound
        (:func:`~distcfr.evaluate.reach.noise_bound`), which is said once; the final bracket still
        comes at the end."""
        iteration, bracket = self.latest
        if not noise_bound(bracket):
            return True
        text, worst = self.worst_stack(bracket)
        self.report.note(f"  progress brackets stop at iteration {iteration:,}: at {bracket.per_class:,} deals per "
                         f"hand class they cannot tell this strategy from an equilibrium: {text}, all within the "
                         f"bracket's resolution {amount(float(bracket.resolution()[worst]), self.unit)}; "
                         + (f"the final bracket has {self.final_per_class:,} per class" if not self.sized_final else
                            "the final bracket, sized to the run, comes at the end"))
        return False

    def evaluate(self, solver) -> float:
        """A bracket of the average strategy now; returns its upper end (the worst stack's). With a
        target, a quarter-sample bracket that would stop the run is checked on the final samples; at
        the run's last iteration the final bracket itself, which its end keeps (not a screen first)."""
        began = time.perf_counter()
        if self.iterations is not None and solver.iteration >= self.iterations:
            bracket = self.record(solver, self.announced_final_bracket(solver, self.report.note), began)
            self.final_in_run = self.history[-1]["eval_seconds"]  # the end's work, not the run's: not in its time
        else:
            bracket = self.screened_bracket(solver, began)
        if self.target and not self.warned and out_of_reach(bracket, self.target):
            self.warned = True
            self.report.out_of_reach(self.target_summary(solver, bracket))
        return float(bracket.interval()[1].max())

    def at_end(self, solver) -> None:
        """The run's end work on its workers (where a lost worker is recovered from): the last value
        reading, the final bracket and the average strategy, kept in ``self.result``."""
        read = not self.readings or self.readings[-1]["iteration"] != solver.iteration
        if read and self.reads:
            self.read(solver)  # the run's last reading, before the final bracket's time
        self.result = (*self.final_bracket(solver), solver.average_strategy())

    # ---- brackets -----------------------------------------------------------------------------------------------
    def bracket(self, solver, per_class: int, rounds: int | None = None):
        return solver.bracket(per_class, rounds=self.full_rounds if rounds is None else rounds, focus=self.focus,
                              **self.bracket_kw)

    def screened_bracket(self, solver, began: float):
        """A progress bracket of a quarter of the samples (recorded); with a target, one that would stop
        the run is checked on the final samples, which then decide. The first says what one costs."""
        bracket = screen = self.bracket(solver, self.per_class)
        screened = time.perf_counter()
        checks = self.target and self.per_class < self.final_per_class
        if checks and (screen.interval()[1].max() <= self.target or out_of_reach(screen, self.target)):
            bracket = self.bracket(solver, self.final_per_class)  # what the run stops on, and prints at its end
        bracket = self.record(solver, bracket, began, screened if bracket is not screen else began)
        if len(self.history) == 1:
            check = f"; one that would stop the run is checked on {self.final_per_class:,}" if checks else ""
            self.report.note(f"  bracket: {self.per_class:,} deals per hand class "
                             f"({drawn_deals(self.per_class, self.n_classes):,} deals, "
                             f"{screen.extra_deals:,} more refining close classes, {screen.focus_deals:,} "
                             f"choosing again the least certain) in {screened - began:.3g} s; "
                             f"one at most every {self.eval_every} iteration(s), kept to {EVAL_SHARE:.0%} of "
                             f"the run's time" + check)
        return bracket

    def record(self, solver, bracket, began: float, bracket_began: float | None = None):
        """Keep ``bracket`` as the latest and its figures in the history; returns it. The evaluation
        began at ``began``, the bracket itself at ``bracket_began`` (later where a screen came first)."""
        now = time.perf_counter()
        self.latest = (solver.iteration, bracket)
        self.history.append({"seconds": now - self.start, "iteration": solver.iteration,
                             "low": float(bracket.low.max()), "high": float(bracket.high.max()),
                             "upper": float(bracket.interval()[1].max()), "per_class": bracket.per_class,
                             "eval_seconds": now - began, "bracket_seconds": now - (bracket_began or began)})
        return bracket

    def target_summary(self, solver, bracket) -> dict:
        """Where the run stands against its target (:func:`~distcfr.evaluate.reach.target_summary`), what
        its brackets cost (the final one's included) and whether it gave up on it."""
        wall = time.perf_counter() - self.start
        done = max(solver.iteration - self.first_iteration, 1)
        return {**target_summary(self.target, bracket, solver.game.variant_labels, self.history, solver.iteration,
                                 wall / done),
                "gave_up": self.gave_up, "eval_seconds": sum(h["eval_seconds"] for h in self.history),
                "wall_seconds": wall}

    def worst_stack(self, bracket) -> tuple[str, int]:
        """(text, index) of the bracket's worst stack by its upper end: upper estimate and 95% interval,
        and which stack it is where there are several."""
        labels, (low, high) = self.labels, bracket.interval()
        worst = int(np.argmax(high))
        where = f" at {labels[worst]}, the worst of {len(labels)} stacks" if len(labels) > 1 else ""
        return exploitability_text(float(bracket.high[worst]), self.unit, (low[worst], high[worst])) + where, worst

    # ---- the final bracket --------------------------------------------------------------------------------------
    def final_bracket(self, solver) -> tuple:
        """(bracket, seconds it took): the run's last evaluation where it is of this iteration and the final
        samples (a target met or an iteration cap), else a new bracket (recorded when the run has a target,
        for its rate)."""
        final = self.final.per_class if self.final else self.final_per_class
        if self.latest and self.latest[0] == solver.iteration and self.latest[1].per_class == final:
            return self.latest[1], self.history[-1]["bracket_seconds"]  # its own time, not its screen's
        began = time.perf_counter()
        bracket = self.announced_final_bracket(solver, self.report.say)
        seconds = time.perf_counter() - began
        return (self.record(solver, bracket, began) if self.target else bracket), seconds

    def plan_final(self, solver) -> FinalBracketPlan:
        """The final bracket's deals per class and rounds: as given, or the full default where it fits
        in FINAL_SHARE of the run's solving time (FINAL_FLOOR_SECONDS at least), else fewer deals, then
        fewer rounds, until it does (a run with a target is held to the full default: it stops on it)."""
        full, rounds = self.full_per_class, self.full_rounds
        unit = self.seconds_per_class(solver)
        if not self.sized_final or unit is None:
            cost = None if unit is None else unit(full, rounds)
            return FinalBracketPlan(full, rounds, self.focus, cost, full, rounds)
        solving = time.perf_counter() - self.start - sum(h["eval_seconds"] for h in self.history)
        budget = max(FINAL_SHARE * solving, FINAL_FLOOR_SECONDS)
        per_class, fewer = MIN_FINAL_PER_CLASS, 0
        for fewer in range(rounds, -1, -1):
            per_class = min(full, int(budget / unit(1, fewer)))
            if per_class >= MIN_FINAL_PER_CLASS:
                break
        per_class = max(per_class, MIN_FINAL_PER_CLASS)
        return FinalBracketPlan(per_class, fewer, self.focus, unit(per_class, fewer), full, rounds)

    def seconds_per_class(self, solver):
        """``cost(per_class, rounds)``: a final bracket's expected seconds, from the run's latest progress
        bracket of its second half (scaled by the deals), else from the run's rate: the kernel's ``bracket_deal_cost``
        training deals a drawn deal, times its rounds' :func:`round_factor`; None where the run has no rate
        (no iteration)."""
        progress = [h for h in self.history if h["per_class"] == self.per_class]
        rate = self.seconds_per_deal(solver) if solver.deals_done > self.first_deals else None
        if progress and 2 * progress[-1]["iteration"] >= solver.iteration:
            took, rounds = progress[-1]["bracket_seconds"], self.full_rounds
            return lambda per_class, r: (took * per_class / self.per_class
                                         * round_factor(r, self.focus) / round_factor(rounds, self.focus))
        if rate is None:
            return None
        base = solver.kernel.bracket_deal_cost * drawn_deals(1, self.n_classes) * rate
        return lambda per_class, r: base * per_class * round_factor(r, self.focus)

    def announced_final_bracket(self, solver, say):
        """The final bracket, announced by ``say`` as it starts with what it will cost. The run's iterations
        are over: the current strategy's memory goes to it."""
        self.final = plan = self.plan_final(solver)
        solver.release_strategy()
        cost = "" if plan.expected is None or plan.expected < SAY_FINAL_BRACKET_TIME else \
            f"; about {duration(plan.expected)}"
        full = ""
        if plan.reduced:
            rounds = f" --bracket-rounds {plan.full_rounds}" if solver.kernel.refines else ""
            full = (f" (sized to the run; the full default, --bracket-samples {plan.full_per_class:,}{rounds}, "
                    f"may take about "
                    f"{duration(self.seconds_per_class(solver)(plan.full_per_class, plan.full_rounds))})")
        refine = f", {refine_text(plan.per_class, plan.rounds)}" if solver.kernel.refines else ""
        say(f"  final exploitability bracket: {plan.per_class:,} deals per hand class, "
            f"{drawn_deals(plan.per_class, self.n_classes):,} deals" + refine + cost + full)
        return self.bracket(solver, plan.per_class, plan.rounds)

    def end_bound(self) -> str:
        """In words, how long the final bracket may take at most where its effort is sized to the run."""
        if not self.sized_final:
            return ""
        return (f"the final bracket takes at most about {FINAL_SHARE:.0%} of the solving time "
                f"({duration(FINAL_FLOOR_SECONDS)} at least; --bracket-samples or --bracket-rounds: the full default)")


    def end_summary(self, solver, result, workers: int) -> dict:
        """The summary of a run ``result`` (its RunResult) once its final bracket is in; the run's time
        becomes its iterations' own (progress brackets in, the final bracket out). ``workers``: the run's."""
        bracket, seconds, _ = self.result
        game, classes = solver.game, solver.kernel.n_classes
        result.wall_seconds -= self.final_in_run
        summary = sampled_summary(game, solver, bracket, result.wall_seconds, result.iterations_run,
                                  solver.deals_done - self.first_deals)
        summary["bracket"] = bracket_cost(bracket, classes, seconds, workers)
        summary["bracket_history"] = self.history
        summary["settling"] = settling(self.readings, game.variant_values, self.read_per_class,
                                       self.read_per_class * classes)
        if self.target:
            summary["target"] = self.target_summary(solver, bracket)
        return summary


def round_factor(rounds: int, focus: int) -> float:
    """A bracket's time over that of the same bracket without refinement or focus rounds: ``rounds``
    refinement rounds and a focus round where ``focus`` (its share) is not 0, BRACKET_ROUND_COST each."""
    return 1 + BRACKET_ROUND_COST * (rounds + (1 if focus else 0))


def add_exact_or_hint(summary: dict, game, strategy, exact: bool, say) -> None:
    """With ``exact``, the exact exploitability of ``strategy`` as its file keeps it (``say``s first how
    long it may take); without, where that is in reach, how long it would take (``exact_hint``, seconds)."""
    if not exact:
        seconds = exact_seconds(game)
        if seconds is not None:
            summary["exact_hint"] = seconds
        return
    say(f"  exact exploitability of the saved strategy, every deal enumerated: about {duration(exact_seconds(game))}")
    began = time.perf_counter()
    add_exact(summary, strategy.as_stored().exact_exploitability(), time.perf_counter() - began)


def refine_text(per_class: int, rounds: int = REFINE_ROUNDS) -> str:
    """What the refinement adds to a bracket of ``per_class`` deals per class in ``rounds``, in words."""
    if not rounds:
        return "no refinement of close classes (--bracket-rounds 0)"
    first, *later = refine_steps(per_class, rounds=rounds)
    again = "".join(f", {n:,} more for each still close" for n in later)
    return f"plus {first:,} for each class whose best response is close{again}"

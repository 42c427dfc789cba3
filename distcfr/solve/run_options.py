"""What a run's options allow, decided before it starts: the checkpoint it continues (checked against
the options it is given), and the options its mode cannot use (refused, never ignored). ``options`` is
the command line's namespace, or any object with its attributes (distcfr.train's parser)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from distcfr.engine.rules import AUTO, RULES
from distcfr.errors import BadParameter
from distcfr.evaluate.class_strategy import check_exact_reach
from distcfr.games.registry import load_game
from distcfr.io.paths import check_writable
from distcfr.solve.checkpoint import load_checkpoint
from distcfr.solve.launch import open_solver, resume_solver, use_sampling

SAMPLED_ONLY = ("batch", "seed", "deal_shares", "bracket_samples", "bracket_rounds", "bracket_focus",
                "exact_exploitability")  # options only a sampled solve uses


def rule_params() -> dict[str, list[tuple[str, float, str]]]:
    """Every update rule's parameter (an option each): name -> [(rule, default, meaning)]."""
    params: dict[str, list] = {}
    for kind in RULES.values():
        for name, default in kind.params.items():
            params.setdefault(name, []).append((kind.name, default, kind.param_help.get(name, "")))
    return params


def what_to_run(options, say: Callable[[str], None], default_game: str) -> tuple:
    """(checkpoint or None, game, sampled): the run the options ask for, checked before anything starts
    (:func:`checkpoint_to_resume`, :func:`refuse_unused`, every output writable)."""
    checkpoint = checkpoint_to_resume(options, say)
    game = load_game(checkpoint.game if checkpoint else (options.game or default_game))
    sampled = checkpoint.mode == "sampled" if checkpoint else use_sampling(game, options.sampling or None)
    refuse_unused(options, game, sampled)
    for path in (options.out, options.summary_json, options.checkpoint, options.plot):
        if path:
            check_writable(path)
    return checkpoint, game, sampled


def open_run_solver(options, game, sampled: bool, checkpoint, report: Callable[[str], None] | None):
    """The run's solver, started where the options say (distcfr.solve.launch): ``checkpoint``'s continued,
    or a new one of ``game``; ``report`` is told what the launch decides."""
    where = {"workers": options.workers, "address": options.address, "report": report,
             "needs_bracket": sampled and options.target_exploitability is not None}
    if checkpoint:
        return resume_solver(checkpoint, **where)
    return open_solver(game, sampling=sampled, algorithm=options.algorithm or AUTO, updates=options.updates,
                       shards=options.shards, batch=options.batch, seed=options.seed, deal_shares=options.deal_shares,
                       **where, **{name: getattr(options, name) for name in rule_params()})


def checkpoint_to_resume(options, say: Callable[[str], None]):
    """The checkpoint to continue from (``options.resume``, or an existing ``options.checkpoint``), or
    None; BadParameter where the options ask for another run than it holds. Sets ``options.checkpoint``
    to where the run's state is saved back (none with ``no_checkpoint``), and ``say``s so."""
    path = options.resume
    if path is None and options.checkpoint and Path(options.checkpoint).exists():
        path = options.checkpoint
    if path is None:
        return None
    checkpoint = load_checkpoint(path)
    sampled = checkpoint.mode == "sampled"
    game = options.game and load_game(options.game)
    if game and sampled:  # a sampled run saves the game it solved: the spec's, abstractions filled in
        game = game.sampled_form()
    given = {"game": game and game.spec, "algorithm": options.algorithm,
             "updates": options.updates, "shards": options.shards,
             "seed": options.seed if sampled else None, "batch": options.batch if sampled else None,
             "deal_shares": options.deal_shares if sampled else None}
    saved = {"game": checkpoint.game, "algorithm": checkpoint.rule.name, "updates": checkpoint.updates,
             "shards": checkpoint.shards, "seed": getattr(checkpoint, "seed", None),
             "batch": getattr(checkpoint, "batch", None), "deal_shares": getattr(checkpoint, "deal_shares", None)}
    for key, value in given.items():
        if value not in (None, AUTO) and value != saved[key]:
            raise BadParameter(f"checkpoint {path} is a {key}={saved[key]} run; the command line asks for "
                               f"{key}={value}")
    if options.sampling and not sampled:
        raise BadParameter(f"checkpoint {path} is an exact run; --sampling cannot continue it")
    say(f"resuming {checkpoint.game} from {path} at iteration {checkpoint.iteration}")
    if options.no_checkpoint:
        options.checkpoint = None
    elif options.checkpoint is None:
        options.checkpoint = path
        say(f"  the run's state is saved back to {path} (--no-checkpoint: leave it as it is)")
    return checkpoint


def refuse_unused(options, game, sampled: bool) -> None:
    """Options the run's mode cannot use are refused (BadParameter), never ignored."""
    if sampled:
        if options.refine_break_even is not None:
            raise BadParameter("--refine-break-even bisects exact single-stack solves; a sampled run cannot")
        if options.exact_exploitability:
            check_exact_reach(game)
        return
    if options.refine_break_even and (game.variant_values is None or len(game.variant_values) < 2):
        raise BadParameter("--refine-break-even needs a game solved for a list of stacks, e.g. stacks=1.5:10:0.5")
    given = [name for name in SAMPLED_ONLY if getattr(options, name) is not None]
    if given:
        raise BadParameter(f"--{given[0].replace('_', '-')} is a sampled solve's option; this run enumerates every "
                           "deal (add --sampling to sample it)")

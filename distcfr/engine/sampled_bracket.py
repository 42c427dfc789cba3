"""The sampled exploitability bracket's work, chunk by chunk (distcfr.evaluate.sampled puts the
chunks' sums together): a class's numbers depend on its own deals and rows only, so a chunk of
classes is evaluated wherever its rows lie (a sampled shard group) with the same bits."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from distcfr.engine.row_table import RowTable
from distcfr.engine.sampled_kernel import class_tables, key_tables
from distcfr.engine.streams import BRACKET_SETS, CLASS_DOMAIN, FOCUS_STREAM, REFINE_STREAM, VALUE_STREAM
from distcfr.stopping import abandon_if_stopped

BRACKET_CHUNK = 1 << 17  # deals evaluated together: bounds the bracket's memory at any size
BRACKET_ROW_BYTES = 1 << 26  # and responding rows copied together (they grow with the stacks)
REFINE = 4  # a close class's best response is chosen again on this many times more deals (0: never)
REFINE_ROUNDS = 2  # and again, as long as it stays close, at most this many times in all (4 x 14, then 4 x 70)
CLOSE_Z = 3.0  # close: a decision's top two actions within this many standard errors of their difference
_DEAL_Q_FLOATS = 1 << 22  # per-deal action values held together while testing classes for closeness
_CONTINUE = 1  # the parent decision's action whose value is its child decisions' (push, call)
BRACKET_STUBS = 1  # stubs per bracket deal: a deal's values are the mean over them (less noise a deal)
GATE_Z = 3.0  # the scored response plays the profile where its in-sample gain is not this many standard errors above 0
FOCUS_SHARE = 8  # the focus round's deals per player: this many times the player's two first sets, at most,
FOCUS_MOST = 1 << 25  # and this many (5 cards from 52 at 14 deals a class: 30 million, beside the bracket's 96)
FOCUS_CANDIDATES = 8  # classes a chunk puts forward for it: those of largest spread (see ChunkSums)
FOCUS_MIN_CUT = 0.25  # it runs where it cuts a player's part of the upper estimate's variance by this share at least
FOCUS_PIECE = 1 << 17  # in pieces of this many (a piece's stream is fixed by it: the same deals wherever drawn)



@dataclasses.dataclass(frozen=True)
class BracketSettings:
    """What one bracket is asked for, passed whole from the solver to the groups that evaluate it: its
    deal stream ``seed``, deals per hand class in each sample set, refinement rounds of the close
    classes and the focus round's share (0: none)."""

    seed: int
    per_class: int
    rounds: int = REFINE_ROUNDS
    focus: int = FOCUS_SHARE


@dataclasses.dataclass
class BracketSums:
    """One player's bracket sums over some hand classes, each (B,) float64 per stack in button payoff; a
    mean is hand-weighted, a ``*_var`` the variance of that mean: ``high`` the best response's in-sample
    gain over the profile (the upper estimate), ``low`` the same response's gain on independent deals
    (the lower one), ``value`` the profile's own value (player 0's sums; 0 in player 1's), ``latest``
    the latest iterate's gain as a response on the independent deals (0 without one); the deals drawn
    refining close classes (``refined_deals``) and in the focus round (``focus_deals``), alike in every
    stack. Sums add field by field, in chunk order (:func:`chunk_total`): the same bits wherever made."""

    high: np.ndarray
    high_var: np.ndarray
    low: np.ndarray
    low_var: np.ndarray
    value: np.ndarray
    value_var: np.ndarray
    refined_deals: np.ndarray
    latest: np.ndarray
    latest_var: np.ndarray
    focus_deals: np.ndarray

    @classmethod
    def zeros(cls, n_stacks: int) -> BracketSums:
        return cls(*(np.zeros(n_stacks) for _ in dataclasses.fields(cls)))

    def __add__(self, other: BracketSums) -> BracketSums:
        return BracketSums(*(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)))


def one_hot(values: np.ndarray) -> np.ndarray:
    """Pure strategy picking the largest value over the last axis."""
    return (np.arange(values.shape[-1]) == values.argmax(-1)[..., None]).astype(np.float64)


def best_response(game, profile: dict[str, np.ndarray], deals: np.ndarray, player: int) -> None:
    """Set ``player``'s rows in ``profile`` of the classes it holds in ``deals`` (grouped by that
    class, in class order) to a best response to the other player's rows on these deals: the kernel's
    own (``game.best_response``), which reads that class's deals and rows only."""
    game.best_response(profile, deals, player)


def class_best_response(game, profile: dict[str, np.ndarray], deals: np.ndarray, player: int) -> None:
    """:func:`best_response` of a kernel whose tables are all class tables with a two-level response
    in its ``response_order`` (draw27: the draws, then push / call given them). One pass of class
    sums: the parent's continuing action (push, call) is worth the sum over its child decisions of
    their rows times their values, so it follows the draws' change without a second pass. A class's
    values depend on its own rows only, so classes can be done in any groups."""
    ids = game.classes_held(deals, player)
    held, counts = np.unique(ids, return_counts=True)
    if (np.diff(ids) < 0).any():
        raise ValueError("best_response needs deals grouped by the player's class, in class order")
    got = game.class_sums(profile, deals, player, counts)  # rows: the classes held
    respond(game, profile, held, {name: got[name].q for name in game.response_order[player]}, player)


def respond(game, profile: dict[str, np.ndarray], held: np.ndarray, q: dict[str, np.ndarray], player: int) -> None:
    """Set ``player``'s rows ``held`` in ``profile`` to the best response to action values ``q``
    ({table: (len(held), *shape)}, class sums of ``profile`` on some deals: :func:`best_response`)."""
    child, parent = game.response_order[player]
    values = q[child].astype(np.float64)
    chosen = one_hot(values)
    change = (chosen - np.asarray(profile[child][held], dtype=np.float64)) * values
    top = q[parent].astype(np.float64)
    top[..., _CONTINUE] += np.moveaxis(change, -2, 1).reshape(len(held), top.shape[1], -1).sum(-1)
    profile[child][held] = chosen
    profile[parent][held] = one_hot(top)


def own_rows(game, sigma: dict, player: int, first: int, stop: int) -> dict:
    """``player``'s rows [first, stop) of every class table of ``sigma``, copied (a gather), and its
    key tables as the kernel's best response keeps them (``game.responder_keys``): a best response
    overwrites them and leaves ``sigma`` as it was."""
    rows = np.arange(first, stop)
    return {b.name: RowTable([first, stop], [np.asarray(sigma[b.name][rows])]) for b in class_tables(game)
            if b.player == player} | game.responder_keys(sigma, player)


def bracket_chunks(game, per_class: int) -> list[tuple[int, int]]:
    """The class ranges a bracket evaluates together (their deal streams are keyed by the first):
    at most ``BRACKET_CHUNK`` deals, and at most ``BRACKET_ROW_BYTES`` of what the responding player's
    best response holds (the kernel's ``response_bytes``: draw27's copy of its float16 rows, nl27's
    post-draw rows per class, key and pair)."""
    step = max(1, min(BRACKET_CHUNK // per_class, BRACKET_ROW_BYTES // game.response_bytes(per_class)))
    return [(first, min(first + step, game.n_classes)) for first in range(0, game.n_classes, step)]


def close_classes(game, profile: dict, deals: np.ndarray, player: int, per_class: int,
                  z: float = CLOSE_Z) -> np.ndarray:
    """(G,) bool: which of the G classes of ``player`` in ``deals`` (``per_class`` each, in class
    order; ``profile`` holds the player's best response on them) have a decision whose two best
    actions are within ``z`` standard errors of their mean difference on these deals (the same deals
    score both: common random numbers). The best response of such a class gains most by chance."""
    shapes = [game.strategy_table(name).shape for name in game.response_order[player]]
    step = max(1, _DEAL_Q_FLOATS // (per_class * max(int(np.prod(s)) for s in shapes)))
    out = np.zeros(len(deals) // per_class, dtype=bool)
    for lo in range(0, len(out), step):
        part = deals[lo * per_class:(lo + step) * per_class]
        got = game.class_sums(profile, part, player, np.ones(len(part), dtype=np.int64))  # per deal
        for name, shape in zip(game.response_order[player], shapes):
            q = got[name].q.astype(np.float64).reshape(-1, per_class, *shape)  # (g, n, ..., A)
            top = np.argsort(q.mean(1), axis=-1, kind="stable")[:, None, ..., -2:]  # second best, best
            diff = np.diff(np.take_along_axis(q, top, axis=-1), axis=-1)[..., 0]  # (g, n, ...) per deal
            close = diff.mean(1) < z * diff.std(1, ddof=1) / np.sqrt(per_class)
            out[lo:lo + step] |= close.reshape(len(close), -1).any(1)
    return out


def refine_deals(game, seed: int, player: int, first: int, close: np.ndarray, extra: int,
                 stubs: int = 1, round: int = 0) -> np.ndarray:
    """(close.sum() * extra, 2H + 2H stubs) deals: ``extra`` for each class first + i with
    ``close[i]``, in class order, class c's from the stream keyed by (seed, 1, REFINE_STREAM +
    2 round + player, c): its own, however the classes are grouped."""
    counts = [np.array([extra if c else 0]) for c in close]
    keys = [(CLASS_DOMAIN, REFINE_STREAM + 2 * round + player, first + i) for i in range(len(close))]
    return game.sample_blocks_deals(seed, keys, player, first, counts, stubs)


def drawn_deals(per_class: int, n_classes: int) -> int:
    """The deals a bracket of ``per_class`` draws for ``n_classes`` hand classes before any refinement:
    two independent sets (choose, score) per player, ``per_class`` for each class in each."""
    return 4 * per_class * n_classes


def refine_steps(per_class: int, refine: int = REFINE, rounds: int = REFINE_ROUNDS) -> list[int]:
    """The deals a close class gets in each refinement round, from ``per_class`` first ones: ``refine``
    x all it has so far (4 x 14, then 4 x 70 ...)."""
    return [refine * (1 + refine) ** r * per_class for r in range(rounds if refine > 0 else 0)]


def class_moments(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """((G, B) means, (G, B) variances of the means) of deal values grouped n per class."""
    by_class = values.reshape(-1, n, values.shape[-1])
    var = by_class.var(1, ddof=1) / n if n > 1 else np.zeros_like(by_class[:, 0])
    return by_class.mean(1), var


def gate_response(game, profile: dict, sigma: dict, player: int, rows: np.ndarray, gain: np.ndarray,
                  gain_var: np.ndarray, z: float) -> None:
    """Set ``player``'s rows ``rows`` in ``profile`` back to ``sigma``'s at each (class, stack) whose
    in-sample gain (G, B, button payoff, as :func:`bracket_chunk` keeps it) is not ``z`` standard
    errors above zero for ``player``: there the response gains nothing it has shown, and scored on
    other deals it adds only noise (or the loss of a choice that fitted its own deals). Still a
    strategy, so its scored gain stays a lower estimate."""
    play_profile(game, profile, sigma, player, rows, (1 - 2 * player) * gain <= z * np.sqrt(gain_var))


def no_worse_than_profile(game, profile: dict, sigma: dict, player: int, rows: np.ndarray, gain: np.ndarray,
                          gain_var: np.ndarray) -> None:
    """The in-sample response of each (class, stack) of ``rows``: the better, on the class's own deals,
    of the best response in ``profile`` and ``sigma``'s own rows (gain (G, B), button payoff, and its
    variance ``gain_var``, set in place). The best response is chosen on float32 class sums and the
    profile's float16 probabilities need not sum to one, so its gain can come out below the profile's
    own, which scores exactly 0 on the same deals: there the profile's rows come back, gain and variance
    0. The in-sample gain is then at least 0, and the best of responses that include the true best one
    on the deals it is valued on: still an upper estimate."""
    worse = (1 - 2 * player) * gain < 0  # (G, B)
    gain[worse], gain_var[worse] = 0.0, 0.0
    play_profile(game, profile, sigma, player, rows, worse)


def play_profile(game, profile: dict, sigma: dict, player: int, rows: np.ndarray, back: np.ndarray) -> None:
    """Set ``player``'s rows ``rows`` in ``profile`` back to ``sigma``'s at each (class, stack) of ``back`` (G, B)
    (key tables: the kernel's ``play_keys``)."""
    if not back.any():
        return
    for b in game.strategy_tables:
        if b.player == player and b.keyed == "class":  # the stack axis is second to last in every table
            at = back.reshape(len(rows), *[1] * (len(b.shape) - 2), back.shape[1], 1)
            profile[b.name][rows] = np.where(at, sigma[b.name][rows], profile[b.name][rows])
        elif b.player == player:
            game.play_keys(profile[b.name], rows, back)


def bracket_chunk(game, sigma: dict, seed: int, per_class: int, player: int, first: int,
                  stop: int, refine: int = REFINE, stubs: int = BRACKET_STUBS, gate: float = GATE_Z,
                  rounds: int = REFINE_ROUNDS, latest: dict | None = None, pilot: bool = True) -> ChunkSums:
    """What classes [first, stop) of ``player`` add to the bracket's sums (:class:`ChunkSums`: the
    :class:`BracketSums`, and the classes the focus round may choose again): the hand-weighted
    mean and variance of its best response's in-sample gain over the profile (button payoff: the
    best response's value less the profile's on the same deals, whose noise mostly cancels), of the
    same best response's gain on independent deals, and (player 0) of the profile's own value; then
    the refinement deals drawn; then (zeros without ``latest``) the mean and variance of the gain on
    the same independent deals of ``latest``, the player's rows of a strategy chosen without any
    bracket deal (a run's latest iterate: it has seen all of the run's deals).
    A class whose best response is close (:func:`close_classes`) chooses it again on ``refine`` x
    ``per_class`` more deals of its own stream (:func:`refine_deals`) with the first ones, and its
    in-sample value is taken on them all: less of the optimizer's curse where it is largest; a class
    still close on them all does it again (``refine`` x its deals so far, stream of the round), up to
    ``rounds`` rounds: the deals go where the two best actions stay hard to tell apart. The
    response scored on independent deals plays the profile wherever its in-sample gain is within
    ``gate`` standard errors of zero (:func:`gate_response`; ``-inf``: nowhere). Every
    deal holds ``stubs`` stubs and is worth the mean over them (the stub is most of a deal's noise).
    ``sigma`` holds the average strategy's tables (arrays or RowTables); a class's numbers depend
    on its own deals and rows only, so chunks can be evaluated anywhere, in any groups. With
    ``pilot``, the focus round's candidates are the classes of largest ``spread``: the standard deviation
    of one deal's gain of a best response chosen on the scoring deals, on them (the upper estimate's
    noise, shown by other deals: which classes the round takes must not depend on the estimate's own
    deals, or the estimates it leaves would be biased low)."""
    if key_tables(game):  # a latest iterate's key rows are not published with its class rows: not scored
        latest = None
    if not game.refines:  # the kernel's best response has no close classes to choose again
        rounds, pilot = 0, False
    if latest is not None:  # the chunk's rows of the responder's latest iterate (a copy)
        latest = {b.name: RowTable([first, stop], [np.asarray(latest[b.name][np.arange(first, stop)], np.float64)])
                  for b in class_tables(game) if b.player == player}
    weights = game.classes.hands_per_class[first:stop, None] / game.classes.hands_per_class.sum()
    rows = np.arange(first, stop)
    profile = {**sigma, **own_rows(game, sigma, player, first, stop)}  # overwritten by the best response
    choose, score = (game.sample_deals_of_classes(seed, stream, player, first, stop, per_class, stubs)
                     for stream in (BRACKET_SETS + 2 * player, BRACKET_SETS + 2 * player + 1))
    best_response(game, profile, choose, player)

    def gain(deals, n):  # per class, the best response's gain over the profile on the same deals
        return class_moments(game.deal_values(profile, deals) - game.deal_values(sigma, deals), n)

    moments = [gain(choose, per_class)]

    steps = refine_steps(per_class, refine, rounds)  # a close class's new deals in each round

    def refined(deals, at, round):  # the deals drawn refining classes ``at`` (their deals so far in ``deals``)
        n = per_class + sum(steps[:round])
        if round == len(steps) or n < 2:
            return 0
        close = np.flatnonzero(close_classes(game, profile, deals, player, n))
        drawn, more_n, h = 0, n + steps[round], deals.shape[1]
        step = max(1, BRACKET_CHUNK // more_n)  # close classes refined together: a chunk's deals at most
        for group in (close[lo:lo + step] for lo in range(0, len(close), step)):
            abandon_if_stopped()  # a stop request is heard within a refinement group's time
            classes = at[group]
            more = refine_deals(game, seed, player, first, np.isin(np.arange(stop - first), classes),
                                steps[round], stubs, round)
            both = np.concatenate([deals.reshape(-1, n, h)[group], more.reshape(len(group), -1, h)],
                                  axis=1).reshape(-1, h)  # a close class's deals so far, then its new ones
            best_response(game, profile, both, player)  # the close classes' rows again
            moments[0][0][classes], moments[0][1][classes] = gain(both, more_n)
            drawn += len(more) + refined(both, classes, round + 1)
        return drawn

    extra = refined(choose, np.arange(stop - first), 0)
    no_worse_than_profile(game, profile, sigma, player, rows, *moments[0])
    gate_response(game, profile, sigma, player, rows, *moments[0], gate)
    own = game.deal_values(sigma, score)
    moments.append(class_moments(game.deal_values(profile, score) - own, per_class))
    out = BracketSums.zeros(len(game.stacks))  # focus_deals: :func:`focus` adds them
    estimates = {"high": moments[0], "low": moments[1]}  # each (G, B) mean and variance of the mean per class
    if player == 0:
        estimates["value"] = class_moments(own, per_class)
    if latest is not None:
        estimates["latest"] = class_moments(game.deal_values({**sigma, **latest}, score) - own, per_class)
    for name, (mean, var) in estimates.items():
        setattr(out, name, (weights * mean).sum(0))
        setattr(out, name + "_var", (weights**2 * var).sum(0))
    out.refined_deals[:] = extra
    spread = np.zeros(stop - first)
    if pilot:
        piloted = {**sigma, **own_rows(game, sigma, player, first, stop)}
        best_response(game, piloted, score, player)  # chosen and valued on the scoring deals: not the estimate's
        square = class_moments(game.deal_values(piloted, score) - own, per_class)[1].sum(1) * per_class
        spread = weights[:, 0] * np.sqrt(square)
    return ChunkSums.of(out, first, weights[:, 0], *moments[0], spread)


@dataclasses.dataclass
class ChunkSums:
    """A bracket chunk's ``sums`` (:class:`BracketSums`) and its candidates for the focus
    round (:func:`focus`): their ``classes``, ``spread`` (hand weight x one deal's standard deviation
    of a best response's gain, all stacks, measured on deals other than the upper estimate's) and
    their (K, B) parts of the upper estimate's sums (``mean``, ``var``); ``pilot``: the chunk's spread^2
    summed over all its classes. Chunks add up in chunk order (:func:`chunk_total`): the same bits
    wherever they were made."""

    sums: BracketSums
    classes: np.ndarray
    spread: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    pilot: float = 0.0

    @classmethod
    def of(cls, sums: BracketSums, first: int, weights: np.ndarray, mean: np.ndarray, var: np.ndarray,
           spread: np.ndarray) -> ChunkSums:
        """The sums with the chunk's ``FOCUS_CANDIDATES`` classes of largest ``spread`` (G,) (``mean``,
        ``var``: (G, B) per class, the upper estimate's)."""
        top = np.argsort(-spread, kind="stable")[:FOCUS_CANDIDATES]
        top = top[spread[top] > 0]
        return cls(sums, first + top, spread[top], weights[top, None] * mean[top], weights[top, None] ** 2 * var[top],
                   float((spread**2).sum()))

    def __add__(self, other: ChunkSums) -> ChunkSums:
        return ChunkSums(self.sums + other.sums, *(np.concatenate([getattr(self, f), getattr(other, f)])
                                                   for f in ("classes", "spread", "mean", "var")),
                         self.pilot + other.pilot)

    def __radd__(self, other) -> ChunkSums:  # the start of chunk_total's sum
        if isinstance(other, float) and other == 0.0:
            return self
        return NotImplemented


def focus_plan(total: ChunkSums, budget: int, per_class: int, most: int) -> tuple[np.ndarray, int]:
    """(classes, deals each) of a player's focus round: the candidates of largest spread, each chosen
    again on ``budget`` / k fresh deals (at least ``most``, the deals a class's estimate may have had:
    never fewer), k the number that cuts the upper estimate's variance most, as the spreads tell it
    (a class's part falls from spread^2 / ``per_class`` to spread^2 / deals); none where the cut is
    under ``FOCUS_MIN_CUT`` of the variance they tell for the player, all stacks. Nothing here reads
    the upper estimate's own deals."""
    order = np.argsort(-total.spread, kind="stable")
    square = total.spread[order] ** 2
    best, plan = FOCUS_MIN_CUT * total.pilot / per_class, (order[:0], 0)
    for k in range(1, min(len(order), budget // max(most, 1)) + 1):
        deals = budget // k
        cut = square[:k].sum() * (1 / per_class - 1 / deals)
        if cut > best:
            best, plan = cut, (order[:k], deals)
    return np.sort(total.classes[plan[0]]), plan[1]


def focus_chunk(game, sigma: dict, seed: int, deals: int, player: int, first: int, stop: int,
                stubs: int = BRACKET_STUBS) -> np.ndarray:
    """(2, B): the focus round's part for classes [first, stop) of ``player``: each one's best response
    chosen again on ``deals`` fresh deals of its own (pieces of ``FOCUS_PIECE``, streams
    ``FOCUS_STREAM``), its in-sample gain over the profile on them: hand-weighted mean and variance
    of the mean (:class:`BracketSums` ``high`` and ``high_var``, for these classes alone)."""
    out = np.zeros((2, len(game.stacks)))
    sizes = [min(FOCUS_PIECE, deals - lo) for lo in range(0, deals, FOCUS_PIECE)]

    def piece(c, i):
        return game.sample_class_deals(seed, (CLASS_DOMAIN, FOCUS_STREAM + 2 * i + player, c), player, c,
                                       np.array([sizes[i]]), stubs)

    for c in range(first, stop):
        q = None
        for i in range(len(sizes)):  # class sums add over pieces
            abandon_if_stopped()
            got = game.class_sums(sigma, piece(c, i), player, np.array([sizes[i]]), first=c)
            part = {name: got[name].q.astype(np.float64) for name in game.response_order[player]}
            q = part if q is None else {name: q[name] + part[name] for name in q}
        profile = {**sigma, **own_rows(game, sigma, player, c, c + 1)}
        respond(game, profile, np.array([c]), q, player)
        n, mean, square = 0, 0.0, 0.0  # the gain's moments over the pieces (Chan et al.'s pairwise update)
        # each piece drawn again (the same deals), not held: a class may get tens of millions
        for i in range(len(sizes)):
            d = piece(c, i)
            g = game.deal_values(profile, d) - game.deal_values(sigma, d)
            m, s2 = g.mean(0), ((g - g.mean(0)) ** 2).sum(0)
            delta, total = m - mean, n + len(g)
            mean, square, n = mean + delta * len(g) / total, square + s2 + delta**2 * n * len(g) / total, total
        worse = (1 - 2 * player) * mean < 0  # (B,) the profile's own rows do better there: 0 (no_worse_than_profile)
        mean, square = np.where(worse, 0.0, mean), np.where(worse, 0.0, square)
        weight = game.classes.hands_per_class[c] / game.classes.hands_per_class.sum()
        out += [weight * mean, weight**2 * square / (n - 1) / n]
    return out


def focus(total: ChunkSums, n_classes: int, per_class: int, refine: int, rounds: int, share: int,
          rechosen: Callable[[list[tuple[int, int]], int], np.ndarray]) -> BracketSums:
    """A player's bracket sums after its focus round (:func:`focus_plan` on ``total``, the
    chunks' total of a bracket of ``per_class`` deals for each of ``n_classes`` classes, refined as
    ``refine`` and ``rounds`` say, with :func:`focus_budget` of ``share``): the chosen classes' parts of
    the upper estimate replaced by ``rechosen(chunks, deals)`` (the chunks' total of :func:`focus_chunk`),
    their deals in ``focus_deals``."""
    most = per_class + sum(refine_steps(per_class, refine, rounds))  # the deals a class's estimate may have had
    classes, deals = focus_plan(total, focus_budget(n_classes, per_class, share), per_class, most)
    sums = total.sums
    if not len(classes):
        return sums
    at = np.isin(total.classes, classes)
    swap = rechosen([(int(c), int(c) + 1) for c in classes], deals) - [total.mean[at].sum(0), total.var[at].sum(0)]
    return dataclasses.replace(sums, high=sums.high + swap[0], high_var=sums.high_var + swap[1],
                               focus_deals=sums.focus_deals + deals * len(classes))


def focus_budget(n_classes: int, per_class: int, share: int = FOCUS_SHARE) -> int:
    """A player's focus-round deals: ``share`` times its two first sets (0: no round), ``FOCUS_MOST`` at most."""
    return min(share * 2 * per_class * n_classes, FOCUS_MOST)


def value_chunk(game, sigma: dict, seed: int, per_class: int, first: int, stop: int) -> np.ndarray:
    """(2, B): what the button's classes [first, stop) add to the profile's value per stack on their
    fixed deals (``per_class`` each, stream ``VALUE_STREAM``): the hand-weighted mean and the variance
    of that mean. The deals are the same for any strategy, so two readings of one run differ only
    where its strategy moved (the deals' luck is common to both)."""
    weights = game.classes.hands_per_class[first:stop, None] / game.classes.hands_per_class.sum()
    deals = game.sample_deals_of_classes(seed, VALUE_STREAM, 0, first, stop, per_class)
    mean, var = class_moments(game.deal_values(sigma, deals), per_class)
    return np.stack([(weights * mean).sum(0), (weights**2 * var).sum(0)])


def chunk_total(parts):
    """The sum of chunks' contributions ((K, B) arrays, :class:`BracketSums` or :class:`ChunkSums`), in
    chunk order (the same bits wherever they were made)."""
    total = 0.0
    for part in parts:
        total = total + part
    return total

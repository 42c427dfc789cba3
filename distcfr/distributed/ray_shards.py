"""Shards on Ray actors: the ShardSet the coordinator drives when Ray is in use.

Each actor wraps a plain ``ShardGroup`` (a contiguous block of shards of the game, built by
the actor from the game spec). Actors sit one per CPU bundle of a placement group spread
over the nodes. Per call the arguments (the strategy table) go out once through the object
store, and each actor sends back the partial sums of the subtrees of the fixed shard tree it
holds (see distcfr.engine.shard_set), which the coordinator adds along that tree.

Faults are Ray's to handle: an actor that dies (killed process, lost node) is restarted by
Ray (``max_restarts``; its placement-group bundle is rescheduled if its node is gone) and
rebuilds its shards, and a call marked ``@rerunnable`` is retried on it by Ray
(``max_task_retries``). What Ray cannot know is that a best response's later steps need the
state its first step left on the actor: those ``@stateful`` calls are not retried, and a
loss surfaces as ``BestResponseStateLost``, on which the evaluator redoes the whole best
response (the one piece of hand-written recovery). A lost head is nobody's to recover from: a
failed call first asks the head watch (distcfr.distributed.head_watch), which ends the process then.
"""

from __future__ import annotations

import os
import time

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, ObjectLostError, OutOfMemoryError, RayActorError
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from distcfr.distributed import head_watch
from distcfr.distributed.runtime import alive_cpus
from distcfr.engine.best_response import BestResponseStateLost
from distcfr.engine.class_blocks import ClassBlockGroup, ClassBlockSetBase, StrategyRows
from distcfr.engine.deal_schedule import DealSchedule
from distcfr.engine.shard_set import ShardGroup, ShardSetBase
from distcfr.errors import ClusterError, TooFewCpus, WorkersLost
from distcfr.stopping import clear_stop, request_stop

MAX_RESTARTS = 8  # per actor; past this the run stops with a ClusterError
UNPLACED_SECONDS = 10.0  # an actor's restart unplaced this long: its worker is given up (the run goes on without it)


class _ActorInfo:
    """What every actor adds to the plain group it wraps: where it runs, and the stop requests of its
    coordinator (:mod:`distcfr.stopping`)."""

    @ray.method(concurrency_group="control")
    def stop_work(self) -> None:
        """Run beside the call in progress: its evaluation gives up at its next chunk, and so do
        the evaluations queued behind it, until :meth:`resume_work`."""
        request_stop()

    def resume_work(self) -> None:
        """Queued behind the calls given up: later calls run again."""
        clear_stop()

    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def pid(self) -> int:
        return os.getpid()


_ACTOR_CLASSES: dict[type, object] = {}


def _actor_class(group_class: type):
    """The Ray actor class wrapping a plain shard-group class (built once per class)."""
    if group_class not in _ACTOR_CLASSES:
        wrapped = type(f"{group_class.__name__}Actor", (group_class, _ActorInfo), {})
        restarts = MAX_RESTARTS if getattr(group_class, "restartable", True) else 0
        _ACTOR_CLASSES[group_class] = ray.remote(num_cpus=1, max_restarts=restarts,
                                                 concurrency_groups={"control": 1})(wrapped)
    return _ACTOR_CLASSES[group_class]


class RayGroups:
    """``n_shards`` shards over ``n_workers`` actors of ``group_class(spec, n_shards, first, stop,
    *extra)``, one per CPU bundle of a placement group spread over the nodes."""

    group_class: type = ShardGroup

    def __init__(self, spec: str, n_shards: int, n_workers: int, *extra, ready_timeout: float = 120.0):
        if not 1 <= n_workers <= n_shards:  # the worker count is the library's choice (distcfr.solve.launch)
            raise ValueError(f"{n_workers} workers for {n_shards} shards")
        self.spec, self.n_shards, self.n_workers = spec, n_shards, n_workers
        self.blocks = [(w * n_shards // n_workers, (w + 1) * n_shards // n_workers) for w in range(n_workers)]
        self.group = placement_group([{"CPU": 1}] * n_workers, strategy="SPREAD")
        if not self._placed(ready_timeout):
            remove_placement_group(self.group)
            raise TooFewCpus(f"the cluster cannot give {n_workers} workers one CPU each "
                             f"(it has {int(ray.cluster_resources().get('CPU', 0))} CPUs)") from None
        actor = _actor_class(self.group_class)
        self.actors = [
            actor.options(scheduling_strategy=PlacementGroupSchedulingStrategy(
                self.group, placement_group_bundle_index=w)).remote(spec, n_shards, *self.blocks[w], *extra)
            for w in range(n_workers)]
        self._closed = False
        try:
            self._started()
        except BaseException:  # e.g. a node lost while they start: nothing of them is left behind
            self.close()
            raise

    def _placed(self, timeout: float) -> bool:
        """Whether the placement group is ready within ``timeout`` seconds; False at once when the nodes
        Ray counts alive have fewer CPUs than it asks for (a node given up while it waits)."""
        ready, deadline = self.group.ready(), time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                ray.get(ready, timeout=max(0.0, min(left, 0.5)))
                return True
            except GetTimeoutError:
                if left <= 0.5 or alive_cpus() < self.n_workers:
                    return False

    def _started(self) -> None:
        """Wait until every actor has built its shards."""
        self.pids()

    def _run(self, method: str, args: tuple) -> list:
        """``<group_class>.<method>(*args)`` on every actor; one result per actor."""
        retries = -1 if getattr(self.group_class, method).rerunnable else 0
        refs = [ray.put(a) if isinstance(a, np.ndarray | dict) else a for a in args]  # big arguments go out once
        pending = [getattr(actor, method).options(max_task_retries=retries).remote(*refs) for actor in self.actors]
        self._wait_placed(pending)
        results, lost = [], False
        for ref in pending:  # collect every answer before raising, so no call is left in flight
            try:
                results.append(ray.get(ref))
            except BestResponseStateLost:
                lost = True
            except RayActorError as err:
                head_watch.verdict()  # a lost head is not a lost worker: the watch ends the process
                if retries:  # Ray retried until the actor ran out of restarts
                    raise ClusterError(f"a shard worker kept dying ({MAX_RESTARTS} restarts): "
                                       f"{str(err).strip().splitlines()[0]}") from None
                lost = True  # a stateful call: the restarted actor lost its best response
        if lost:
            raise BestResponseStateLost(method)
        return results

    def _wait_placed(self, pending: list) -> None:
        """Wait until every call in ``pending`` has ended. WorkersLost where the placement group has been
        rescheduling for UNPLACED_SECONDS, or at once while the nodes Ray counts alive lack the CPUs: an
        actor on a lost node waits to be restarted where the cluster has no CPU left for it (the run goes
        on with fewer workers: distcfr.solve.launch)."""
        unplaced = None
        while ray.wait(pending, num_returns=len(pending), timeout=1.0)[1]:
            if placement_group_table(self.group).get("state") == "CREATED":
                unplaced = None
                continue
            unplaced = unplaced or time.monotonic()
            if time.monotonic() - unplaced >= UNPLACED_SECONDS or alive_cpus() < self.n_workers:
                head_watch.verdict()  # a lost head is not a lost worker: the watch ends the process
                raise WorkersLost("a shard worker's node was lost and the cluster has no CPU to restart it on")

    def abandon(self) -> None:
        """Every actor gives up the evaluations it runs or has queued (within a chunk's time) and then
        takes calls again; nothing is waited for here."""
        for actor in self.actors:
            actor.stop_work.remote()
            actor.resume_work.remote()

    def pids(self) -> list[int]:
        return ray.get([a.pid.remote() for a in self.actors])

    def nodes(self) -> int:
        return len(set(ray.get([a.node_id.remote() for a in self.actors])))

    def describe(self) -> dict:
        return {"workers": self.n_workers, "nodes": self.nodes(), "shards": self.n_shards}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for actor in self.actors:
            ray.kill(actor)
        remove_placement_group(self.group)


class RayShards(RayGroups, ShardSetBase):
    """The exact game's shards on Ray actors."""


class _RayClassBlockGroup(ClassBlockGroup):
    """A ClassBlockGroup whose strategy rows go through the object store."""

    publish_copies = True  # ray.put copies the chunk into the object store

    def publish(self, chunk):
        return ray.put(chunk)

    @staticmethod
    def fetch(rows):
        refs = [c for r in rows for chunks in r.chunks.values() for c in chunks]
        arrays = iter(ray.get(refs))  # read in place (shared memory) where the object is on this node
        return [StrategyRows(r.firsts, r.stop,
                             {name: [next(arrays) for _ in chunks] for name, chunks in r.chunks.items()})
                for r in rows]


class RayClassBlocks(RayGroups, ClassBlockSetBase):
    """A sampled game's class blocks on Ray actors (``extra``: seed, the deal schedule), each owning its
    classes' table rows. After each half-iteration an actor's new strategy rows of the player it updated go
    to the object store, where the others on its node read them in place in the next half; an
    actor on another node is sent only the rows its deals read. Key tables (nl27) move between the
    actors as well (distcfr.engine.class_blocks). An actor that dies takes its rows with it:
    ``WorkersLost``, from which a run recovers (distcfr.solve.run)."""

    group_class = _RayClassBlockGroup

    def __init__(self, spec: str, n_shards: int, n_workers: int, seed: int, schedule: DealSchedule,
                 ready_timeout: float = 120.0):
        self.pending: tuple | None = None  # (player, [(strategy ref, deals ref) per actor])
        self.interruptible = False
        super().__init__(spec, n_shards, n_workers, seed, schedule, ready_timeout=ready_timeout)

    def _started(self) -> None:
        rows = self._gather("rows")
        self.starts = [lo for lo, _ in rows] + [rows[-1][1]]
        self.node_ids = self._gather("node_id")
        self.parts = [[a.sigma.remote(p) for a in self.actors] for p in (0, 1)]
        self.key_calls: list = []  # calls on the key tables not waited for yet (see settle)
        self._start_keys(self.spec, [first for first, _ in self.blocks] + [self.n_shards])

    def half_iteration(self, player: int, iteration: int, rule: dict) -> None:
        if self.parts[1 - player] is None:  # let go by release_strategy
            self._restart_strategy()
        self._current_keys_on_groups()  # runs before the half-iteration below (an actor's calls run in order)
        parts = self._their_parts(player, iteration)
        self.parts[player] = None  # not read in its own half: the object store holds one copy of the strategy
        self.pending = (player, [a.half_iteration.options(num_returns=2).remote(player, iteration, rule, *parts[w])
                                 for w, a in enumerate(self.actors)], iteration, rule)
        self.settle()

    def _their_parts(self, player: int, iteration: int) -> list[list]:
        """Per actor, the other player's strategy rows of every actor, in row order: all of an actor's
        published rows where both are on one node (read in place), else only the rows the reader's
        deals need (``plan``, then ``serve``): what crosses the network shrinks with the workers.
        Ray chains these calls on the actors without this process waiting."""
        n, theirs = len(self.actors), self.parts[1 - player]
        away = [[w for w in range(n) if self.node_ids[w] != self.node_ids[g]] for g in range(n)]  # per owner
        needs = {w: self.actors[w].plan.remote(player, iteration) for w in sorted({w for ws in away for w in ws})}
        served = {}
        for g, readers in enumerate(away):
            if readers:
                refs = self.actors[g].serve.options(num_returns=len(readers)).remote(
                    1 - player, *[needs[w] for w in readers])
                served |= dict(zip(((g, w) for w in readers), refs if len(readers) > 1 else [refs]))
        return [[served.get((g, w), theirs[g]) for g in range(n)] for w in range(n)]

    def settle(self) -> None:
        if self.pending is None:
            return
        player, calls, iteration, rule = self.pending
        self.interruptible = True  # the actors finish their half-iteration whatever this process does
        try:
            self._get([deals for _, deals in calls] + self.key_calls)
        finally:
            self.interruptible = False
        self.parts[player], self.key_calls = [sigma for sigma, _ in calls], []
        if self.key_tables:  # not waited for: the next calls on the actors run after these
            self._update_keys(player, iteration, rule)
        self.pending = None

    def _key_call(self, call) -> None:
        self.key_calls.append(call)

    def _call(self, group: int, method: str, *args):
        return getattr(self.actors[group], method).remote(*args)

    def _call_parts(self, group: int, parts: int, method: str, *args):
        """One object reference per returned value, so that each goes to its reader alone."""
        return getattr(self.actors[group], method).options(num_returns=parts).remote(*args)

    def _result(self, call):
        return self._get([call])[0]

    def _restart_strategy(self) -> None:
        self.parts = [[a.sigma.remote(p) for a in self.actors] for p in (0, 1)]

    def pids(self) -> list[int]:
        return self._get([a.pid.remote() for a in self.actors])  # a lost node: WorkersLost

    def current(self) -> dict:
        self.settle()
        out = {}
        for player in (0, 1):
            rows = _RayClassBlockGroup.fetch(self._get(self.parts[player]))
            out |= {name: np.concatenate([r.joined()[name] for r in rows]) for name in rows[0].chunks}
        keys = self._gather("key_strategy")  # each actor's slice of every key table, in row order
        return out | {name: np.concatenate([part[name][1] for part in keys]) for name in keys[0]}

    def _gather(self, method: str) -> list:
        self.settle()
        return self._get([getattr(a, method).remote() for a in self.actors])

    def _get(self, refs: list) -> list:
        try:
            return ray.get(refs)
        except KeyboardInterrupt:  # a stop request: the actors give up their evaluations, so that what is saved
            self.abandon()         # next (a checkpoint, the strategy) is not queued behind them
            raise
        except OutOfMemoryError:  # the same run would run out again: not a loss to recover from
            raise ClusterError("a sampled worker was killed for memory and its table rows with it: use fewer "
                               "stacks, or more machines (--address)") from None
        except (RayActorError, ObjectLostError) as err:
            head_watch.verdict()  # a lost head is not a lost worker: the watch ends the process
            raise WorkersLost(f"a sampled worker died and its table rows with it "
                              f"({str(err).strip().splitlines()[0]})") from None

"""Shards on Ray actors: the ShardSet the coordinator drives when Ray is in use.

Each actor wraps a plain ``ShardGroup`` (a contiguous block of shards of the game, built by
the actor from the game spec). Actors sit one per CPU bundle of a placement group spread
over the nodes. Per call the arguments (the strategy table) go out once through the object
store, and each actor sends back the partial sums of the subtrees of the fixed shard tree it
holds (see distcfr.solve.shard_set), which the coordinator adds along that tree.

An actor that dies (killed process, lost node) is replaced and its shards recomputed: a
stateless call is simply re-run; a call that relied on state the actor held raises
``ShardsRestarted`` so the caller redoes the whole step.
"""

from __future__ import annotations

import time

import ray
from ray.exceptions import ActorDiedError, ActorUnavailableError, GetTimeoutError, RayActorError
from ray.util.placement_group import placement_group, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from distcfr.errors import ClusterError
from distcfr.solve.shard_set import ShardGroup, ShardsRestarted, combine

STATELESS = {"cfr_sums", "profile_value", "br_start"}
_DEAD = (RayActorError, ActorDiedError, ActorUnavailableError)


@ray.remote(num_cpus=1, max_restarts=0)
class ShardActor(ShardGroup):
    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()


class RayShards:
    """``n_shards`` shards of ``spec`` over ``n_workers`` actors."""

    def __init__(self, spec: str, n_shards: int, n_workers: int, ready_timeout: float = 120.0):
        self.spec, self.n_shards = spec, n_shards
        self.n_workers = n_workers = max(1, min(n_workers, n_shards))
        self.blocks = [(w * n_shards // n_workers, (w + 1) * n_shards // n_workers) for w in range(n_workers)]
        self.group = placement_group([{"CPU": 1}] * n_workers, strategy="SPREAD")
        try:
            ray.get(self.group.ready(), timeout=ready_timeout)
        except GetTimeoutError:
            remove_placement_group(self.group)
            raise ClusterError(f"the cluster cannot give {n_workers} workers one CPU each "
                               f"(it has {int(ray.cluster_resources().get('CPU', 0))} CPUs)") from None
        self.actors = [self._start(w) for w in range(n_workers)]
        self.restarts = 0
        self.max_attempts = 8
        ray.get([a.node_id.remote() for a in self.actors])  # wait until every actor has built its shards

    def _start(self, worker: int):
        strategy = PlacementGroupSchedulingStrategy(self.group, placement_group_bundle_index=worker)
        return ShardActor.options(scheduling_strategy=strategy).remote(self.spec, self.n_shards, *self.blocks[worker])

    def map(self, method: str, *args) -> None:
        self._call("map", method, args)

    def reduce(self, method: str, *args):
        partials = {}
        for worker_partials in self._call("reduce", method, args):
            partials.update(worker_partials)
        return combine(partials, 0, self.n_shards)

    def _call(self, how: str, method: str, args) -> list:
        """``ShardGroup.<how>(method, *args)`` on every actor; one result per actor."""
        refs = [ray.put(a) if hasattr(a, "nbytes") else a for a in args]  # big arrays go out once
        pending = {w: getattr(actor, how).remote(method, *refs) for w, actor in enumerate(self.actors)}
        per_worker = {}
        for attempt in range(self.max_attempts):
            dead = []
            for w, ref in pending.items():
                try:
                    per_worker[w] = ray.get(ref)
                except _DEAD:
                    dead.append(w)
            if not dead:
                return [per_worker[w] for w in range(self.n_workers)]
            if attempt:  # the replacement died too: give Ray time to notice a lost node
                time.sleep(min(0.5 * 2**attempt, 8.0))
            for w in dead:
                self.actors[w] = self._start(w)
                self.restarts += 1
            if method not in STATELESS:
                raise ShardsRestarted(method)
            pending = {w: getattr(self.actors[w], how).remote(method, *refs) for w in dead}
        raise ClusterError(f"shard workers kept dying ({self.max_attempts} attempts at {method})")

    def nodes(self) -> int:
        return len(set(ray.get([a.node_id.remote() for a in self.actors])))

    def describe(self) -> dict:
        return {"workers": self.n_workers, "nodes": self.nodes(), "shards": self.n_shards}

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
        remove_placement_group(self.group)

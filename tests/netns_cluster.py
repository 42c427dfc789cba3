"""A real multi-node Ray cluster on one machine: one Linux network namespace per node.

Each node is a `ray start` (token auth on) inside its own network namespace; the namespaces are
joined through a bridge in a further "switch" namespace, with addresses (10.213.0.0/24) that exist
only inside them and no route out. Every link may be shaped with `tc netem` (rate and delay) to
model a real network. Used by `tests/test_netns_cluster.py` and `bench/netns_cluster.py`.

    with NamespaceCluster(nodes=2, cpus_per_node=1, link="1gbit", delay_ms=1) as cluster:
        run = cluster.run([sys.executable, "-m", "distcfr.train", "--address", cluster.address, ...])

Steps (`__enter__`; any failure tears down what was made and re-raises):

1. namespaces `dn<pid>x<k>s` (switch) and `dn<pid>x<k>n<i>` (node i), `lo` up in each;
2. per node a veth pair made directly inside the namespaces (`eth0` in the node, `p<i>` on the
   switch's bridge `br0`), so no interface ever appears on the host; node i is 10.213.0.<i+1>/24;
3. optional shaping: a `tbf` rate limit on both ends of each node's veth (what it sends and what
   it receives), and a netem `delay` on the node's `eth0`, so the one-way delay between two nodes
   is `delay_ms` (a kernel without netem raises ShapingUnavailable; the delay is untried, since the
   machine this was written on has no netem);
4. `ray start --head --block` in node 0 and `ray start --address=<head>:6379 --block` in the
   others, with the command lines of `cluster/README.md` (same pinned ports: each namespace has
   its own port space), a per-node `--temp-dir` `/tmp/dn<pid>x<k>n<i>` (short: Ray's unix socket
   paths must stay under 107 bytes), each in a new session so its process group can be killed;
5. wait until the GCS lists every node alive.

Teardown (`__exit__`, also when the body raised): SIGTERM, a second later SIGKILL, to every
process group it started, SIGKILL to any process still inside one of its namespaces (`ip netns
pids`), then `ip netns del` (the veths go with their namespace) and removal of the temp dirs.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

SUBNET = "10.213.0"
HEAD_PORT = 6379
# The pinned ports of cluster/README.md; inside a namespace nothing else holds them.
NODE_PORTS = ["--node-manager-port=6380", "--object-manager-port=6381", "--dashboard-agent-grpc-port=6382",
              "--dashboard-agent-listen-port=6383", "--runtime-env-agent-port=6384", "--metrics-export-port=6385",
              "--min-worker-port=10002", "--max-worker-port=10999"]
# README's head also pins --ray-client-server-port=10001, which plain `ray` (no `ray[client]`, as
# distcfr installs it) refuses; the Ray Client server is not used.
HEAD_PORTS = [f"--port={HEAD_PORT}", *NODE_PORTS]
LINKS = {"1gbit": 10**9, "10gbit": 10**10}  # tc rate -> bits per second

# GCS health checks of about 5 s to give up a node (Ray's defaults: every 3 s, 10 s to answer, 5 misses)
QUICK_HEALTH_CHECKS = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "1000",
                       "RAY_health_check_timeout_ms": "1000", "RAY_health_check_failure_threshold": "3"}

_instances = itertools.count()

# Runs inside the head namespace: polls the GCS until `want` nodes are alive.
_PROBE = """
import sys, time
from ray._raylet import GcsClient
from ray.core.generated.gcs_pb2 import GcsNodeInfo
address, want, deadline = sys.argv[1], int(sys.argv[2]), time.time() + float(sys.argv[3])
alive, error = -1, ""
while time.time() < deadline:
    try:
        client = GcsClient(address=address)
        alive = len(client.get_all_node_info(timeout=2, state_filter=GcsNodeInfo.GcsNodeState.ALIVE))
        if alive >= want:
            sys.exit(0)
    except Exception as e:  # the GCS is not up yet
        error = repr(e)
    time.sleep(0.5)
print(f"{alive} of {want} nodes alive; last error: {error}", file=sys.stderr)
sys.exit(1)
"""


class NamespaceUnavailable(RuntimeError):
    """Network namespaces cannot be made here (not root, no `ip`/`tc`, `ip netns add` refused):
    a reason to skip, not a failure."""


class ShapingUnavailable(NamespaceUnavailable):
    """The kernel lacks the queueing discipline a shaped link needs (netem for a delay)."""


def _sh(*argv: str) -> None:
    run = subprocess.run(argv, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {run.stderr.strip()}")


def namespaces() -> set[str]:
    """The names of every network namespace on the machine (`ip netns list`)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class NamespaceCluster:
    """`nodes` Ray nodes of `cpus_per_node` CPUs, each in its own network namespace (see the module
    docstring). `link` is None (unshaped veths) or a tc rate ("1gbit", "10gbit"); `delay_ms` is the
    one-way delay between two nodes (netem, 0: none). `quick_health_checks` has the GCS give a node
    it cannot reach up after about 5 s (checks every second, 1 s to answer, 3 misses), not after
    Ray's default of about a minute: for tests that cut a link and need not wait that minute."""

    def __init__(self, nodes: int = 2, cpus_per_node: int = 1, link: str | None = None, delay_ms: float = 0.0,
                 start_timeout: float = 120.0, quick_health_checks: bool = False):
        if nodes < 1 or nodes > 200:
            raise ValueError(f"nodes must be 1..200, not {nodes}")
        if link is not None and link not in LINKS:
            raise ValueError(f"link must be None or one of {sorted(LINKS)}, not {link!r}")
        self.n_nodes, self.cpus_per_node, self.link, self.delay_ms = nodes, cpus_per_node, link, delay_ms
        self.start_timeout = start_timeout
        self.prefix = f"dn{os.getpid()}x{next(_instances)}"
        self.switch = f"{self.prefix}s"
        self.node_namespaces = [f"{self.prefix}n{i}" for i in range(nodes)]
        self.temp_dirs = [f"/tmp/{ns}" for ns in self.node_namespaces]
        self.ips = [f"{SUBNET}.{i + 1}" for i in range(nodes)]
        self.address = f"{self.ips[0]}:{HEAD_PORT}"
        # nothing of a Ray this process may run already (the test session's embedded one binds to loopback
        # only and refuses multi-node clusters: RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0)
        env = {k: v for k, v in os.environ.items()
               if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
        self.env = {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        if quick_health_checks:  # Ray reads its C++ settings from RAY_<name> in each process it starts
            self.env.update(QUICK_HEALTH_CHECKS)
        self.ray_cli = str(Path(sys.executable).with_name("ray"))
        self.made: list[str] = []  # namespaces created, in order
        self.groups: dict[int, subprocess.Popen] = {}  # process group id -> its leader
        self.node_procs: list[subprocess.Popen | None] = [None] * nodes

    # -- lifecycle --------------------------------------------------------------------------------

    def __enter__(self) -> NamespaceCluster:
        self._check_possible()
        try:
            self._make_network()
            self._start_ray()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check_possible(self) -> None:
        if sys.platform != "linux":
            raise NamespaceUnavailable("network namespaces need Linux")
        if os.geteuid() != 0:
            raise NamespaceUnavailable("network namespaces need root")
        for tool in ("ip",) + (("tc",) if self.link or self.delay_ms else ()):
            if shutil.which(tool) is None:
                raise NamespaceUnavailable(f"no `{tool}` command")
        if not Path(self.ray_cli).exists():
            raise NamespaceUnavailable(f"no `ray` command beside {sys.executable}")

    def _add_namespace(self, name: str) -> None:
        run = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
        if run.returncode != 0:
            if not self.made:  # the very first one: namespaces are not possible here
                raise NamespaceUnavailable(f"ip netns add failed: {run.stderr.strip()}")
            raise RuntimeError(f"ip netns add {name}: {run.stderr.strip()}")
        self.made.append(name)
        _sh("ip", "-n", name, "link", "set", "lo", "up")

    def _make_network(self) -> None:
        self._add_namespace(self.switch)
        _sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        for i, (ns, ip) in enumerate(zip(self.node_namespaces, self.ips)):
            self._add_namespace(ns)
            port = f"p{i}"
            _sh("ip", "-n", self.switch, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _sh("ip", "-n", self.switch, "link", "set", port, "master", "br0", "up")
            _sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
            _sh("ip", "-n", ns, "link", "set", "eth0", "up")
            self._shape(ns, port)

    def _shape(self, ns: str, port: str) -> None:
        """Rate: tbf on both ends of the node's veth. Delay: netem under it on the node's end."""
        if self.link:
            burst = f"{LINKS[self.link] // 8 // 1000}b"  # one millisecond of traffic at the link rate
            tbf = ["tbf", "rate", self.link, "burst", burst, "latency", "20ms"]
            _sh("tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root", "handle", "1:", *tbf)
            _sh("tc", "-n", self.switch, "qdisc", "add", "dev", port, "root", *tbf)
        if self.delay_ms:
            parent = ["parent", "1:1"] if self.link else ["root"]
            netem = ["netem", "delay", f"{self.delay_ms}ms", "limit", "100000"]  # the default 1000 packets drop
            try:
                _sh("tc", "-n", ns, "qdisc", "add", "dev", "eth0", *parent, "handle", "10:", *netem)
            except RuntimeError as e:  # e.g. a kernel without CONFIG_NET_SCH_NETEM
                raise ShapingUnavailable(f"no delay on this kernel: {e}") from None

    def ray_start_argv(self, i: int) -> list[str]:
        """The `ray start` command line of node i (cluster/README.md section 4, plus --block,
        --num-cpus and a private --temp-dir)."""
        common = [f"--node-ip-address={self.ips[i]}", f"--num-cpus={self.cpus_per_node}", "--disable-usage-stats",
                  f"--temp-dir={self.temp_dirs[i]}", "--block"]
        if i == 0:
            return [self.ray_cli, "start", "--head", *HEAD_PORTS, "--include-dashboard=false", *common]
        return [self.ray_cli, "start", f"--address={self.address}", *NODE_PORTS, *common]

    def _start_node(self, i: int) -> None:
        log = open(f"{self.temp_dirs[i]}.log", "ab")  # beside the temp dir, which Ray makes itself
        with log:
            proc = subprocess.Popen(["ip", "netns", "exec", self.node_namespaces[i], *self.ray_start_argv(i)],
                                    env=self.env, start_new_session=True, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT)
        self.groups[proc.pid] = proc
        self.node_procs[i] = proc

    def _start_ray(self) -> None:
        for i in range(self.n_nodes):  # a worker's `ray start` waits for the head's GCS by itself
            self._start_node(i)
        probe = self.popen([sys.executable, "-c", _PROBE, self.address, str(self.n_nodes), str(self.start_timeout)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dead: list[int] = []
        while probe.poll() is None and not dead:  # give up at once if a node's `ray start` ends
            dead = [i for i, p in enumerate(self.node_procs) if p.poll() is not None]
            time.sleep(0.2)
        if probe.returncode != 0:
            tail = "".join(Path(f"{self.temp_dirs[i]}.log").read_text()[-2000:] for i in dead)
            error = "" if dead else probe.stderr.read().strip()[-2000:]
            raise RuntimeError(f"cluster did not come up: {error}; nodes whose ray start ended: {dead}\n{tail}")

    def close(self) -> None:
        """Kill every process group started, then anything left inside the namespaces; delete the
        namespaces and temp dirs. Safe to call twice."""
        for sig, wait in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0)):  # `ray start --block` outlives a SIGTERM
            live = [pgid for pgid, proc in self.groups.items() if self._group_alive(pgid, proc)]
            for pgid in live:
                try:
                    os.killpg(pgid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.time() + wait
            while live and time.time() < deadline:
                live = [pgid for pgid in live if self._group_alive(pgid, self.groups[pgid])]
                time.sleep(0.1)
        for ns in self.made:  # a process that left its group but not its namespace
            for _ in range(50):
                pids = self.namespace_pids(ns)
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.1)
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made = []
        for temp in self.temp_dirs:
            shutil.rmtree(temp, ignore_errors=True)
            Path(f"{temp}.log").unlink(missing_ok=True)

    @staticmethod
    def _group_alive(pgid: int, leader: subprocess.Popen) -> bool:
        leader.poll()  # reap the leader if it ended
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
        return False

    # -- use --------------------------------------------------------------------------------------

    def namespace(self, i: int) -> str:
        return self.node_namespaces[i]

    @staticmethod
    def namespace_pids(ns: str) -> list[int]:
        """Every process inside namespace `ns` (`ip netns pids`)."""
        out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
        return [int(p) for p in out.split() if pid_alive(int(p))]

    def pids(self) -> list[int]:
        """Every live process this cluster started: all processes inside its namespaces."""
        return sorted({pid for ns in self.made for pid in self.namespace_pids(ns)})

    def _argv(self, argv: list[str], node: int) -> list[str]:
        return ["ip", "netns", "exec", self.node_namespaces[node], *argv]

    def run(self, argv: list[str], node: int = 0, timeout: float | None = None,
            **kwargs) -> subprocess.CompletedProcess:
        """Run argv to its end inside node `node`'s namespace with the cluster's token environment;
        stdout and stderr are captured as text."""
        kwargs = {"capture_output": True, "text": True, "env": self.env, **kwargs}
        return subprocess.run(self._argv(argv, node), timeout=timeout, **kwargs)

    def popen(self, argv: list[str], node: int = 0, **kwargs) -> subprocess.Popen:
        """Start argv inside node `node`'s namespace, in its own process group, which teardown kills."""
        proc = subprocess.Popen(self._argv(argv, node), env=self.env, start_new_session=True, **kwargs)
        self.groups[proc.pid] = proc
        return proc

    def sent_bytes(self) -> int:
        """Bytes all nodes have sent on their links so far (the kernel's counters of each `eth0`)."""
        total = 0
        for ns in self.node_namespaces:
            out = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show", "eth0"], capture_output=True,
                                 text=True, check=True).stdout
            total += json.loads(out)[0]["stats64"]["tx"]["bytes"]
        return total

    def kill_node(self, i: int) -> None:
        """SIGKILL node i's process group: the node is lost, as if its machine died."""
        proc = self.node_procs[i]
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

    def link_down(self, i: int) -> None:
        """Take node i's link down: the node is cut off from every other (its processes live on)."""
        _sh("ip", "-n", self.node_namespaces[i], "link", "set", "eth0", "down")

    def link_up(self, i: int) -> None:
        """Bring node i's link up again."""
        _sh("ip", "-n", self.node_namespaces[i], "link", "set", "eth0", "up")

    def cut_link(self, i: int, seconds: float) -> None:
        """Take node i's link down for `seconds`, then up again (blocks meanwhile)."""
        self.link_down(i)
        try:
            time.sleep(seconds)
        finally:
            self.link_up(i)

"""Starting or joining Ray. Ray is imported only here and in the modules of this folder.

* Embedded (no address): a private single-node Ray started by this process, bound to the
  loopback interface, with token authentication on a fresh random token that only this
  process and its workers know. It never joins a cluster already running on the machine
  (``address="local"``: a leftover /tmp/ray address file is ignored).
* Cluster (``--address auto`` or ``HOST:PORT``): joins what ``ray start`` started; token
  authentication is whatever the cluster uses (``RAY_AUTH_MODE=token`` plus ``RAY_AUTH_TOKEN``
  or ``RAY_AUTH_TOKEN_PATH`` in the environment, see cluster/README.md).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import secrets
import socket
import sys
import time

from distcfr.errors import ClusterError


def ray_running() -> bool:
    """Whether this process already runs or joined a Ray (without importing Ray)."""
    return "ray" in sys.modules and sys.modules["ray"].is_initialized()


def start_embedded(num_cpus: int) -> None:
    """Start a private local Ray with ``num_cpus`` CPUs (unless this process already runs one)."""
    if ray_running():
        return
    fresh = "ray" not in sys.modules
    # Read by Ray at import: with "clusters" off, every Ray server binds to loopback only.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    os.environ.pop("RAY_ADDRESS", None)
    import ray

    if not fresh:  # ray was imported before: make it re-read the auth settings
        from ray._raylet import AuthenticationTokenLoader, Config

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    try:
        with _quiet():
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     configure_logging=False, logging_level=logging.ERROR)
    except Exception as err:  # Ray raises many types; the user needs one line
        raise ClusterError(f"could not start the embedded Ray: {_first_line(err)}") from None


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` ("auto" or HOST:PORT)."""
    host = None
    if address != "auto":
        host, _ = _check_reachable(address)
    if ray_running():
        return  # a process embedding distcfr that already joined its cluster
    if host in ("127.0.0.1", "localhost", "::1") and "ray" not in sys.modules:
        # a head bound to loopback: keep Ray from swapping 127.0.0.1 for the routable address
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray

    try:
        with _quiet():
            ray.init(address=address, log_to_driver=False, configure_logging=False,
                     logging_level=logging.ERROR)
    except Exception as err:
        hint = ""
        text = str(err)
        if "auth" in text.lower() or "token" in text.lower():
            hint = " (set RAY_AUTH_MODE=token and the cluster's RAY_AUTH_TOKEN)"
        raise ClusterError(f"no Ray cluster reachable at {address}: {_first_line(err)}{hint}") from None


def _check_reachable(address: str, timeout: float = 5.0) -> tuple[str, int]:
    """Fail in seconds, not minutes, when nothing listens at HOST:PORT."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ClusterError(f"cannot read cluster address {address!r}: write auto or HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        raise ClusterError(f"no Ray cluster reachable at {address}: {err.strerror or err}") from None
    return host, int(port)


def shutdown() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


def silence_ray_logs() -> None:
    """From now on, send what Ray's C++ core writes to this process's stderr (lost objects, a
    control store that went away) to a file in Ray's session folder; Python's ``sys.stderr``
    keeps the terminal. Called once a stop is requested: what follows is the run's own message."""
    import ray

    if not ray.is_initialized():
        return
    sys.stderr.flush()
    keep = os.dup(2)
    folder = getattr(getattr(ray._private.worker, "_global_node", None), "get_logs_dir_path", lambda: None)()
    target = os.path.join(folder, "driver-after-stop.err") if folder else os.devnull
    with open(target, "a") as log:
        os.dup2(log.fileno(), 2)
    sys.stderr = os.fdopen(keep, "w", buffering=1)


def release(close, stop_ray: bool, deadline: float) -> bool:
    """Run ``close()`` (the shard set's) and, with ``stop_ray``, stop the embedded Ray, giving up
    after ``deadline`` seconds; returns whether it finished. When the whole process group was
    signalled (``timeout``, systemd, Slurm), Ray's own processes are gone and every Ray call
    would wait a minute for its control store before the process is killed: the caller then
    exits at once instead (Ray's processes share this process's fate and end with it)."""
    import threading

    def work():
        close()
        if stop_ray:
            shutdown()

    import ray

    gcs = ray.get_runtime_context().gcs_address if ray.is_initialized() else None
    worker = threading.Thread(target=work, name="distcfr-release", daemon=True)
    worker.start()
    if deadline is None:
        worker.join()
        return True
    end = time.monotonic() + deadline
    while worker.is_alive() and time.monotonic() < end:
        worker.join(0.1)
        if gcs and worker.is_alive() and not _listening(gcs):
            return False  # Ray's control store is gone: nothing left to wait for
    return not worker.is_alive()


def _listening(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=0.2).close()
        return True
    except OSError:
        return False


def cluster_cpus() -> int:
    import ray

    return int(ray.cluster_resources().get("CPU", 0))


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


@contextlib.contextmanager
def _quiet():
    """Keep Ray's start-up chatter (Python and C++) off the user's terminal; errors still raise."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

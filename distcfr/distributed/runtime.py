"""Starting or joining Ray. Ray is imported only here and in the modules of this folder.

* Embedded (no address): a private single-node Ray started by this process, bound to the
  loopback interface, with token authentication on a fresh random token that only this
  process and its workers know. It never joins a cluster already running on the machine
  (``address="local"``: a leftover /tmp/ray address file is ignored).
* Cluster (``--address auto`` or ``HOST:PORT``): joins what ``ray start`` started; token
  authentication is whatever the cluster uses (``RAY_AUTH_MODE=token`` plus ``RAY_AUTH_TOKEN``
  or ``RAY_AUTH_TOKEN_PATH`` in the environment, see cluster/README.md). Its head is watched
  while the run needs it: a lost head ends the process in seconds with one line
  (distcfr.distributed.head_watch).
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

from distcfr.distributed import head_watch
from distcfr.errors import ClusterError
from distcfr.stopping import handlers_kept


def _keep_signals_from_ray_core() -> None:
    """Read by Ray at import (the second at each error too): without the first, Ray's C++ core
    installs absl's failure-signal handler in this process, which turns a SIGTERM into a stack dump
    and an abort before distcfr's handler can save anything (a signal to the whole process group
    while Ray starts)."""
    os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")
    # and the driver does not print Ray's "Unhandled error" blocks for results it never read: the calls of
    # lost workers, or evaluations given up on a stop (distcfr says in one line what happened)
    os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")


AUTOSCALER_FAILURE = "The autoscaler failed"  # how Ray's report of its monitor's end begins


def hide_autoscaler_failures() -> None:
    """Drop the autoscaler's failure reports from what Ray's driver prints. A signal to the whole
    process group ends Ray's autoscaler monitor (which distcfr does not use) with the rest, and the
    raylet then reports its traceback to the driver, beside distcfr's one-line end; nothing else
    Ray reports is held back."""
    import ray._private.worker as ray_worker

    shown = ray_worker.print_to_stdstream
    if getattr(shown, "hides_autoscaler_failures", False):
        return

    def print_to_stdstream(data, ignore_prefix=False):
        if not str((data.get("lines") or [""])[0]).startswith(AUTOSCALER_FAILURE):
            shown(data, ignore_prefix)

    print_to_stdstream.hides_autoscaler_failures = True
    ray_worker.print_to_stdstream = print_to_stdstream  # looked up at each call by Ray's error listener


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
    _keep_signals_from_ray_core()
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    os.environ.pop("RAY_ADDRESS", None)
    import ray

    if not fresh:  # ray was imported before: make it re-read the auth settings
        from ray._raylet import AuthenticationTokenLoader, Config

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    try:
        with _quiet(), _own_signal_handlers():
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     configure_logging=False, logging_level=logging.ERROR)
    except Exception as err:  # Ray raises many types; the user needs one line
        raise ClusterError(f"could not start the embedded Ray: {_first_line(err)}") from None
    hide_autoscaler_failures()


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` ("auto" or HOST:PORT). Before ``ray.init`` (which
    retries for minutes against a wrong address or a refused token), the head is probed with
    short deadlines: a TCP connection, an HTTP/2 handshake (what every gRPC server answers) and
    one GCS request carrying this process's token. Each failure is one ClusterError line
    saying what to check. Once joined, the head is watched (distcfr.distributed.head_watch) until the
    run's workers are released."""
    global _joined
    _keep_signals_from_ray_core()
    if address != "auto":
        _probe(address, address)
    if ray_running():
        if _joined:  # joined here before (an earlier solver of this process): its head is watched again
            head_watch.start(_gcs_address())
        return  # else a process embedding distcfr that joined its cluster itself
    target, shown = address, address
    if address == "auto":
        target = _resolve_auto()
        shown = f"{target} (from --address auto)"
        _probe(target, shown)
    import ray

    _check_gcs(target, shown, auto=address == "auto")
    try:
        with _quiet(), _own_signal_handlers():
            ray.init(address=address, log_to_driver=False, configure_logging=False,
                     logging_level=logging.ERROR)
    except Exception as err:
        raise ClusterError(f"no Ray cluster reachable at {shown}: {_first_line(err)}{_auth_hint(str(err))}") from None
    _joined = True
    hide_autoscaler_failures()
    head_watch.start(_gcs_address())


_joined = False  # whether connect() joined a cluster in this process


def _gcs_address() -> str:
    import ray

    return ray.get_runtime_context().gcs_address


def _probe(address: str, shown: str) -> None:
    """TCP, then HTTP/2: something at ``address`` answers as a gRPC server would."""
    host, port = _parse_address(address, shown)
    if host in ("127.0.0.1", "localhost", "::1") and "ray" not in sys.modules:
        # a head bound to loopback: keep Ray from swapping 127.0.0.1 for the routable address
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    _check_reachable(address, shown=shown)
    _check_grpc(host, port, shown)


AUTH_HINT = ("set RAY_AUTH_MODE=token and the cluster's token in RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH "
             "(see cluster/README.md)")


def _auth_hint(text: str) -> str:
    return f" ({AUTH_HINT})" if "auth" in text.lower() or "token" in text.lower() else ""


def _parse_address(address: str, shown: str | None = None) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"cannot read cluster address {shown or repr(address)}: write auto or HOST:PORT")
    return host, int(port)


def _resolve_auto() -> str:
    """The address ``--address auto`` means (RAY_ADDRESS, else the cluster ``ray start`` last
    started on this machine), as Ray itself resolves it."""
    from ray._private.services import canonicalize_bootstrap_address

    try:
        with _quiet():
            target = canonicalize_bootstrap_address("auto")
    except Exception as err:
        raise ClusterError(f"--address auto found no Ray cluster on this machine ({_first_line(err)}): start one "
                           "with `ray start --head`, or give --address HOST:PORT") from None
    if not target:
        raise ClusterError("--address auto found no Ray cluster on this machine: start one with "
                           "`ray start --head`, or give --address HOST:PORT")
    return target


def _check_reachable(address: str, timeout: float = 5.0, shown: str | None = None) -> tuple[str, int]:
    """Fail in seconds, not minutes, when nothing listens at HOST:PORT."""
    host, port = _parse_address(address)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        raise ClusterError(f"no Ray cluster reachable at {shown or address}: {err.strerror or err}") from None
    return host, port


# HTTP/2 client preface, then an empty SETTINGS frame (RFC 9113 3.4, 6.5)
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_H2_SETTINGS = 4


def _check_grpc(host: str, port: int, shown: str, timeout: float = 3.0) -> None:
    """A Ray head's GCS is a gRPC server: to an HTTP/2 client preface it answers with a
    SETTINGS frame at once. A silent listener, or one that answers anything else, is not a
    Ray head (``ray.init`` would retry it for minutes)."""
    hint = ("check the address: it must be the head's GCS port (`ray start --head --port`, default 6379), "
            "reachable from here")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(_H2_PREFACE)
            frame = b""
            while len(frame) < 9:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
                chunk = sock.recv(9 - len(frame))
                if not chunk:
                    raise ClusterError(f"{shown} closed the connection without answering as a Ray head: {hint}")
                frame += chunk
    except TimeoutError:
        raise ClusterError(f"{shown} accepts connections but does not answer as a Ray head (no HTTP/2 reply "
                           f"within {timeout:g} s): {hint}") from None
    except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
        raise ClusterError(f"{shown} closed the connection without answering as a Ray head: {hint}") from None
    except OSError as err:
        raise ClusterError(f"no Ray cluster reachable at {shown}: {err.strerror or err}") from None
    length, kind, flags, stream = int.from_bytes(frame[:3], "big"), frame[3], frame[4], frame[5:9]
    if kind != _H2_SETTINGS or flags & 1 or stream != bytes(4) or length % 6:
        raise ClusterError(f"{shown} answers, but not as a Ray head (not gRPC over HTTP/2): {hint}")


def _check_gcs(address: str, shown: str, auto: bool, timeout_ms: int = 5000) -> None:
    """One GCS request with this process's token, through Ray's own client and after the same
    token set-up ``ray.init`` does: a refused or missing token is told in milliseconds here,
    while ``ray.init`` retries it for minutes."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            ensure_token_if_auth_enabled,
            maybe_enable_token_auth_if_token_available,
        )
        from ray._raylet import InnerGcsClient
    except ImportError:  # another Ray version: leave it all to ray.init
        return
    try:
        with _quiet():
            if auto:  # as ray.init: "auto" turns token mode on when a token is found
                maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
            ensure_token_if_auth_enabled(None, create_token_if_missing=False)  # no token: refused here, not aborted
            client = InnerGcsClient.standalone(address, None, timeout_ms)
            del client
    except Exception as err:
        text = str(err)
        if type(err).__name__ != "AuthenticationError" and "auth" not in text.lower():
            raise ClusterError(f"no Ray cluster usable at {shown}: {_first_line(err)}") from None
        if os.environ.get("RAY_AUTH_MODE") != "token":
            why = "RAY_AUTH_MODE is not token here"
        elif not (os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
                  or os.path.exists(os.path.expanduser("~/.ray/auth_token"))):
            why = "no token is set here"
        else:
            why = "the token found here is not the cluster's"
        raise ClusterError(f"the Ray cluster at {shown} refused this client's authentication ({why}): "
                           f"{AUTH_HINT}") from None


def shutdown() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


def silence_ray_logs() -> None:
    """From now on, send what Ray's C++ core writes to this process's stderr (lost objects, a
    worker or control store that went away) to a file in Ray's session folder; Python's
    ``sys.stderr`` keeps the terminal. Called once a run's workers are up: distcfr says in one line
    what went wrong, and a signal to the whole process group ends the workers before this process's
    own handler runs, so redirecting only on a stop left a window for Ray's messages."""
    import ray

    if not ray.is_initialized() or sys.stderr is not sys.__stderr__:  # done already, or a harness owns stderr
        return
    sys.stderr.flush()
    keep = os.dup(2)
    folder = getattr(getattr(ray._private.worker, "_global_node", None), "get_logs_dir_path", lambda: None)()
    target = os.path.join(folder, "driver-core.err") if folder else os.devnull
    with open(target, "a") as log:
        os.dup2(log.fileno(), 2)
    sys.stderr = os.fdopen(keep, "w", buffering=1)


def release(close, stop_ray: bool, deadline: float) -> bool:
    """Run ``close()`` (the shard set's) and, with ``stop_ray``, stop the embedded Ray, giving up
    after ``deadline`` seconds; returns whether it finished. When the whole process group was
    signalled (``timeout``, systemd, Slurm), Ray's own processes are gone and every Ray call
    would wait a minute for its control store before the process is killed: the caller then
    exits at once instead (Ray's processes share this process's fate and end with it). A Ray
    error on the way (a call cancelled as Ray's processes end) counts as not finished after a stop
    and is let be after a run that ended (what is left ends with this process); any other error
    is raised here."""
    import threading

    import ray

    failed: list[BaseException] = []

    def work():
        for step in (close, head_watch.stop, shutdown if stop_ray else None):  # the run no longer needs Ray
            try:
                if step is not None:
                    step()
            except BaseException as err:  # kept for the caller: a thread's traceback would reach the terminal
                failed.append(err)

    gcs = ray.get_runtime_context().gcs_address if ray.is_initialized() else None
    worker = threading.Thread(target=work, name="distcfr-release", daemon=True)
    worker.start()
    end = None if deadline is None else time.monotonic() + deadline
    while worker.is_alive() and (end is None or time.monotonic() < end):
        worker.join(0.1)
        if end is not None and gcs and worker.is_alive() and not _listening(gcs):
            head_watch.verdict()  # a cluster's head that is gone ends the process with its own line
            if not _listening(gcs):
                return False  # Ray's control store is gone: nothing left to wait for
    if failed and not isinstance(failed[0], ray.exceptions.RayError):
        raise failed[0]
    return not worker.is_alive() and (not failed or deadline is None)


def ray_alive() -> bool:
    """Whether this process's Ray still has its control store (after a signal to the whole process
    group it is gone: nothing held by Ray's workers can be saved any more)."""
    import ray

    if not ray.is_initialized():
        return False
    gcs = _gcs_address()
    if not _listening(gcs):
        head_watch.verdict()  # a cluster's head that is gone ends the process with its own line
    return _listening(gcs)


def _listening(address: str) -> bool:
    return head_watch.probe(address, timeout=0.2) == "up"


def alive_cpus() -> int:
    """CPUs of the nodes Ray counts alive now (Ray running): a lost node's go once Ray gives it up."""
    import ray

    return int(sum(node.get("Resources", {}).get("CPU", 0) for node in ray.nodes() if node.get("Alive")))


def cluster_cpus() -> int:
    import ray

    return int(ray.cluster_resources().get("CPU", 0))


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


@contextlib.contextmanager
def _own_signal_handlers():
    """Keep this process's SIGINT and SIGTERM handlers (distcfr's) while Ray starts: ``ray.init``
    would install a SIGTERM handler of its own (``sys.exit(15)``, then a shutdown that waits a
    minute on Ray's processes, gone already when the whole process group was signalled). Where
    Ray's hook cannot be held off, its exit is turned into a KeyboardInterrupt, as Ctrl-C is
    (:func:`distcfr.stopping.handlers_kept`)."""
    utils = getattr(getattr(sys.modules.get("ray"), "_private", None), "utils", None)
    hook = getattr(utils, "set_sigterm_handler", None)
    if hook is not None:
        utils.set_sigterm_handler = lambda handler: None
    try:
        with handlers_kept():
            yield
    finally:
        if hook is not None:
            utils.set_sigterm_handler = hook


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

"""What distcfr changes in how Ray's driver talks to the user."""

import pytest
import ray._private.worker as ray_worker
from ray.exceptions import RpcError

from distcfr.distributed.runtime import AUTOSCALER_FAILURE, hide_autoscaler_failures, release


def test_the_autoscalers_failure_report_is_dropped_and_every_other_report_printed(monkeypatch, capsys):
    # a group signal ends Ray's autoscaler monitor with the run; the raylet's report of it (a traceback)
    # must not stand beside distcfr's one-line end (tests/test_hardening.py), while Ray's other reports stay
    printed = []
    monkeypatch.setattr(ray_worker, "print_to_stdstream", lambda data, ignore_prefix=False: printed.append(data))
    hide_autoscaler_failures()
    hide_autoscaler_failures()  # a second solver in the process: installed once
    report = ray_worker.print_to_stdstream
    report({"lines": [f"{AUTOSCALER_FAILURE} with the following error:\nTerminated with signal 15\n  File ..."],
            "pid": "raylet", "is_err": False})
    other = {"lines": ["A worker died or was killed while executing a task"], "pid": "raylet", "is_err": False}
    report(other, ignore_prefix=False)
    report({"lines": [], "pid": "raylet", "is_err": False})
    assert printed == [other, {"lines": [], "pid": "raylet", "is_err": False}]
    assert ray_worker.print_to_stdstream is report and report.hides_autoscaler_failures


def test_a_ray_error_while_releasing_is_the_callers_to_judge_not_a_thread_traceback(capsys):
    # a group signal can end Ray's processes while the placement group is removed (RPC error: CANCELLED
    # seen in CI): after a stop that means "not finished" (the caller exits with its own line), after a
    # run that ended it is let be; an error that is not Ray's is raised
    closed = []

    def cancelled():
        closed.append(1)
        raise RpcError("RPC error: CANCELLED")

    assert release(cancelled, stop_ray=False, deadline=3.0) is False
    assert release(cancelled, stop_ray=False, deadline=None) is True
    assert release(closed.clear, stop_ray=False, deadline=3.0) is True
    with pytest.raises(ValueError, match="a bug"):
        release(lambda: (_ for _ in ()).throw(ValueError("a bug")), stop_ray=False, deadline=3.0)
    assert closed == [] and capsys.readouterr().err == ""

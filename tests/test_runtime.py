"""What distcfr changes in how Ray's driver talks to the user."""

import ray._private.worker as ray_worker

from distcfr.dist.runtime import AUTOSCALER_FAILURE, hide_autoscaler_failures


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

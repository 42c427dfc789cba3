"""Every command-line tool: installed as a console script, and ``--version`` on each."""

import importlib
import subprocess
import sys
from importlib.metadata import entry_points, version
from pathlib import Path

import pytest

import distcfr

TOOLS = {"distcfr-train": "distcfr.train", "distcfr-show": "distcfr.show", "distcfr-match": "distcfr.match",
         "distcfr-compare": "distcfr.compare", "distcfr-seeds": "distcfr.seeds"}


def test_each_tool_is_a_console_script_of_its_main():
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts") if ep.name.startswith("distcfr")}
    assert scripts == {name: f"{module}:main" for name, module in TOOLS.items()}


def test_the_scripts_are_installed_beside_this_python():
    # an editable or regular install puts them in the environment's bin (Scripts on Windows)
    folder = Path(sys.executable).parent
    missing = [name for name in TOOLS if not any((folder / (name + ext)).exists() for ext in ("", ".exe"))]
    assert not missing, f"not installed in {folder}: {missing} (pip install -e . again?)"


def test_the_installed_version_is_the_package_version():
    assert version("distcfr") == distcfr.__version__


@pytest.mark.parametrize("module", sorted(TOOLS.values()))
def test_version_prints_the_version_and_exits_0(module, capsys):
    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main(["--version"])
    assert stop.value.code in (0, None)
    assert capsys.readouterr().out.strip() == f"distcfr {distcfr.__version__}"


def test_a_console_script_runs():
    script = Path(sys.executable).parent / "distcfr-show"
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"distcfr {distcfr.__version__}"

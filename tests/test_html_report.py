"""show --html: one self-contained page; strings from the file escaped; and in a real headless
browser (Debian's chromium, driven over the DevTools protocol on a pipe) the page runs without a
script error and its search boxes show the numbers ``show`` prints."""

import fcntl
import html
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import distcfr
from distcfr.evaluate.class_strategy import load_class_strategy
from distcfr.present.html_report import html_report
from distcfr.show import main as show
from distcfr.train import main as train

CHROMIUM = "/usr/bin/chromium"
CRAFTED = "<img src=x onerror=\"pwned=1\"><script>pwned=2</script>&amp;"
EXTERNAL = re.compile(r"(?i)\b(?:https?|ftp|wss?)://|\bsrc\s*=|\bhref\s*=|url\(|@import")
SAMPLED_GAME = "draw27(ranks=8,suits=2,hand=3,stacks=10)"
HANDS = ["9d5c2c", "4c3d2c", "7d7c2d", "8c 6d 3c"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Strategy files: kuhn, leduc, a draw27 stack list (exact) and a small sampled draw27 run,
    each with a crafted algorithm name beside an honest copy."""
    folder = tmp_path_factory.mktemp("html")
    out = {}
    for name, game, extra in (("kuhn", "kuhn", []), ("leduc", "leduc", []),
                              ("stacks", "draw27(ranks=5,suits=1,hand=1,stacks=2:4:1)", []),
                              ("sampled", SAMPLED_GAME, ["--sampling", "--batch", "1000", "--bracket-samples", "100"])):
        path = folder / f"{name}.msgpack"
        assert train(["--game", game, "--iterations", "4" if extra else "100", "--workers", "0", "--quiet",
                      "--no-tables", "--out", str(path), *extra]) == 0
        out[name] = path
    crafted = load_class_strategy(out["sampled"])
    crafted.meta["algorithm"] = CRAFTED
    crafted.save(folder / "sampled_crafted.msgpack")
    exact = distcfr.load_strategy(out["kuhn"])
    exact.meta["algorithm"] = CRAFTED
    exact.save(folder / "kuhn_crafted.msgpack")
    out["sampled_crafted"], out["kuhn_crafted"] = folder / "sampled_crafted.msgpack", folder / "kuhn_crafted.msgpack"
    return out


@pytest.mark.parametrize("name", ["kuhn", "leduc", "stacks", "sampled"])
def test_page_is_self_contained(files, name):
    page = html_report(files[name])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    found = EXTERNAL.search(page)
    assert found is None, f"external reference {page[found.start() - 40:found.end() + 40]!r}"
    assert "<svg" in page or name in ("kuhn", "leduc")  # plots and charts are inline SVG


@pytest.mark.parametrize("name", ["kuhn_crafted", "sampled_crafted"])
def test_strings_from_the_file_are_escaped(files, name):
    page = html_report(files[name])
    assert CRAFTED not in page and "<img" not in page and "<script>pwned" not in page
    assert html.escape(CRAFTED, quote=True) in page


def test_show_writes_the_page(files, tmp_path, capsys):
    target = tmp_path / "report.html"
    assert show([str(files["leduc"]), "--html", str(target)]) == 0
    assert capsys.readouterr().out.strip() == f"html report of {files['leduc']} written to {target}"
    assert target.read_text().startswith("<!DOCTYPE html>")
    assert show([str(files["leduc"]), "--html", str(target), "--format", "json"]) == 2
    assert "--html" in capsys.readouterr().err


def test_value_per_stack_is_drawn_from_the_files_numbers(files):
    page = html_report(files["sampled"])
    assert "no convergence history" in page  # said, not drawn
    page = html_report(files["stacks"])
    assert page.count("<circle") == 6  # value and exploitability at 3 stacks


def test_a_stored_exact_exploitability_gets_its_column(files, tmp_path):
    strategy = load_class_strategy(files["sampled"])
    assert "exact exploitability" not in html_report(files["sampled"])
    strategy.meta["evaluation"][0]["exploitability_exact"] = 0.000337
    strategy.save(tmp_path / "exact.msgpack")
    page = html_report(tmp_path / "exact.msgpack")
    assert "exact exploitability (every deal enumerated)" in page and "3.37e-04 BB (0.337 mBB)" in page


# ---- a real browser ---------------------------------------------------------------------------
class Browser:
    """Headless chromium over the DevTools protocol on a pipe (fds 3 and 4, NUL-terminated JSON)."""

    FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe"]

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="distcfr-chromium-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def pipes_at_3_and_4():  # in the child; copies above 10 first, so neither end overwrites the other
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        # close_fds=False keeps 3 and 4 (inheritable copies); the pipes' own ends close on exec
        self.process = subprocess.Popen([CHROMIUM, *self.FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                        close_fds=False, preexec_fn=pipes_at_3_and_4,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._id, self.events, self.session = b"", 0, [], None

    def close(self):
        """Ask the browser to quit; kill it by its handle when it does not within seconds."""
        try:
            try:
                self.session = None
                self.call("Browser.close", timeout=5)
                self.process.wait(timeout=5)
            except (OSError, RuntimeError, TimeoutError, ConnectionError, subprocess.TimeoutExpired):
                pass
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=10)
        finally:
            os.close(self._write)
            os.close(self._read)
            shutil.rmtree(self.profile, ignore_errors=True)

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise ConnectionError("chromium closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, timeout: float = 30, **params) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, event: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == event:
                    return self.events.pop(i)
            self.events.append(self._message(deadline))

    def open(self, path: Path):
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def run(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list:
        """Script exceptions, console errors and error log entries (a blocked load among them)."""
        self.run("0")  # let pending events arrive
        return [e for e in self.events if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") == "error")]


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium chromium-driver)")
    b = Browser()
    try:
        yield b
    finally:
        b.close()


def _page(files, name, tmp_path) -> Path:
    target = tmp_path / f"{name}.html"
    assert show([str(files[name]), "--html", str(target)]) == 0
    return target


TYPE = ("(function (id, text) {{ const box = document.getElementById(id); box.value = text; "
        "box.dispatchEvent(new Event('input')); }})({!r}, {!r})")
VISIBLE_ROWS = """Array.from(document.querySelectorAll('#tree tr[data-label]'))
  .filter(function (tr) { return tr.offsetParent !== null; })
  .map(function (tr) { return [tr.dataset.label].concat(Array.from(tr.querySelectorAll('td[data-action]'))
  .map(function (td) { return [td.dataset.action, td.textContent]; })); })"""


@pytest.mark.parametrize("name, labels", [("kuhn", ["Q|pb", "K|b", "J|"]), ("leduc", ["K/Q|rc.r", "J|cr"])])
def test_browser_tree_search_shows_shows_numbers(files, name, labels, browser, tmp_path, capsys):
    assert show([str(files[name]), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)  # {infoset: {action: probability}}
    browser.open(_page(files, name, tmp_path))
    assert browser.run("document.querySelectorAll('#tree tr[data-label]').length") == len(printed)
    for label in labels:
        browser.run(TYPE.format("tree-search", label))
        rows = {r[0]: dict(r[1:]) for r in browser.run(VISIBLE_ROWS)}
        assert sorted(rows) == sorted(k for k in printed if label.lower() in k.lower())  # the matches only
        assert rows[label] == {a: f"{p:.3f}" for a, p in printed[label].items()}
    browser.run(TYPE.format("tree-search", "no such infoset"))
    assert browser.run(VISIBLE_ROWS) == []
    assert browser.errors() == []


def test_browser_stack_selector_shows_each_stacks_numbers(files, browser, tmp_path):
    strategy = distcfr.load_strategy(files["stacks"])
    browser.open(_page(files, "stacks", tmp_path))
    for v in (0, 2):
        browser.run("(function () { const s = document.getElementById('tree-variant'); "
                    f"s.value = '{v}'; s.dispatchEvent(new Event('change')); }})()")
        browser.run(TYPE.format("tree-search", "4|a"))
        rows = {r[0]: dict(r[1:]) for r in browser.run(VISIBLE_ROWS)}
        assert rows["4|a"] == {a: f"{p:.3f}" for a, p in strategy.action_probs("4|a", v).items()}
    assert browser.errors() == []


def test_browser_hand_search_shows_what_show_prints(files, browser, tmp_path, capsys):
    browser.open(_page(files, "sampled", tmp_path))
    for hand in HANDS:
        assert show([str(files["sampled"]), "--hand", hand]) == 0
        printed = capsys.readouterr().out.rstrip("\n")
        browser.run(TYPE.format("hand-search", hand))
        shown = browser.run("document.getElementById('hand-result').textContent")
        assert shown.startswith(hand.replace(" ", "")) and ("\n" + shown + "\n") in printed  # the hand, whole
    browser.run(TYPE.format("hand-search", "9d9d5c"))
    assert "different cards" in browser.run("document.getElementById('hand-result').textContent")
    assert browser.errors() == []


def test_browser_crafted_strings_stay_text(files, browser, tmp_path):
    for name in ("kuhn_crafted", "sampled_crafted"):
        browser.open(_page(files, name, tmp_path))
        assert browser.run("typeof window.pwned") == "undefined"
        assert CRAFTED in browser.run("document.body.innerText")
        assert browser.errors() == []


def test_browser_large_files_embed_push_and_call_or_nothing(files, browser, tmp_path, monkeypatch, capsys):
    import distcfr.present.draw27 as report

    hand = HANDS[0]
    assert show([str(files["sampled"]), "--hand", hand]) == 0
    printed = capsys.readouterr().out.rstrip("\n").splitlines()
    monkeypatch.setattr(report, "HAND_DATA_LIMIT", 10_000)  # 280 classes: push and call fit, draws do not
    browser.open(_page(files, "sampled", tmp_path))
    browser.run(TYPE.format("hand-search", hand))
    shown = browser.run("document.getElementById('hand-result').textContent").splitlines()
    assert shown[0] in printed and len(shown) == 2
    assert next(line for line in printed if line.startswith("  10BB: ")).startswith(shown[1] + "; big blind draws")
    monkeypatch.setattr(report, "HAND_DATA_LIMIT", 1_000)  # nothing fits
    page = _page(files, "sampled", tmp_path)
    assert "not embedded" in page.read_text()
    browser.open(page)
    assert browser.run("document.getElementById('hand-search').disabled") is True
    example = browser.run("document.getElementById('hand-example').textContent")
    assert example == show_hand(files["sampled"], example.split()[0], capsys)
    assert browser.errors() == []


def show_hand(path, hand, capsys) -> str:
    """What show prints for one hand (its lines after the file's heading, before the hand-group table)."""
    assert show([str(path), "--hand", hand]) == 0
    printed = capsys.readouterr().out
    start = printed.index("\n" + hand) + 1
    return printed[start:printed.index("\n\n", start)]

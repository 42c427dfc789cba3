"""The README is a user's guide: short, its first commands true, and free of dates; the user pages
under docs/ carry no dates either (dated measurements are the team's lab notes, docs/lab/)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_PAGES = [README, ROOT / "cluster" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MOST_LINES = 300

INSTALL_AND_RUN = "python3 -m venv .venv && . .venv/bin/activate && pip install -q -e . && python -m distcfr.train"
INSTALL_AND_TEST = ('python3 -m venv .venv && . .venv/bin/activate && pip install -q -e ".[test]" '
                    "&& python -m pytest")

MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
          "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"  # 2026-11-29
    rf"|\b(?:{MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?\b(?!\.\d)"  # November 29, Nov. 29th
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)? (?:{MONTHS})\b"  # 29 November
    rf"|\b(?:{MONTHS}),? \d{{4}}\b")  # November 2026


def dates_in(text: str) -> list[str]:
    """Each line of ``text`` that carries a date, with its number."""
    return [f"{number}: {line.strip()}" for number, line in enumerate(text.splitlines(), 1) if DATE.search(line)]


def test_the_date_finder():
    found = dates_in("on 2026-11-29\nNovember 29 and 29 November\nin November 2026\nNov. 3rd\n"
                     "May 2\n(Brown & Sandholm, AAAI 2019)\n12 stacks, 3 BB\n1:20:0.5\nmay 2 stacks")
    assert [line.split(":")[0] for line in found] == ["1", "2", "3", "4", "5"]


def test_the_readme_is_under_its_bound():
    lines = README.read_text().count("\n")
    assert lines <= MOST_LINES, f"README.md has {lines} lines, at most {MOST_LINES}: move depth to docs/"


def test_the_readme_starts_with_the_two_commands():
    fence = re.match(r"# distcfr\n\n```bash\n(.*?)\n```\n", README.read_text(), re.DOTALL)
    assert fence, "README.md starts with its title and one fenced bash block"
    assert fence.group(1).splitlines() == [INSTALL_AND_RUN, INSTALL_AND_TEST]
    ci = (ROOT / ".ci" / "run").read_text()
    assert INSTALL_AND_TEST in ci.splitlines()  # CI runs the README's test command as written


def test_the_readme_keeps_the_real_games_section():
    text = README.read_text()
    assert re.search(r"^## The real game: nl27$", text, re.MULTILINE)
    assert "docs/GAMES.md" in text.split("## The real game: nl27", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_pages_carry_no_dates(page):
    found = dates_in(page.read_text())
    assert not found, f"{page.relative_to(ROOT)} has dates (dated figures go to docs/lab/):\n" + "\n".join(found)


def test_measurement_files_live_in_the_lab_notes():
    stray = [p.name for p in (ROOT / "docs").iterdir() if p.is_file() and p.suffix != ".md"]
    assert not stray, f"measurement files belong in docs/lab/: {stray}"

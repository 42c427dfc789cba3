"""The repository stands alone: every file the documentation points to is in it.

Checked in README.md, cluster/README.md, docs/*.md and the lab notes docs/lab/*.md: Markdown links and images
``[text](path)``, and repository paths written in code (inline backticks and fenced blocks):
``docs/GAMES.md``, ``bench/stacks.py``, ``cluster/aws-cluster.yaml``, and paths inside the
package written from its root (``io/schema.py``, ``evaluate/simulate.py``). Outside paths
(``/shared/ckpt.msgpack``), URLs, files the tools write (``strategy.msgpack``) and names
without a file extension (the secret ``distcfr/ray-token``) are left alone."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_DOCS = [ROOT / "README.md", ROOT / "cluster" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LAB_NOTES = sorted((ROOT / "docs" / "lab").glob("*.md"))
DOCS = USER_DOCS + LAB_NOTES
OUTSIDE = "../" + "shared"  # spelled in two pieces so that this file does not contain it

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
INLINE = re.compile(r"`([^`\n]+)`")
TOP = "|".join(sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
                      and p.name not in ("build", "dist") and not p.name.endswith(".egg-info")))
SUBPACKAGES = "|".join(sorted(p.name for p in (ROOT / "distcfr").iterdir() if (p / "__init__.py").exists()))
REPO_PATH = re.compile(rf"(?<![\w./~$-])((?:{TOP})/[\w./-]*\.\w+)")  # a file, from the repository's root
PACKAGE_PATH = re.compile(rf"(?<![\w./~$-])((?:{SUBPACKAGES})/[\w/-]*\w\.py)\b")  # from distcfr/


def code_of(text: str) -> str:
    """What is written as code: fenced blocks and inline backtick spans outside them."""
    fenced = FENCE.findall(text)
    rest = FENCE.sub("", text)
    return "\n".join(fenced + INLINE.findall(rest))


def targets(folder: Path, text: str) -> list[tuple[str, Path]]:
    """(as written, resolved path) of every repository path the Markdown ``text`` of a document
    in ``folder`` mentions (links relative to ``folder``, code paths to the repository's root)."""
    out = []
    for link in LINK.findall(FENCE.sub("", text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # a URL or mail
            continue
        out.append((link, (folder / link.split("#")[0]).resolve()))  # an anchor alone: this document
    code = code_of(text)
    out += [(p, (ROOT / p).resolve()) for p in REPO_PATH.findall(code)]
    out += [(p, (ROOT / "distcfr" / p).resolve()) for p in PACKAGE_PATH.findall(code)]
    return out


def test_the_documents_are_found():
    names = [d.relative_to(ROOT).as_posix() for d in DOCS]
    assert {"README.md", "cluster/README.md", "docs/GAMES.md", "docs/SEEDS.md", "docs/SAMPLED.md",
            "docs/lab/SAMPLED-history.md"} <= set(names)
    found = {name: [w for w, _ in targets(d.parent, d.read_text())] for name, d in zip(names, DOCS)}
    assert "docs/GAMES.md" in found["README.md"] and "SEEDS.md" in found["docs/GAMES.md"]  # links are read
    assert "cluster/aws-cluster.yaml" in found["cluster/README.md"]  # and paths in code


def anchors(doc: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as -."""
    headings = re.findall(r"^#+\s+(.+?)\s*$", FENCE.sub("", doc.read_text()), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_path_a_document_mentions_is_in_the_repository(doc):
    problems = []
    for written, path in targets(doc.parent, doc.read_text()):
        path = doc if written.startswith("#") else path
        if not path.is_relative_to(ROOT):
            problems.append(f"{written} (outside the repository)")
        elif not path.exists():
            problems.append(f"{written} (no such file)")
        elif "#" in written and path.suffix == ".md" and written.split("#", 1)[1] not in anchors(path):
            problems.append(f"{written} (no such heading)")
    assert not problems, f"{doc.relative_to(ROOT)}: " + ", ".join(problems)


def test_the_path_finder():
    text = ("See [games](docs/GAMES.md#draw27) and ![plot](docs/lab/sweep39.png), `python bench/stacks.py`, "
            "`io/schema.py`, `--out /shared/ckpt.msgpack`, `strategy.msgpack`, `--name distcfr/ray-token`, "
            "[site](https://ray.io).\n"
            "```bash\nray up cluster/aws-cluster.yaml\n```\n")
    found = targets(ROOT, text)
    assert [w for w, _ in found] == ["docs/GAMES.md#draw27", "docs/lab/sweep39.png", "cluster/aws-cluster.yaml",
                                     "bench/stacks.py", "io/schema.py"]
    assert found[-1][1] == ROOT / "distcfr" / "io" / "schema.py"
    assert {"draw27", "the-games-and-their-exact-rules", "deuce-to-seven-order-lower-wins"} <= anchors(
        ROOT / "docs" / "GAMES.md")
    assert [w for w, _ in targets(ROOT / "docs", "[up](../README.md) [out](../../x.md)")] == ["../README.md",
                                                                                          "../../x.md"]


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_points_outside_the_repository():
    offenders = []
    for path in tracked_files():
        if path.is_file():
            data = path.read_bytes()
            if OUTSIDE.encode() in data:
                line = data[: data.index(OUTSIDE.encode())].count(b"\n") + 1
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert not offenders, f"{OUTSIDE} in: " + ", ".join(offenders)

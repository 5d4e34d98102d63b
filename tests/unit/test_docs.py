"""The README stays a front door and the docs stay linked: the README is short, opens with the two
commands, and links every page under docs/; no link or docs/ path named in the repository points
at a file that is not there (pages were moved out of the README, and lab data into docs/data/)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
# [text](target) with a relative target; #anchors and URLs are not files
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a docs/ path named in code or prose: docs/usage.md, docs/data/mysql-lab.json
DOCS_PATH = re.compile(r"\bdocs/[\w./-]+\.(?:md|json(?:\.gz)?)\b")


def test_the_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "make demo" in quick_start and "make test" in quick_start
    targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
    assert {"demo", "test", "lint"} <= set(targets)


def test_the_readme_links_every_docs_page():
    linked = {(README.parent / t).resolve() for t in LINK.findall(README.read_text())}
    assert PAGES, "no docs/ pages found"
    unlinked = [p.name for p in PAGES if p.resolve() not in linked]
    assert not unlinked, f"docs pages the README does not link: {unlinked}"


def test_every_relative_link_points_at_a_file():
    broken = []
    for page in [README, ROOT / "CHANGELOG.md", *PAGES]:
        for target in LINK.findall(page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_every_docs_path_named_in_the_repository_exists():
    named = {}
    files = [README, *PAGES, *(ROOT / "loadgen").rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "bench").glob("*.py"), ROOT / "bench" / "README.md", ROOT / "Makefile"]
    for path in files:
        for found in DOCS_PATH.findall(path.read_text(errors="replace")):
            named.setdefault(found, str(path.relative_to(ROOT)))
    assert named, "the pattern found no docs/ path at all"
    missing = {p: where for p, where in named.items() if not (ROOT / p).exists()}
    assert not missing, f"docs/ paths that do not exist (first named in): {missing}"


# a merge's conflict markers at the start of a line (a committed half-merge; one reached docs/
# workloads.md in session 13, where Python would have failed to import but Markdown did not)
CONFLICT = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)


def test_no_file_holds_a_merge_conflict_marker():
    files = [README, ROOT / "CHANGELOG.md", *PAGES, *(ROOT / "loadgen").rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "bench").glob("*.py"), ROOT / "bench" / "README.md", ROOT / "Makefile",
             *(ROOT / "native").rglob("*.[ch]")]
    marked = [str(p.relative_to(ROOT)) for p in files if CONFLICT.search(p.read_text(errors="replace"))]
    assert not marked, f"merge conflict markers left in: {marked}"


# A page and a section (`docs/<page>.md, "A section"`) of it named in code, tests or prose, the section by
# its heading or by a paragraph's bold lead (docs/workloads.md's dated notes are led so). A pointer
# may run over a line break and a comment's `#`.
SECTION_POINTER = re.compile(r'(docs/[\w-]+\.md)[,:]?\s*(?:#\s*)?\n?\s*(?:#\s*)?"([^"\n]{3,120})"')


def _anchors(text: str) -> list[str]:
    heads = [re.sub(r"^#+\s*", "", line).strip() for line in text.splitlines() if line.startswith("#")]
    bold = [re.sub(r"\s+", " ", b) for b in re.findall(r"\*\*(.+?)\*\*", text, re.S)]
    return [a.lower() for a in heads + bold]


def test_every_section_named_in_a_pointer_is_in_its_page():
    """A section moved or renamed leaves its pointers naming nothing (two did, until this test)."""
    anchors = {f"docs/{p.name}": _anchors(p.read_text()) for p in PAGES}
    files = [README, ROOT / "CHANGELOG.md", *PAGES, *(ROOT / "loadgen").rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "bench").glob("*.py"), ROOT / "bench" / "README.md", *(ROOT / "native").rglob("*.[ch]")]
    seen, stale = 0, []
    for path in files:
        for page, section in SECTION_POINTER.findall(path.read_text(errors="replace")):
            if page in anchors:
                seen += 1
                if not any(section.lower() in a for a in anchors[page]):
                    stale.append(f"{path.relative_to(ROOT)}: {page} {section!r}")
    assert seen > 50, "the pattern found few pointers: has their form changed?"
    assert not stale, stale

"""The repository's documents lead somewhere: every relative link in a Markdown file resolves to
a file (and, with a #fragment, to a heading in it), every `docs/…md` a source file cites exists,
and nothing cites an issue number. Prints each fault; exits 1 when there is one."""
import functools
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CITED = re.compile(r"\b((?:docs|Benchmarks|Deploy|Fuzz|Sources|Tests|Scripts)/[\w.+/-]+\.(?:md|swift|sh|py|h|c|yaml|lua|order))(?!\w)(#[\w-]+)?")
ISSUE = re.compile(r"\bissues? #?\d+\b", re.IGNORECASE)
# The README is one page with no sections to cite; the specification is docs/semantics.md.
README_SECTION = re.compile(r"README(?:\.md)?(?:,? \*|[,:;] [A-Z*])")
BARE_SEMANTICS = re.compile(r"(?<!docs/)\bsemantics\.md\b")


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


@functools.cache
def anchors(path):
    """GitHub's anchors for a Markdown file's headings: lowercased, punctuation dropped, spaces to '-'."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#+\s+(.*)", line)
        if heading:
            text = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower())
            found.add(text.replace(" ", "-"))
    return found


def ignored(target):
    """Whether git ignores `target`: a run's output (Benchmarks/out), which a clean clone lacks."""
    return subprocess.run(["git", "check-ignore", "-q", str(target)], cwd=ROOT).returncode == 0


def check_target(target, fragment, faults, where):
    if not target.exists() and ignored(target):
        return
    if not target.exists():
        faults.append(f"{where}: {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target} does not exist")
    elif fragment and target.suffix == ".md" and fragment not in anchors(target):
        faults.append(f"{where}: no heading #{fragment} in {target.relative_to(ROOT)}")


def main():
    faults = []
    for path in tracked():
        if not path.is_file() or path.suffix in {".der", ".p12", ".pem", ".key", ".sqlite", ".db"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        relative = path.relative_to(ROOT)
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{relative}:{number}"
            if ISSUE.search(line) and relative != Path("Tests/docs/check.py"):
                faults.append(f"{where}: cites an issue number")
            if relative != Path("Tests/docs/check.py"):
                if README_SECTION.search(line):
                    faults.append(f"{where}: cites a README section (the depth is in docs/)")
                if BARE_SEMANTICS.search(line):
                    faults.append(f"{where}: cites semantics.md outside docs/")
            if path.suffix == ".md":
                for link in LINK.findall(line):
                    if re.match(r"[a-z]+:", link) or link.startswith("#"):
                        continue
                    target, _, fragment = link.partition("#")
                    check_target((path.parent / target).resolve(), fragment, faults, where)
            else:
                for cited, fragment in CITED.findall(line):
                    check_target(ROOT / cited, fragment.lstrip("#"), faults, where)
    for fault in faults:
        print(fault)
    if faults:
        print(f"docs: {len(faults)} references lead nowhere", file=sys.stderr)
        sys.exit(1)
    print("docs: every reference resolves")


main()

#!/usr/bin/env python3
"""docs/threat-model.md names, for every boundary, the tests that defend it: this fails when one of them
does not exist (renamed or deleted), so the document cannot drift from the suite.

Checks every `Suite/test` (and `Suite/*`) in backquotes against the Swift tests, and every
"quoted line" against the checks the shell suites print.
"""

import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
text = (root / "docs" / "threat-model.md").read_text()

swift = {}
for path in list(root.glob("Tests/**/*.swift")) + list(root.glob("Fuzz/Tests/**/*.swift")):
    source = path.read_text()
    for suite in re.findall(r"(?:struct|class|final class)\s+(\w+)", source):
        swift.setdefault(suite, set()).update(re.findall(r"func\s+(\w+)", source))
shell = "\n".join(p.read_text() for p in root.glob("Tests/**/*.sh")) + "\n".join(p.read_text() for p in root.glob("Tests/**/*.py"))

missing = []
references = [r for r in re.findall(r"`(\w+)/(\w+|\*)`", text) if r != ("Suite", "test")]
for suite, test in references:
    if suite == "Tests":
        if not (root / "Tests" / test).is_dir():
            missing.append(f"`Tests/{test}`")
    elif suite not in swift or (test != "*" and test not in swift[suite]):
        missing.append(f"`{suite}/{test}`")
# A quoted check name may wrap across lines in the Markdown.
quoted = re.findall(r'"([^"`]{12,}?)"', re.sub(r"\s*\n\s*", " ", text))
for line in quoted:
    if line not in shell:
        missing.append(f'"{line}"')
print(f"security: {len(references)} Swift test references and {len(quoted)} shell checks named in docs/threat-model.md")
if missing:
    print("security: docs/threat-model.md names tests that do not exist:\n  " + "\n  ".join(missing))
    sys.exit(1)
print("security: every one exists")

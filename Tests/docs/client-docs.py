#!/usr/bin/env python3
"""Every public symbol of KeychainClient has a documentation comment: reads the symbol graph
`swift package dump-symbol-graph` wrote and names each one without. Symbols the compiler makes
(Hashable's, a literal protocol's defaults) have no place in the source and are not counted."""

import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
graphs = list(root.glob(".build/*/symbolgraph/KeychainClient.symbols.json"))
if not graphs:
    sys.exit("client-docs: no symbol graph; run `swift package dump-symbol-graph --minimum-access-level public` first")
graph = json.loads(graphs[0].read_text())
public = [s for s in graph["symbols"] if s.get("accessLevel") in ("public", "open") and s.get("location")]
missing = [".".join(s["pathComponents"]) for s in public if "docComment" not in s]
print(f"client-docs: {len(public)} public symbols of KeychainClient")
if missing:
    print("client-docs: without a documentation comment:\n  " + "\n  ".join(missing))
    sys.exit(1)
print("client-docs: every one is documented")

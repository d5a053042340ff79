#!/usr/bin/env bash
# KeychainClient's documentation: every public symbol has a documentation comment
# (Tests/docs/client-docs.py, on the symbol graph), and the DocC catalogue compiles with every
# symbol link resolved (docc, from the toolchain; a warning fails).
#
# Environment: SWIFT_FLAGS (extra swift flags).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
make_tmp
read -r -a swift_flags <<<"${SWIFT_FLAGS:-}"
swift package "${swift_flags[@]}" dump-symbol-graph --minimum-access-level public >"$tmp/dump.log" 2>&1 ||
    fail_with_log "client-docs: swift package dump-symbol-graph failed" "$tmp/dump.log"
python3 Tests/docs/client-docs.py
mkdir "$tmp/graphs"
cp .build/*/symbolgraph/KeychainClient.symbols.json .build/*/symbolgraph/KeychainClient@*.symbols.json "$tmp/graphs/" 2>/dev/null || true
docc="$(dirname "$(command -v swift)")/docc"
"$docc" convert Sources/KeychainClient/KeychainClient.docc --additional-symbol-graph-dir "$tmp/graphs" \
    --fallback-display-name KeychainClient --fallback-bundle-identifier keychaind.KeychainClient \
    --output-path "$tmp/docc" --warnings-as-errors >"$tmp/docc.log" 2>&1 ||
    fail_with_log "client-docs: the DocC catalogue does not compile cleanly" "$tmp/docc.log"
echo "client-docs: the DocC catalogue compiles, every link resolved"

#!/usr/bin/env bash
# Runs the README's curl walk-through exactly as written (the block between the
# <!-- walkthrough --> markers) against `keychaind serve --dev` on 127.0.0.1:8700, with the two
# variables `make run` tells the reader to export, and checks what each step must answer.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS (extra swift build flags).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)

make_tmp
stop_on_exit server_pid

if curl -s --max-time 2 -o /dev/null http://127.0.0.1:8700/ 2>/dev/null; then
    echo "readme: port 8700 is taken; the walk-through needs it free" >&2
    exit 1
fi
start_keychaind "$tmp/server.out" "$bin" serve --dev --listen 127.0.0.1:8700 --log-level warning
# Not ready in time: the export lines below are missing, which fails with the server's output.
wait_http http://127.0.0.1:8700/v1/health "$server_pid" -f || true

# The two export lines the server printed, as a reader pastes them.
grep -E '^ +export KEYCHAIND_(TOKEN|PASSPHRASE)=' "$tmp/server.out" | sed 's/^ *//' >"$tmp/exports.sh"
[[ $(wc -l <"$tmp/exports.sh") -eq 2 ]] ||
    fail_with_log "readme: keychaind --dev did not print the two export lines" "$tmp/server.out"

# The walk-through block, byte for byte.
awk '/<!-- walkthrough -->/{on=1; next} /<!-- \/walkthrough -->/{on=0} on' README.md | sed '1d;$d' >"$tmp/walkthrough.sh"
[[ -s $tmp/walkthrough.sh ]] || { echo "readme: no walk-through block found" >&2; exit 1; }

# shellcheck source=/dev/null # written above
(source "$tmp/exports.sh" && bash -euo pipefail "$tmp/walkthrough.sh") >"$tmp/output.txt" 2>&1 ||
    fail_with_log "readme: the walk-through failed" "$tmp/output.txt"

# expect NAME TEXT: a check that the walk-through's output contains TEXT.
expect() {
    check "$1: expected output to contain: $2" grep -qF -- "$2" "$tmp/output.txt"
}
expect "add answers with the item" '"service":"db.example.com","account":"app"},"persistentRef":'
expect "search returns the secret" '{"items":[{"valueData":"aHVudGVyMg=="}]}'
expect "GET body search with kSec names" '"valueData":"aHVudGVyMg=="}]}'
expect "update returns the label" '"label":"rotated"'
expect "lock answers locked" '"state":"locked"'
expect "locked search is 423" 'HTTP/1.1 423 Locked'
expect "423 body is errSecInteractionNotAllowed" '"status":-25308,"error":"errSecInteractionNotAllowed"'
expect "unlock answers unlocked" '"state":"unlocked"'
expect "delete removes the item" '{"deleted":1}'
if [[ $failed -gt 0 ]]; then cat "$tmp/output.txt" >&2; fi
report readme

#!/usr/bin/env bash
# Runs the README's walk-throughs exactly as written against `keychaind serve --dev` on
# 127.0.0.1:8700, with the two variables `make run` tells the reader to export, and checks what
# each step must answer: the curl block (<!-- walkthrough -->), the keychainctl block
# (<!-- walkthrough-keychainctl -->, keychainctl on PATH), and the Swift example
# (<!-- swift-example -->), which must be Examples/KeychainClientExample/main.swift byte for
# byte, built and run.
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

# block NAME: the fenced block between <!-- NAME --> and <!-- /NAME -->, without its fences.
block() {
    awk -v first="<!-- $1 -->" -v last="<!-- /$1 -->" '$0 == first {on=1; next} $0 == last {on=0} on' README.md | sed '1d;$d'
}

read -r -a swift_flags <<<"${SWIFT_FLAGS:-}"
swift build "${swift_flags[@]}" --product keychainctl >&2
swift build "${swift_flags[@]}" --product KeychainClientExample >&2
bin_dir=$(swift build "${swift_flags[@]}" --show-bin-path)

block walkthrough-keychainctl >"$tmp/keychainctl.sh"
[[ -s $tmp/keychainctl.sh ]] || { echo "readme: no keychainctl block found" >&2; exit 1; }
# shellcheck source=/dev/null # written above
(source "$tmp/exports.sh" && PATH=$bin_dir:$PATH bash -euo pipefail "$tmp/keychainctl.sh") >"$tmp/keychainctl.txt" 2>&1 ||
    fail_with_log "readme: the keychainctl walk-through failed" "$tmp/keychainctl.txt"
expect_in() {
    check "$1: expected $2 to contain: $3" grep -qF -- "$3" "$tmp/$2"
}
check "keychainctl find -w prints the password read from standard input, alone on its line" grep -qx s3cr3t "$tmp/keychainctl.txt"
expect_in "keychainctl find -g prints security's attribute line" keychainctl.txt '    "acct"<blob>="app"'
expect_in "keychainctl find -g prints the password line" keychainctl.txt 'password: "s3cr3t"'
expect_in "keychainctl run passes the secret in the environment" keychainctl.txt 'API_TOKEN has 6 characters'
expect_in "keychainctl's not found is security's" keychainctl.txt \
    'keychainctl: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.'
expect_in "keychainctl's not found exits 44" keychainctl.txt 'exit 44'

check "the README's Swift example is Examples/KeychainClientExample/main.swift, byte for byte" \
    diff <(block swift-example) Examples/KeychainClientExample/main.swift
# shellcheck source=/dev/null # written above
(source "$tmp/exports.sh" && "$bin_dir/KeychainClientExample") >"$tmp/swift.txt" 2>&1 ||
    fail_with_log "readme: the Swift example failed" "$tmp/swift.txt"
expect_in "the Swift example reads the secret it added" swift.txt 'from Swift'
expect_in "the Swift example's not found is errSecItemNotFound with Apple's message" swift.txt \
    'true The specified item could not be found in the keychain.'
if [[ $failed -gt 0 ]]; then cat "$tmp/keychainctl.txt" "$tmp/swift.txt" >&2; fi
report readme

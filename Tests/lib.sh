# shellcheck shell=bash
# Shared by the shell suites (Tests/*/run.sh) and Benchmarks/run.sh: source it after
# `set -euo pipefail`.

# product_binary PRODUCT PREBUILT: the binary under test: PREBUILT when set, else PRODUCT built
# with $SWIFT_FLAGS.
product_binary() {
    if [[ -n $2 ]]; then
        echo "$2"
        return
    fi
    local swift_flags
    read -r -a swift_flags <<<"${SWIFT_FLAGS:-}"
    swift build "${swift_flags[@]}" --product "$1" >&2
    echo "$(swift build "${swift_flags[@]}" --show-bin-path)/$1"
}

# The keychaind binary under test: $KEYCHAIND, or a build.
keychaind_binary() { product_binary keychaind "${KEYCHAIND:-}"; }

# The keychainctl binary under test, as an absolute path: $KEYCHAINCTL, or a build.
keychainctl_binary() { realpath "$(product_binary keychainctl "${KEYCHAINCTL:-}")"; }

# A TCP port free on 127.0.0.1 right now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# stop_process PID [SIGNAL]: stops the process PID (if it still runs) with SIGNAL (default TERM)
# and reaps it.
stop_process() {
    local pid=${1:-} signal=${2:-TERM}
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill -"$signal" "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}

# keychaind refuses to run as root without --allow-root; CI runs as root.
allow_root_flag() {
    if [[ $(id -u) -eq 0 ]]; then echo --allow-root; fi
}

# --- clean-up on exit -------------------------------------------------------------------------

# What the exit trap cleans up, in this order: the commands named by on_exit, the processes
# named by stop_on_exit (each stopped with its signal), then the directories named by
# remove_on_exit.
lib_exit_commands=()
lib_exit_pid_variables=()
lib_exit_signals=()
lib_exit_directories=()

# The EXIT trap that on_exit, remove_on_exit and stop_on_exit install.
lib_cleanup() {
    local i
    for i in "${!lib_exit_commands[@]}"; do
        ${lib_exit_commands[$i]} || true
    done
    for i in "${!lib_exit_pid_variables[@]}"; do
        local variable=${lib_exit_pid_variables[$i]}
        stop_process "${!variable:-}" "${lib_exit_signals[$i]}"
    done
    rm -rf "${lib_exit_directories[@]}"
}

# on_exit FUNCTION: runs the suite's FUNCTION (no arguments) first on exit.
on_exit() {
    lib_exit_commands+=("$1")
    trap lib_cleanup EXIT
}

# remove_on_exit DIRECTORY...: removes the DIRECTORYs (temporary ones, from mktemp -d) on exit.
remove_on_exit() {
    lib_exit_directories+=("$@")
    trap lib_cleanup EXIT
}

# make_tmp: sets tmp to a new temporary directory (mode 0700), removed on exit.
make_tmp() {
    # shellcheck disable=SC2034 # the suites' variable
    tmp=$(mktemp -d)
    remove_on_exit "$tmp"
}

# make_traversable_tmp VARIABLE: sets VARIABLE to a new temporary directory of mode 0755, removed
# on exit: one that nginx's workers or PostgreSQL (unprivileged users when the suite runs as root)
# must traverse.
make_traversable_tmp() {
    local dir
    dir=$(mktemp -d)
    chmod 0755 "$dir"
    remove_on_exit "$dir"
    printf -v "$1" %s "$dir"
}

# stop_on_exit VARIABLE [SIGNAL]: on exit, stops the process whose pid VARIABLE holds then (none
# when it is empty) with SIGNAL (default TERM). Sets VARIABLE to empty for now.
stop_on_exit() {
    lib_exit_pid_variables+=("$1")
    lib_exit_signals+=("${2:-TERM}")
    printf -v "$1" %s ''
    trap lib_cleanup EXIT
}

# --- the server under test --------------------------------------------------------------------

# start_keychaind LOG BINARY ARGUMENTS...: runs the keychaind binary BINARY with ARGUMENTS and
# allow_root_flag in the background, its output to LOG; sets server_pid.
start_keychaind() {
    local log=$1 root_flag
    shift
    read -r -a root_flag <<<"$(allow_root_flag)"
    "$@" "${root_flag[@]}" >"$log" 2>&1 &
    # shellcheck disable=SC2034 # the suites' variable
    server_pid=$!
}

# wait_http URL PID [CURL_OPTIONS...]: start-up readiness, a bounded poll (30 s), not test
# synchronisation: returns 0 as soon as `curl CURL_OPTIONS URL` succeeds (without -f: as soon as
# URL answers at all), 1 when the process PID has exited or 30 s have passed.
wait_http() {
    local url=$1 pid=$2
    shift 2
    for _ in $(seq 150); do
        if ! kill -0 "$pid" 2>/dev/null; then return 1; fi
        if curl -s --max-time 2 -o /dev/null "$@" "$url" 2>/dev/null; then return 0; fi
        sleep 0.2
    done
    return 1
}

# health_becomes URL CODE: a bounded poll (10 s) for an effect that follows a signal: 0 as soon
# as URL answers CODE, 1 if it never does.
health_becomes() {
    local url=$1 code=$2
    for _ in $(seq 100); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url") == "$code" ]] && return 0
        sleep 0.1
    done
    return 1
}

# wait_files FILE...: a bounded poll (10 s) until every FILE exists and is not empty; 1 if not.
wait_files() {
    local file missing
    for _ in $(seq 50); do
        missing=
        for file in "$@"; do [[ -s $file ]] || missing=$file; done
        if [[ -z $missing ]]; then return 0; fi
        sleep 0.2
    done
    return 1
}

# --- PostgreSQL -------------------------------------------------------------------------------

# start_postgres DIRECTORY: initdb into DIRECTORY/data and start PostgreSQL (Debian's newest, or
# $KEYCHAIND_PG_BIN) on 127.0.0.1 and a free port, as nobody when run as root (initdb refuses
# root), trusting loopback; pg_ctl -w returns once it accepts connections. Sets pg_port, pg_bin
# and postgres_pid (stopped on exit, with SIGQUIT: an immediate shutdown).
start_postgres() {
    local dir=$1
    pg_bin=${KEYCHAIND_PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -1)}
    pg_port=$(free_port)
    if [[ $(id -u) -eq 0 ]]; then chown nobody "$dir"; fi
    as_unprivileged "$pg_bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 ||
        fail_with_log "initdb failed" "$dir/initdb.log"
    as_unprivileged "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w \
        -o "-p $pg_port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null ||
        fail_with_log "PostgreSQL did not start" "$dir/postgres.log"
    stop_on_exit postgres_pid QUIT
    postgres_pid=$(head -1 "$dir/data/postmaster.pid")
}

# as_unprivileged COMMAND...: COMMAND as nobody when run as root, else as it is.
as_unprivileged() {
    if [[ $(id -u) -eq 0 ]]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
    else
        "$@"
    fi
}

# fail_with_log MESSAGE LOG: prints MESSAGE and then the file LOG on stderr, and exits 1.
fail_with_log() {
    echo "$1" >&2
    cat "$2" >&2 || true
    exit 1
}

# --- checks -----------------------------------------------------------------------------------

# The suite's tally, counted by check (or pass and fail) and printed by report.
passed=0
failed=0

# pass, fail: count one check as passed or failed (the caller says what it judged).
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); }

# check NAME COMMAND...: one check: runs COMMAND and counts it; a failure prints `FAIL: NAME` on
# stderr.
check() {
    local name=$1
    shift
    if "$@"; then pass; else fail; echo "FAIL: $name" >&2; fi
}

# report [SUITE]: the closing line, `SUITE: N passed, N failed` (without `SUITE: ` when none is
# given); returns 1 when a check failed.
report() {
    echo "${1:+$1: }$passed passed, $failed failed"
    [[ $failed -eq 0 ]]
}

# --- nginx, as deployed -----------------------------------------------------------------------

# nginx_binary SUITE: sets nginx_bin to nginx ($NGINX, or the installed one); exits when there
# is none.
nginx_binary() {
    nginx_bin=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
    [[ -x $nginx_bin ]] || { echo "$1: nginx is not installed (make deps-test)" >&2; exit 1; }
}

# start_nginx PREFIX TLS_PORT UPSTREAM_PORT[,UPSTREAM_PORT...]: Deploy/nginx.conf as shipped,
# rendered for a test under PREFIX (a directory of mode 0755 that nginx's workers traverse) by
# Deploy/render-nginx-test.sh, with a self-signed certificate for localhost and 127.0.0.1
# (PREFIX/tls.crt, also the one to trust); checked with nginx -t, then run in the background
# on 127.0.0.1:TLS_PORT, its output to PREFIX/nginx.out. Needs nginx_binary; sets nginx_pid.
start_nginx() {
    local prefix=$1 port=$2 upstreams=$3
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
        -keyout "$prefix/tls.key" -out "$prefix/tls.crt" 2>/dev/null
    bash Deploy/render-nginx-test.sh Deploy/nginx.conf "$prefix/nginx.conf" \
        "$port" "$upstreams" "$prefix/tls.crt" "$prefix/tls.key" "$prefix"
    "$nginx_bin" -t -q -p "$prefix/" -e "$prefix/error.log" -c "$prefix/nginx.conf"
    "$nginx_bin" -p "$prefix/" -e "$prefix/error.log" -c "$prefix/nginx.conf" -g 'daemon off;' >"$prefix/nginx.out" 2>&1 &
    # shellcheck disable=SC2034 # the suites' variable
    nginx_pid=$!
}

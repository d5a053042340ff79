# Shared by the shell suites (Tests/*/run.sh): source it after `set -euo pipefail`.

# The keychaind binary under test: $KEYCHAIND, or a build with $SWIFT_FLAGS.
keychaind_binary() {
    if [[ -n ${KEYCHAIND:-} ]]; then
        echo "$KEYCHAIND"
        return
    fi
    local swift_flags
    read -r -a swift_flags <<<"${SWIFT_FLAGS:-}"
    swift build "${swift_flags[@]}" --product keychaind >&2
    echo "$(swift build "${swift_flags[@]}" --show-bin-path)/keychaind"
}

# A TCP port free on 127.0.0.1 right now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Stops the process PID (if it still runs) with SIGTERM and reaps it.
stop_process() {
    local pid=${1:-}
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}

# keychaind refuses to run as root without --allow-root; CI runs as root.
allow_root_flag() {
    if [[ $(id -u) -eq 0 ]]; then echo --allow-root; fi
}

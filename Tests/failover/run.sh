#!/usr/bin/env bash
# PostgreSQL failover under two keychaind replicas, for real: a primary and a synchronous
# standby, each in a network namespace of its own, the replicas on the multi-host URL behind
# nginx, and the failures an orchestrator meets: kill -9 of the primary's machine, a fenced
# primary, a partitioned primary, a clean switchover, each old primary rejoining (pg_rewind)
# and taking over again later, a standby lost. Tests/failover/failover.py says what each case
# checks.
#
# Needs root (network namespaces; PostgreSQL itself runs as nobody), iproute2, nginx and
# PostgreSQL (make deps-test).
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it with swift), SWIFT_FLAGS,
# NGINX (the nginx binary), KEYCHAIND_PG_BIN (PostgreSQL's bin directory).
# FAILOVER_DEBUG=1: when a step fails, print what each server runs and the end of its log.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

if [[ $(id -u) -ne 0 ]]; then
    echo "failover: needs root to create network namespaces (CI runs it as root)" >&2
    exit 1
fi
command -v ip >/dev/null || { echo "failover: ip is not installed (make deps-test installs iproute2)" >&2; exit 1; }
nginx_binary failover
[[ -d /usr/lib/postgresql || -n ${KEYCHAIND_PG_BIN:-} ]] || { echo "failover: PostgreSQL is not installed (make deps-test)" >&2; exit 1; }
pg_bin=${KEYCHAIND_PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -1)}

# The suite's namespaces and links are named after this tag; whatever it leaves (killed before
# its own clean-up) goes on exit, with every process inside.
export FAILOVER_TAG=kf$$
remove_network() {
    local namespace link pid
    for namespace in $(ip netns list | awk -v tag="$FAILOVER_TAG-" 'index($1, tag) == 1 {print $1}'); do
        for pid in $(ip netns pids "$namespace"); do kill -KILL "$pid" 2>/dev/null || true; done
        ip netns del "$namespace"
    done
    for link in $(ip -o link show | awk -F': ' -v tag="$FAILOVER_TAG" 'index($2, tag) == 1 {sub(/@.*/, "", $2); print $2}'); do
        ip link del "$link" 2>/dev/null || true
    done
}
on_exit remove_network

make_traversable_tmp tmp
bin=$(realpath "$(keychaind_binary)")
python3 Tests/failover/failover.py "$bin" "$nginx_bin" "$pg_bin" "$tmp"

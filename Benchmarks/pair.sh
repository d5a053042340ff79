#!/usr/bin/env bash
# pair.sh: the CPU two running servers spend a GET, measured while both are loaded at once.
#
# Usage: pair.sh PID_A URL_A TOKEN_FILE_A PID_B URL_B TOKEN_FILE_B [SECONDS [ITEMS]]
#
# For comparing two builds of keychaind (or keychaind and same_work.c) to a percent: pin both
# servers to the same core beforehand (taskset), each on its own copy of the same keychain of
# ITEMS items (100,000) preloaded as `make bench` preloads it. Two wrk processes (16 connections
# each, get_random.lua, on CLIENT_CORE, 1) load both for SECONDS (5); each server's CPU time over
# the run (user and system, from /proc) divided by the GETs it answered is its cost a GET. Both
# take the machine's changes of speed together, where runs one after the other differ by several
# percent from one to the next: prints each cost and B's over A's.
set -euo pipefail
(($# >= 6)) || { sed -n 4p "$0" >&2; exit 2; }
pid_a=$1 url_a=$2 token_a=$3 pid_b=$4 url_b=$5 token_b=$6 seconds=${7:-5} items=${8:-100000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
load() {
    KEYCHAIND_TOKEN=$(<"$2") timeout $((seconds + 30)) taskset -c "${CLIENT_CORE:-1}" \
        wrk -t1 -c16 -d"${seconds}s" -s "$here/get_random.lua" "$1/" -- "$items" >"$3"
}
requests() { awk '/requests in/ { print $1 }' "$1"; }

a0=$(ticks "$pid_a") b0=$(ticks "$pid_b")
load "$url_a" "$token_a" "$scratch/a" &
load "$url_b" "$token_b" "$scratch/b" &
wait
a1=$(ticks "$pid_a") b1=$(ticks "$pid_b")
grep -q "Non-2xx" "$scratch/a" "$scratch/b" && { echo "pair.sh: a server answered other than 2xx" >&2; exit 1; }
awk -v ta=$((a1 - a0)) -v tb=$((b1 - b0)) -v ra="$(requests "$scratch/a")" -v rb="$(requests "$scratch/b")" \
    -v hz="$(getconf CLK_TCK)" 'BEGIN {
        a = ta * 1e6 / hz / ra; b = tb * 1e6 / hz / rb
        printf "A %.2f us a GET (%d GETs)  B %.2f us a GET (%d GETs)  B/A %.3f\n", a, ra, b, rb, b / a
    }'

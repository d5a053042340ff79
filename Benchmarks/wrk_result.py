#!/usr/bin/env python3
"""Turns one `wrk --latency` log into one JSON line of figures (appended to out/runs.jsonl).

Usage: wrk_result.py LOG --label L --round N [--cpu-ticks T --seconds S] [--client-cpu-seconds C]

T is the server's CPU time in clock ticks over the run; it is divided by the run's length as wrk
reports it ("… requests in 5.01s"), or S when wrk gave none.

Fields: label, round, rate (requests/s), p50_us, p99_us, requests, non2xx, socket_errors,
server_cpu (share of one core the server used, from its /proc ticks), client_cpu_us (the load
generator's own CPU time per request, from C), ok. A run is not ok when
wrk printed "Non-2xx or 3xx responses", any socket error, or no "Requests/sec" line at all.
A one-line summary goes to stderr for the progress log.
"""

import argparse
import json
import os
import re
import sys

UNITS_US = {"us": 1, "ms": 1e3, "s": 1e6, "m": 60e6, "h": 3600e6}


def microseconds(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * UNITS_US[match.group(2)]


def parse(log: str) -> dict:
    figures = {"rate": 0.0, "p50_us": None, "p99_us": None, "requests": 0, "non2xx": 0, "socket_errors": 0}
    for line in log.splitlines():
        line = line.strip()
        if match := re.fullmatch(r"(50|99)(?:\.0+)?%\s+(\S+)", line):
            figures[f"p{match.group(1)}_us"] = microseconds(match.group(2))
        elif match := re.match(r"(\d+) requests in (\S+),", line):
            figures["requests"] = int(match.group(1))
            figures["seconds"] = microseconds(match.group(2)) / 1e6
        elif match := re.match(r"Requests/sec:\s+([\d.]+)", line):
            figures["rate"] = float(match.group(1))
        elif match := re.match(r"Non-2xx or 3xx responses:\s+(\d+)", line):
            figures["non2xx"] = int(match.group(1))
        elif line.startswith("Socket errors:"):
            figures["socket_errors"] = sum(int(n) for n in re.findall(r"\d+", line))
    figures["ok"] = figures["rate"] > 0 and figures["non2xx"] == 0 and figures["socket_errors"] == 0
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--label", required=True)
    parser.add_argument("--round", type=int, required=True)
    parser.add_argument("--cpu-ticks", type=int)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--client-cpu-seconds", type=float)
    options = parser.parse_args()
    with open(options.log) as file:
        figures = parse(file.read())
    cpu = None
    seconds = figures.get("seconds") or options.seconds  # wrk's own figure is the more exact
    if options.cpu_ticks is not None and seconds:
        cpu = options.cpu_ticks / os.sysconf("SC_CLK_TCK") / seconds
    record = {"label": options.label, "round": options.round, **figures, "server_cpu": cpu}
    if options.client_cpu_seconds is not None and figures["requests"]:
        record["client_cpu_us"] = options.client_cpu_seconds * 1e6 / figures["requests"]
    print(json.dumps(record))
    p99 = f"{figures['p99_us'] / 1000:.2f} ms" if figures["p99_us"] is not None else "?"
    flag = "" if figures["ok"] else f"  NOT OK: {figures['non2xx']} non-2xx, {figures['socket_errors']} socket errors"
    cpu_text = f", server {cpu:.0%} of a core" if cpu is not None else ""
    rate = f"{figures['rate']:>9,.0f}" if figures["rate"] >= 100 else f"{figures['rate']:>9.2f}"
    print(f"    {options.label:<4} round {options.round}: {rate}/s, p99 {p99}{cpu_text}{flag}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

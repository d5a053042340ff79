#!/usr/bin/env python3
"""Instructions per GET under callgrind: the measure of B's and H's cost that does not move
with the machine.

Usage:
  instructions.py --label B --token-file F --items N [--gets 3000] [--warm-up 300] -- COMMAND...

Starts COMMAND (a server that listens on the port given by --port, or in the command already)
under `valgrind --tool=callgrind` on core 0, waits for GET /v1/health, sends --warm-up GETs of
random items svc-<i>/acct-<i> (i < N) on one keep-alive connection, zeroes the counters
(`callgrind_control -z`), sends --gets more, dumps the counters (`callgrind_control -d`) and stops
the server. Every GET must answer 200 with the item's value (items.py's value_for), or the run
fails. Prints one JSON line: the label, the GETs counted, instructions per GET over every thread
of the process, and the part of them that is glibc's memset (libmicrohttpd 0.9.75 zeroes its
connection pool between requests with `rep stosb`, which valgrind counts byte by byte: a real
but small cost that inflates an instruction count several times over what it costs in time);
then, per GET, the calls of the C allocator and the Swift runtime's retains and releases (each
an atomic read-modify-write, which costs more time than its few instructions say).

With --functions-out FILE, also writes the functions of COMMAND's own binary that the counted
GETs ran, one per line, `instructions<TAB>symbol`, the most instructions first: what
`Benchmarks/hot-functions.order` is made of (Benchmarks/README.md#hot-functions-first).
"""

import argparse
import base64
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time


def value_for(index: int) -> str:
    return base64.b64encode(f"secret-{index:010d}-0123456789abcdef".encode()[:32]).decode()


def wait_healthy(port: int, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"instructions.py: the server exited with status {process.returncode} before it answered")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/v1/health")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"instructions.py: no 200 from /v1/health within {seconds:.0f} s")


def gets(port: int, token: str, items: int, count: int, rng: random.Random) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(count):
        i = rng.randrange(items)
        connection.request("GET", f"/v1/items?service=svc-{i}&account=acct-{i}&returnData=true", headers=headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200 or json.loads(body)["items"][0]["valueData"] != value_for(i):
            raise SystemExit(f"instructions.py: item {i} answered {response.status}")
    connection.close()


def totals(dump: str) -> tuple[int, int]:
    """(all instructions, memset's) from callgrind_annotate's listing of the dump."""
    listing = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", dump],
                             check=True, capture_output=True, text=True).stdout
    total = memset = 0
    for line in listing.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)", line)
        if not match:
            continue
        count, name = int(match.group(1).replace(",", "")), match.group(2)
        if "PROGRAM TOTALS" in name:
            total = count
        elif ":__memset_" in name:
            memset += count
    return total, memset


# Allocations: every call of the C allocator, whoever makes it (Swift's allocations reach it
# through swift_slowAlloc, SQLite's and libmicrohttpd's directly). Reference counting: the Swift
# runtime's atomic retains and releases (bridged objects' go through them too).
ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}
REFERENCE_COUNTING = {"swift_retain", "swift_release", "swift_retain_n", "swift_release_n"}


def named(line: str, tables: dict[str, dict[str, str]]) -> tuple[str, str] | None:
    """For an `ob=`, `fn=`, `cob=` or `cfn=` line: (its kind, such as `cfn`, and the name).

    callgrind names an object or a function once, `(id) name`, wherever it first appears (a
    callee's line included), and by its id after; `tables` keeps the names given so far."""
    match = re.match(r"(c?)(fn|ob)=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
    if not match:
        return None
    table = tables[match.group(2)]
    if match.group(4):
        table[match.group(3)] = match.group(4)
    return match.group(1) + match.group(2), table.get(match.group(3), "")


def calls(dump: str) -> tuple[int, int]:
    """(calls of the allocator, retains and releases) counted in the dump's call lines.

    A name may carry a recursion suffix (`swift_release'2`) or a symbol version
    (`malloc@@GLIBC_2.2.5`)."""
    tables: dict[str, dict[str, str]] = {"fn": {}, "ob": {}}
    allocations = counted = 0
    callee = ""
    with open(dump) as file:
        for line in file:
            if line.startswith(("fn=", "cfn=", "ob=", "cob=")):
                kind, name = named(line, tables) or ("", "")
                if kind == "cfn":
                    callee = re.split(r"['@]", name)[0]
            elif line.startswith("calls="):
                count = int(line[6:].split()[0])
                if callee in ALLOCATORS:
                    allocations += count
                elif callee in REFERENCE_COUNTING:
                    counted += count
    return allocations, counted


def own_functions(dump: str, binary: str) -> list[tuple[int, str]]:
    """The functions of `binary` (a path) with the instructions each ran itself in the dump.

    A cost line right after a `calls=` line is that call's inclusive cost, not the caller's
    own; a position may be compressed (`+3`, `-2`, `*`)."""
    tables: dict[str, dict[str, str]] = {"fn": {}, "ob": {}}
    own: dict[str, int] = {}
    target = os.path.realpath(binary)
    function = ""
    in_binary = after_call = False
    with open(dump) as file:
        for line in file:
            if line.startswith(("fn=", "cfn=", "ob=", "cob=")):
                kind, name = named(line, tables) or ("", "")
                if kind == "ob":
                    in_binary = os.path.realpath(name) == target if name else False
                elif kind == "fn":
                    function = name
                    after_call = False
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False
                elif in_binary and function:
                    fields = line.split()
                    if len(fields) >= 2:
                        # A recursion suffix (`f'2`) is the same symbol.
                        symbol = function.split("'")[0]
                        own[symbol] = own.get(symbol, 0) + int(fields[1])
    return sorted(((count, name) for name, count in own.items() if count > 0), key=lambda entry: (-entry[0], entry[1]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--items", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--gets", type=int, default=3000)
    parser.add_argument("--warm-up", type=int, default=300)
    parser.add_argument("--start-timeout", type=float, default=600)
    parser.add_argument("--functions-out")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    with open(arguments.token_file) as file:
        token = file.read().strip()
    rng = random.Random(13)
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        process = subprocess.Popen(
            ["taskset", "-c", "0", "valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", *command],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_healthy(arguments.port, process, arguments.start_timeout)
            gets(arguments.port, token, arguments.items, arguments.warm_up, rng)
            subprocess.run(["callgrind_control", "-z", str(process.pid)], check=True, capture_output=True, timeout=60)
            gets(arguments.port, token, arguments.items, arguments.gets, rng)
            subprocess.run(["callgrind_control", "-d", str(process.pid)], check=True, capture_output=True, timeout=60)
            dumps = sorted(name for name in os.listdir(scratch) if re.fullmatch(r"callgrind\.out\.\d+", name))
            if not dumps:
                raise SystemExit("instructions.py: callgrind wrote no dump")
            total, memset = totals(os.path.join(scratch, dumps[-1]))
            allocations, reference_counting = calls(os.path.join(scratch, dumps[-1]))
            if arguments.functions_out:
                with open(arguments.functions_out, "w") as file:
                    for count, name in own_functions(os.path.join(scratch, dumps[-1]), command[0]):
                        file.write(f"{count}\t{name}\n")
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    print(json.dumps({"label": arguments.label, "round": 1, "rate": None, "gets": arguments.gets,
                      "instructions": round(total / arguments.gets), "memset": round(memset / arguments.gets),
                      "allocations": round(allocations / arguments.gets, 1),
                      "reference_counting": round(reference_counting / arguments.gets, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

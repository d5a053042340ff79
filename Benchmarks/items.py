#!/usr/bin/env python3
"""The benchmark's items in keychaind: svc-<i>/acct-<i>, whose 32-byte value names i.

Usage (the admin token in KEYCHAIND_TOKEN):
  items.py add URL START END [CONNECTIONS]   adds items START..END-1; prints "<count> <seconds>"
  items.py check URL INDEX                    reads item INDEX back and checks the decrypted value

`add` keeps CONNECTIONS keep-alive connections busy, one thread each (default 8). Every add is a
durable commit on the server, so the rate is the server's; the threads only keep requests in
flight. It stops at the first response that is not 201 and exits 1.
"""

import base64
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

PROGRESS_EVERY_SECONDS = 30


def value_for(index: int) -> str:
    """The base64 valueData of item `index`: 32 bytes that name the item."""
    return base64.b64encode(f"secret-{index:010d}-0123456789abcdef".encode()[:32]).decode()


def connect(url: str) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


def headers() -> dict:
    return {"Authorization": f"Bearer {os.environ['KEYCHAIND_TOKEN']}", "Content-Type": "application/json"}


def post_all(url: str, indexes: range, connections: int, body_for, noun: str) -> list[str]:
    """POSTs `body_for(i)` to /v1/items for every i of `indexes`, spread over CONNECTIONS
    keep-alive connections (one thread each), reporting progress every 30 s; stops at the first
    answer that is not 201. Returns the failures (empty when every add was 201)."""
    failures: list[str] = []
    added = [0]
    lock = threading.Lock()

    def worker(offset: int) -> None:
        connection = connect(url)
        for i in indexes[offset::connections]:
            if failures:
                return
            connection.request("POST", "/v1/items", body=json.dumps(body_for(i)), headers=headers())
            response = connection.getresponse()
            text = response.read()
            with lock:
                if response.status != 201:
                    failures.append(f"{noun} {i}: HTTP {response.status} {text[:200]!r}")
                    return
                added[0] += 1
        connection.close()

    began = time.monotonic()
    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(connections)]
    for thread in threads:
        thread.start()
    last_report = began
    while any(thread.is_alive() for thread in threads):
        time.sleep(0.2)
        if time.monotonic() - last_report >= PROGRESS_EVERY_SECONDS:
            last_report = time.monotonic()
            rate = added[0] / (last_report - began)
            print(f"    {added[0]:,} of {len(indexes):,} {noun}s, {rate:,.0f} adds/s", file=sys.stderr, flush=True)
    return failures


def add(url: str, start: int, end: int, connections: int) -> int:
    began = time.monotonic()
    failures = post_all(
        url, range(start, end), connections,
        lambda i: {"class": "genericPassword", "service": f"svc-{i}", "account": f"acct-{i}", "valueData": value_for(i)},
        "item")
    if failures:
        print("items.py add failed: " + failures[0], file=sys.stderr)
        return 1
    print(f"{end - start} {time.monotonic() - began:.3f}")
    return 0


def check(url: str, index: int) -> int:
    connection = connect(url)
    connection.request(
        "GET", f"/v1/items?service=svc-{index}&account=acct-{index}&returnData=true", headers=headers())
    response = connection.getresponse()
    text = response.read()
    if response.status != 200:
        print(f"items.py check: item {index}: HTTP {response.status} {text[:200]!r}", file=sys.stderr)
        return 1
    items = json.loads(text)["items"]
    if [item.get("valueData") for item in items] != [value_for(index)]:
        print(f"items.py check: item {index}: unexpected answer {text[:200]!r}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 5 and argv[1] == "add":
        return add(argv[2], int(argv[3]), int(argv[4]), int(argv[5]) if len(argv) > 5 else 8)
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], int(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

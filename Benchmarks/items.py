#!/usr/bin/env python3
"""The benchmark's items in keychaind: svc-<i>/acct-<i>, whose 32-byte value names i; and its KV
version 2 secrets, in keychaind or OpenBao alike: kv/<i> under the mount `secret`, whose data is
{"password": the same 32 bytes}.

Usage (the admin or root token in KEYCHAIND_TOKEN):
  items.py add URL START END [CONNECTIONS]      adds items START..END-1; prints "<count> <seconds>"
  items.py check URL INDEX                       reads item INDEX back and checks the decrypted value
  items.py kv-put URL START END [CONNECTIONS]   writes secrets START..END-1; prints "<count> <seconds>"
  items.py kv-check URL INDEX                    reads secret INDEX back and checks its data

`add` and `kv-put` keep CONNECTIONS keep-alive connections busy, one thread each (default 8).
Every write is a durable commit on the server, so the rate is the server's; the threads only
keep requests in flight. They stop at the first response that is not a success and exit 1.
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


def secret_for(index: int) -> str:
    """The 32 bytes that name item or secret `index`."""
    return f"secret-{index:010d}-0123456789abcdef"[:32]


def value_for(index: int) -> str:
    """The base64 valueData of item `index`."""
    return base64.b64encode(secret_for(index).encode()).decode()


def connect(url: str) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


def headers() -> dict:
    return {"Authorization": f"Bearer {os.environ['KEYCHAIND_TOKEN']}", "Content-Type": "application/json"}


def send_all(url: str, indexes: range, connections: int, request_for, expected: int, noun: str) -> list[str]:
    """Sends `request_for(i)` (a method, a path and a JSON body) for every i of `indexes`, spread
    over CONNECTIONS keep-alive connections (one thread each), reporting progress every 30 s;
    stops at the first answer that is not `expected`. Returns the failures (empty when none)."""
    failures: list[str] = []
    added = [0]
    lock = threading.Lock()

    def worker(offset: int) -> None:
        connection = connect(url)
        for i in indexes[offset::connections]:
            if failures:
                return
            method, path, body = request_for(i)
            connection.request(method, path, body=json.dumps(body), headers=headers())
            response = connection.getresponse()
            text = response.read()
            with lock:
                if response.status != expected:
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
            print(f"    {added[0]:,} of {len(indexes):,} {noun}s, {rate:,.0f} writes/s", file=sys.stderr, flush=True)
    return failures


def post_all(url: str, indexes: range, connections: int, body_for, noun: str) -> list[str]:
    """POSTs `body_for(i)` to /v1/items for every i of `indexes` (see send_all), each a 201."""
    return send_all(url, indexes, connections, lambda i: ("POST", "/v1/items", body_for(i)), 201, noun)


def write(url: str, start: int, end: int, connections: int, request_for, expected: int, noun: str) -> int:
    """Sends the writes of START..END-1 (send_all); prints "<count> <seconds>", or the failure."""
    began = time.monotonic()
    failures = send_all(url, range(start, end), connections, request_for, expected, noun)
    if failures:
        print(f"items.py: writing {noun}s failed: " + failures[0], file=sys.stderr)
        return 1
    print(f"{end - start} {time.monotonic() - began:.3f}")
    return 0


def add(url: str, start: int, end: int, connections: int) -> int:
    def request_for(i):
        return ("POST", "/v1/items",
                {"class": "genericPassword", "service": f"svc-{i}", "account": f"acct-{i}", "valueData": value_for(i)})
    return write(url, start, end, connections, request_for, 201, "item")


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


def kv_put(url: str, start: int, end: int, connections: int) -> int:
    def request_for(i):
        return ("PUT", f"/v1/secret/data/kv/{i}", {"data": {"password": secret_for(i)}})
    return write(url, start, end, connections, request_for, 200, "secret")


def kv_check(url: str, index: int) -> int:
    connection = connect(url)
    connection.request("GET", f"/v1/secret/data/kv/{index}", headers=headers())
    response = connection.getresponse()
    text = response.read()
    data = json.loads(text).get("data", {}).get("data") if response.status == 200 else None
    if data != {"password": secret_for(index)}:
        print(f"items.py kv-check: secret {index}: HTTP {response.status} {text[:200]!r}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 5 and argv[1] == "add":
        return add(argv[2], int(argv[3]), int(argv[4]), int(argv[5]) if len(argv) > 5 else 8)
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], int(argv[3]))
    if len(argv) >= 5 and argv[1] == "kv-put":
        return kv_put(argv[2], int(argv[3]), int(argv[4]), int(argv[5]) if len(argv) > 5 else 8)
    if len(argv) == 4 and argv[1] == "kv-check":
        return kv_check(argv[2], int(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

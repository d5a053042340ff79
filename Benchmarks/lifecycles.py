#!/usr/bin/env python3
"""Item life cycles, as Apple's kc-20-item-add-stress.c runs them on 16 threads, over HTTP.

Usage (the admin token in KEYCHAIND_TOKEN):
  lifecycles.py URL CYCLES CONNECTIONS    prints "<cycles> <connections> <seconds>"

Each cycle works on an item of its own: add with returnPersistentRef, search, read the data by
valuePersistentRef, update the data, read it again, delete by valuePersistentRef, search (404).
CONNECTIONS keep-alive connections, one thread each, share the cycles. Any unexpected status
stops the run with exit 1.
"""

import base64
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def run(url, cycles, connections):
    parsed = urllib.parse.urlsplit(url)
    token = os.environ["KEYCHAIND_TOKEN"]
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    prefix = f"lc-{os.getpid()}-{time.time_ns()}"
    next_cycle = iter(range(cycles))
    lock = threading.Lock()
    failures = []

    def call(conn, method, path, body, expected):
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = conn.getresponse()
        data = response.read()
        if response.status != expected:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        return json.loads(data) if data else None

    def worker():
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
        try:
            while True:
                with lock:
                    n = next(next_cycle, None)
                if n is None:
                    return
                service = f"{prefix}-{n}"
                first = base64.b64encode(f"first-{n}".encode()).decode()
                second = base64.b64encode(f"second-{n}".encode()).decode()
                added = call(conn, "POST", "/v1/items", {"class": "genericPassword", "service": service,
                                                        "valueData": first, "returnPersistentRef": True}, 201)
                ref = added["items"][0]["persistentRef"]
                call(conn, "POST", "/v1/items/search", {"service": service}, 200)
                data = call(conn, "POST", "/v1/items/search", {"valuePersistentRef": ref, "returnData": True}, 200)
                assert data["items"][0]["valueData"] == first
                call(conn, "PATCH", "/v1/items", {"query": {"valuePersistentRef": ref}, "attributesToUpdate": {"valueData": second}}, 200)
                data = call(conn, "POST", "/v1/items/search", {"valuePersistentRef": ref, "returnData": True}, 200)
                assert data["items"][0]["valueData"] == second
                call(conn, "DELETE", "/v1/items", {"valuePersistentRef": ref}, 200)
                call(conn, "POST", "/v1/items/search", {"service": service}, 404)
        except Exception as error:  # noqa: BLE001 - reported, then the run fails
            failures.append(str(error))
        finally:
            conn.close()

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    if failures:
        print("lifecycles:", failures[0], file=sys.stderr)
        sys.exit(1)
    print(cycles, connections, f"{elapsed:.3f}")


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

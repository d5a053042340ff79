#!/usr/bin/env python3
"""Clients that ask for large answers and never read them.

Usage: hoard.py PORT PID TOKEN_FILE SERVER_LOG

Adds 20,000 items (`accessible: always`, 200-byte secrets), then from 60 connections, on 3
addresses, asks each for every item with its secret (`matchLimit=all&returnData=true`) with a
small receive buffer and never reads a byte. Waits until the server has answered all 60 (their
access lines, flushed with SIGHUP, are counted: a condition polled, not a sleep), then measures.

Fails (exit 1) when the server's resident memory grew by more than 128 MiB over the 60 answers
(the review that found it measured 62 MB growing to 507 MB before answers were bounded), or when an answer held more than
1,000 items (a well-behaved client reads one answer and checks its `next`).
"""

import base64
import http.client
import json
import os
import signal
import socket
import sys
import threading
import time

ITEMS, HOARDERS = 20_000, 60
SECRET = base64.b64encode(b"s" * 200).decode()


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def add_items(port: int, token: str) -> None:
    errors: list[str] = []

    def worker(first: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for n in range(first, ITEMS, 16):
            body = json.dumps({"class": "genericPassword", "service": "hoard", "account": f"a{n}",
                               "accessible": "always", "valueData": SECRET})
            connection.request("POST", "/v1/items", body, {"Authorization": f"Bearer {token}",
                                                           "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                errors.append(f"add {n}: {response.status}")
                return

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"hoard: could not add the items: {errors[:3]}")


def answered(pid: int, log: str) -> int:
    os.kill(pid, signal.SIGHUP)  # writes the buffered log lines
    with open(log, errors="replace") as lines:
        return sum(1 for line in lines if "http.method=GET http.route=/v1/items http.status=200" in line)


def main() -> int:
    port, pid, token_file, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    token = open(token_file).read().strip()
    add_items(port, token)
    query = "/v1/items?service=hoard&matchLimit=all&returnData=true"
    probe = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    probe.request("GET", query, headers={"Authorization": f"Bearer {token}"})
    page = json.loads(probe.getresponse().read())
    probe.close()
    before_answers = answered(pid, log)
    rss_before = rss_kib(pid)
    hoarders = []
    for n in range(HOARDERS):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.bind((f"127.0.2.{n % 3 + 1}", 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        hoarders.append(sock)
    deadline = time.monotonic() + 60
    while answered(pid, log) - before_answers < HOARDERS:
        if time.monotonic() > deadline:
            print("FAIL: the server did not answer the 60 requests within 60 s")
            return 1
        time.sleep(0.2)  # polling the condition above
    rss_after = rss_kib(pid)
    for sock in hoarders:
        sock.close()
    grown = (rss_after - rss_before) // 1024
    print(f"hoard: one answer holds {len(page['items'])} of {ITEMS} items (next: {'next' in page}); "
          f"{HOARDERS} unread answers: server VmRSS {rss_before // 1024} MiB before, {rss_after // 1024} MiB after (+{grown} MiB)")
    ok = True
    if len(page["items"]) > 1000 or "next" not in page:
        print("FAIL: an answer held more than 1,000 items, or had no next page")
        ok = False
    if rss_after - rss_before > 128 * 1024:
        print("FAIL: the server's memory grew by more than 128 MiB for unread answers")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

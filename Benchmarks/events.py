#!/usr/bin/env python3
"""The event stream's rows of make bench (GET /v1/events), over raw sockets.

  events.py latency URL TOKEN PASSPHRASE_FILE COUNT ROUND
      COUNT lock and unlock cycles with one subscriber connected: for each lock, the time from
      sending the lock to the lock event arriving at the subscriber (El), and to the lock's own
      answer arriving (Ea, the anchor); prints one JSON line per row for runs.jsonl
  events.py hold URL TOKEN COUNT READY_FILE
      opens COUNT subscribers, writes READY_FILE once each has its stream's first bytes, and
      holds them until its standard input closes
"""

import json
import os
import select
import socket
import sys
import time
import urllib.parse


def address(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port


def subscribe(url, token):
    sock = socket.create_connection(address(url), timeout=30)
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    received = b""
    while b"keychaind events" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit(f"events.py: the stream closed at once: {received[:200]!r}")
        received += chunk
    return sock


def request(sock, method, path, token, body=b""):
    """One keep-alive request on `sock`; returns the status once the whole answer is in."""
    sock.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        rest += sock.recv(65536)
    return int(head.split(b" ")[1])


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def latency(url, token, passphrase_file, count, round_number):
    with open(passphrase_file) as file:
        unlock_body = json.dumps({"passphrase": file.read().rstrip("\n")}).encode()
    subscriber = subscribe(url, token)
    control = socket.create_connection(address(url), timeout=30)
    to_event, to_answer = [], []
    pending = b""
    for _ in range(count):
        began = time.perf_counter()
        control.sendall(
            f"POST /v1/keychain/lock HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\n\r\n"
            .encode())
        event_at = answer_at = None
        answer = b""
        # Whichever comes first is timed first; both are awaited.
        while event_at is None or answer_at is None:
            ready, _, _ = select.select([subscriber, control], [], [], 30)
            if not ready:
                raise SystemExit("events.py: no lock event or answer within 30 s")
            now = time.perf_counter()
            if subscriber in ready:
                pending += subscriber.recv(65536)
                if event_at is None and b"event: lock\n" in pending:
                    event_at = now
                    pending = pending.split(b"event: lock\n", 1)[1]
            if control in ready:
                answer += control.recv(65536)
                head, _, rest = answer.partition(b"\r\n\r\n")
                if head and b"\r\n\r\n" in answer:
                    length = next(
                        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                    if len(rest) >= length and answer_at is None:
                        answer_at = now
                        if not head.startswith(b"HTTP/1.1 200"):
                            raise SystemExit(f"events.py: lock answered {head[:40]!r}")
        to_event.append((event_at - began) * 1e6)
        to_answer.append((answer_at - began) * 1e6)
        if request(control, "POST", "/v1/keychain/unlock", token, unlock_body) != 200:
            raise SystemExit("events.py: unlock failed")
    for label, values in (("El", to_event), ("Ea", to_answer)):
        print(json.dumps({
            "label": label, "round": round_number, "rate": 0, "requests": len(values), "seconds": 0,
            "p50_us": percentile(values, 50), "p99_us": percentile(values, 99), "ok": True}))


def hold(url, token, count, ready_file):
    socks = [subscribe(url, token) for _ in range(count)]
    with open(ready_file, "w") as file:
        file.write(f"{len(socks)}\n")
    sys.stdin.read()
    for sock in socks:
        sock.close()


def main(argv):
    if argv[1] == "latency" and len(argv) == 7:
        latency(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]))
    elif argv[1] == "hold" and len(argv) == 6:
        hold(argv[2], argv[3], int(argv[4]), argv[5])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

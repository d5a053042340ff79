#!/usr/bin/env python3
"""GET /v1/events across two replicas of one PostgreSQL, for Tests/replicas/run.sh: prints one
`ok NAME` or `FAIL NAME: why` line per check and exits 1 when one failed.

  events.py across HOST PORT1 PORT2 TOKEN
      item events made on either replica reach both replicas' subscribers in one order under
      the same ids, and a stream of one replica resumes on the other with Last-Event-ID
"""

import json
import os
import pathlib
import select
import socket
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "events"))
from subscribers import check, failures, request  # noqa: E402


def subscribe(host, port, token, after=None):
    """A socket whose GET /v1/events (resuming after `after`) has begun its stream."""
    sock = socket.create_connection((host, port), timeout=10)
    resume = f"Last-Event-ID: {after}\r\n" if after else ""
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {token}\r\n{resume}\r\n".encode())
    return sock


def events_until(sock, name, seconds=10):
    """The stream's events, (id, name, data), up to and including the first named `name`."""
    deadline = time.monotonic() + seconds
    text = b""
    while True:
        blocks = text.split(b"\n\n")
        events = []
        for block in blocks[:-1]:
            fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line and not line.startswith(b":"))
            if b"event" in fields:
                events.append((fields.get(b"id", b"").decode(), fields[b"event"].decode(),
                               json.loads(fields.get(b"data", b"{}"))))
        if any(event[1] == name for event in events):
            return events[: next(n for n, event in enumerate(events) if event[1] == name) + 1]
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return events
        chunk = sock.recv(65536)
        if not chunk:
            return events
        text += chunk


def across(host, port1, port2, token):
    on_first, on_second = subscribe(host, port1, token), subscribe(host, port2, token)
    service = f"across-{os.getpid()}"
    statuses = [
        request(host, port1, token, "POST", "/v1/items",
                {"class": "genericPassword", "service": service, "account": "a", "valueData": "eA=="})[0],
        request(host, port2, token, "PATCH", "/v1/items",
                {"query": {"class": "genericPassword", "service": service}, "attributesToUpdate": {"label": "L"}})[0],
        request(host, port1, token, "DELETE", f"/v1/items?class=genericPassword&service={service}")[0],
    ]
    check("an add on replica 1, an update on replica 2 and a delete on replica 1 are answered", statuses == [201, 200, 200],
          statuses)
    first = [e for e in events_until(on_first, "delete") if e[1] in ("add", "update", "delete")]
    second = [e for e in events_until(on_second, "delete") if e[1] in ("add", "update", "delete")]
    check("each replica's subscriber gets both replicas' item events, in order",
          [e[1] for e in first] == [e[1] for e in second] == ["add", "update", "delete"], (first, second))
    check("the two replicas give each event the same id", [e[0] for e in first] == [e[0] for e in second],
          ([e[0] for e in first], [e[0] for e in second]))
    if first:
        resumed = events_until(subscribe(host, port2, token, after=first[0][0]), "delete")
        check("a stream of replica 1 resumes on replica 2 with Last-Event-ID",
              [e[0] for e in resumed if e[1] in ("update", "delete")] == [e[0] for e in first[1:]], resumed)


def main(argv):
    if argv[1] != "across":
        sys.exit(__doc__)
    across(argv[2], int(argv[3]), int(argv[4]), argv[5])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

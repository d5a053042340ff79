#!/usr/bin/env python3
"""Starts a server, waits until it answers, and stays its parent until it exits.

Usage: launch.py --ready URL --state FILE [--timeout SECONDS] -- COMMAND...

Refuses to start when URL's port is already taken (a 200 from someone else's server would be
mistaken for ours). Polls URL every millisecond; once it answers 200, writes FILE with the lines
"pid=<server pid>" and "ready_ms=<milliseconds from exec to the first 200>", then waits for the
server. If it does not answer in time or exits first, FILE says "failed=<reason>" and the
launcher exits 1. SIGTERM or SIGINT to the launcher stops the server (SIGTERM, then SIGKILL
after 10 s), so killing either process cleans up both.
"""

import argparse
import http.client
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.parse

KILL_AFTER_SECONDS = 10


def write_state(path: str, text: str) -> None:
    """Writes atomically, so a reader never sees half a file."""
    with open(path + ".tmp", "w") as file:
        file.write(text)
    os.replace(path + ".tmp", path)


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
            return True
        except OSError:
            return False


def answers_200(url: urllib.parse.SplitResult) -> bool:
    try:
        if url.scheme == "https":  # the benchmark's nginx, with a self-signed certificate
            connection = http.client.HTTPSConnection(url.hostname, url.port, timeout=1,
                                                     context=ssl._create_unverified_context())
        else:
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=1)
        connection.request("GET", url.path + ("?" + url.query if url.query else ""))
        ok = connection.getresponse().status == 200
        connection.close()
        return ok
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    url = urllib.parse.urlsplit(options.ready)
    if not port_is_free(url.hostname, url.port):
        write_state(options.state, f"failed=port {url.port} is already in use\n")
        return 1

    server: subprocess.Popen | None = None
    stopping = [False]

    def request_stop(*_) -> None:
        # Only signals here: Popen.wait() must not be re-entered from a signal handler (it deadlocks).
        if not stopping[0]:
            stopping[0] = True
            signal.alarm(KILL_AFTER_SECONDS)
        if server is not None:
            server.send_signal(signal.SIGTERM)

    def kill(*_) -> None:
        if server is not None:
            server.kill()

    # Installed before the server starts, so no signal can leave it without a parent that stops it.
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGALRM, kill)
    began = time.monotonic()
    server = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    if stopping[0]:
        request_stop()

    while not stopping[0]:
        if answers_200(url):
            ready_ms = (time.monotonic() - began) * 1000
            write_state(options.state, f"pid={server.pid}\nready_ms={ready_ms:.1f}\n")
            break
        if server.poll() is not None:
            write_state(options.state, f"failed=exited with status {server.returncode} before answering\n")
            return 1
        if time.monotonic() - began > options.timeout:
            write_state(options.state, f"failed=no 200 from {options.ready} within {options.timeout:g} s\n")
            request_stop()
            break
        time.sleep(0.001)
    # Blocks without polling, so the launcher costs no CPU while the server is measured.
    status = server.wait()
    return 0 if stopping[0] or status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

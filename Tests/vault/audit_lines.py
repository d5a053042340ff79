#!/usr/bin/env python3
"""Checks on keychaind's audit log for Tests/vault/run.sh; exits 1, saying why, when one fails.

  audit_lines.py LOG operations OPERATION...  every OPERATION has a line by a token, answered 2xx
  audit_lines.py LOG token-read NAME OPERATION  the token NAME has OPERATION lines, none refused
"""

import json
import sys

path, command, *arguments = sys.argv[1:]
with open(path, encoding="utf-8") as log:
    lines = [json.loads(line) for line in log if line.strip()]


def answered(line):
    return line["token"] is not None and 200 <= line["httpStatus"] < 300


if command == "operations":
    missing = [op for op in arguments if not any(line["operation"] == op and answered(line) for line in lines)]
    if missing:
        sys.exit(f"no answered line for {missing} among {sorted({line['operation'] for line in lines})}")
elif command == "token-read":
    name, operation = arguments
    mine = [line for line in lines if line["token"] and line["token"]["name"] == name]
    if not any(line["operation"] == operation for line in mine):
        sys.exit(f"no {operation} line by the token {name}")
    refused = [line for line in mine if line["httpStatus"] >= 400]
    if refused:
        sys.exit(f"{len(refused)} of the token {name}'s requests refused: {refused[0]}")
else:
    sys.exit(f"unknown command {command}")

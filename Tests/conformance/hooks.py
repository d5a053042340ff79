"""Schemathesis hooks for Tests/conformance/run.sh: keep generated requests meaningful.

1. openapi.yaml declares `additionalProperties: true` on query objects, because keychaind
   accepts every key under its aliases too (`kSecAttrAccount`, `acct`). Generated from that as
   it stands, most bodies would carry random extra keys that keychaind rightly refuses as
   errSecParam, and the run would test little beyond that refusal. For generation only, these
   objects are closed to their canonical keys. Response schemas declare no
   `additionalProperties` and are left as they are.
2. `GET` and `DELETE /v1/items` take their query from URL parameters or from a JSON body, not
   both (errSecParam), a rule JSON Schema cannot state across two locations: a generated case
   with URL parameters drops its body.
"""

import schemathesis
from schemathesis.core import NOT_SET, NotSet


def _close(node):
    if isinstance(node, dict):
        if node.get("additionalProperties") is True:
            node["additionalProperties"] = False
        for value in node.values():
            _close(value)
    elif isinstance(node, list):
        for value in node:
            _close(value)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    _close(raw_schema)


@schemathesis.hook
def map_case(context, case):
    operation = case.operation
    if (
        operation.path == "/v1/items"
        and operation.method.upper() in ("GET", "DELETE")
        and case.query
        and not isinstance(case.body, NotSet)
    ):
        case.body = NOT_SET
    return case

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
3. Certificates and keys are bytes a generator never guesses: every generated certificate or
   key would be errSecUnknownFormat, and no identity would ever be added or imported. With
   KEYCHAIND_CONFORMANCE_FIXTURES (the directory run.sh fills with openssl), some generated
   adds of certificates, keys and identities carry a real certificate and its private key
   (without the attributes derived from them, which would have to equal the bytes'), some
   imports a real PEM file or PKCS#12 with its password, and some searches ask for PEM
   (`Accept: application/x-pem-file`). Which cases, and which fixture, follow from a checksum
   of the generated case, so a seed replays the same run.
4. The import's bodies (`application/x-pem-file`, `application/x-pkcs12`) go out as text and as
   bytes; PEM answers are checked against their schema as text.
"""

import base64
import os
import pathlib
import zlib

import schemathesis
from schemathesis.core import NOT_SET, NotSet

schemathesis.serializer.alias("application/x-pem-file", "text/plain")
schemathesis.serializer.alias("application/x-pkcs12", "application/octet-stream")


@schemathesis.deserializer("application/x-pem-file")
def _pem_text(context, response):
    return response.content.decode("ascii")


class _Fixtures:
    """What run.sh made with openssl, read once: certificates as base64 DER, Ed25519 private keys
    as base64 of their 32-byte seed (Apple's external representation), PEM files, a PKCS#12."""

    def __init__(self, directory):
        d = pathlib.Path(directory)

        def der(pem_path):
            text = (d / pem_path).read_text()
            body = text.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
            return "".join(body.split())

        leaves = sorted(p.stem for p in d.glob("leaf*.pem"))
        # (certificate, private key) pairs, each the other's.
        self.identities = [
            (der(f"{n}.pem"), base64.b64encode((d / f"{n}.key.der").read_bytes()[-32:]).decode()) for n in leaves
        ]
        self.certificates = [der("ca.pem"), der("ec.pem")] + [c for c, _ in self.identities]
        ca = (d / "ca.pem").read_text()
        self.pem_files = [
            (d / "ec.pem").read_text() + (d / "ec.key").read_text() + ca,
            (d / "ec-sec1.key").read_text() + (d / "ec.pem").read_text(),
            ca,
        ] + [(d / f"{n}.pem").read_text() + (d / f"{n}.key").read_text() + ca for n in leaves] + [
            (d / f"{n}.key").read_text() for n in leaves[:1]
        ]
        self.pkcs12 = (d / "ec.p12").read_bytes()
        self.pkcs12_password = (d / "p12.pass").read_text().rstrip("\n")


_directory = os.environ.get("KEYCHAIND_CONFORMANCE_FIXTURES")
FIXTURES = _Fixtures(_directory) if _directory else None

# Attributes derived from a certificate or a key: a generated value would refuse a real one.
_DERIVED = (
    "certificateType", "certificateEncoding", "subject", "issuer", "serialNumber", "subjectKeyID", "publicKeyHash",
    "keyClass", "keyType", "applicationLabel", "keySizeInBits", "effectiveKeySize",
)
_PEM = "application/x-pem-file"
_ACCESSIBLE = {
    "whenUnlocked", "afterFirstUnlock", "always",
    "whenUnlockedThisDeviceOnly", "afterFirstUnlockThisDeviceOnly", "alwaysThisDeviceOnly",
}
_SEARCHES = {("GET", "/v1/items"), ("POST", "/v1/items/search"), ("GET", "/v1/items/{persistentRef}")}


def _checksum(case):
    """A number that follows from the generated case alone (never from Python's salted hash)."""
    generated = (case.operation.method, case.operation.path, case.query, case.body)
    return zlib.crc32(repr(generated).encode("utf-8", "replace"))


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


def _import_parameters(query):
    """The generated URL parameters an import takes: a real file is then not refused for them."""
    kept = {}
    for name, value in (query or {}).items():
        if name in ("accessGroup", "label") and isinstance(value, str) and (value or name == "label"):
            kept[name] = value
        elif name == "accessible" and isinstance(value, str) and value in _ACCESSIBLE:
            kept[name] = value
        elif name == "synchronizable" and value in (True, False, "true", "false"):
            kept[name] = value
    if str(kept.get("accessible", "")).endswith("ThisDeviceOnly"):
        kept.pop("synchronizable", None)
    return kept


def _with_fixtures(case, pick):
    """Puts real certificates and keys into a generated add, import or search (see 3.)."""
    operation = (case.operation.method.upper(), case.operation.path)
    if operation in _SEARCHES:
        if pick % 4 == 0:
            case.headers = case.headers if case.headers is not None else {}
            case.headers["Accept"] = _PEM
        return
    if FIXTURES is None or pick % 2:
        return
    pick //= 2
    if operation == ("POST", "/v1/items") and isinstance(case.body, dict):
        body = case.body
        kind = body.get("class")
        if kind not in ("identity", "certificate", "key"):
            return
        for name in _DERIVED:
            body.pop(name, None)
        certificate, key = FIXTURES.identities[pick % len(FIXTURES.identities)]
        if kind == "identity":
            body["certificateData"], body["valueData"] = certificate, key
        elif kind == "certificate":
            body["valueData"] = FIXTURES.certificates[pick % len(FIXTURES.certificates)]
        else:
            body.update(valueData=key, keyType="ed25519", keyClass="private")
    elif operation == ("POST", "/v1/items/import"):
        case.query = _import_parameters(case.query)
        if case.media_type == _PEM:
            case.body = FIXTURES.pem_files[pick % len(FIXTURES.pem_files)]
        elif case.media_type == "application/x-pkcs12":
            case.body = FIXTURES.pkcs12
            if pick % 3:
                case.headers = case.headers if case.headers is not None else {}
                case.headers["X-Keychain-PKCS12-Passphrase"] = FIXTURES.pkcs12_password


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
    _with_fixtures(case, _checksum(case))
    return case

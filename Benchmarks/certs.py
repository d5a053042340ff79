#!/usr/bin/env python3
"""The benchmark's certificates: one openssl template, the others patched from it.

Usage (tokens in KEYCHAIND_TOKEN):
  certs.py template DIR                  makes DIR/template.der (a P-256 leaf signed by a throw-away
                                         CA) and DIR/key.x963 (its private key, 04‖X‖Y‖K) with openssl
  certs.py write DIR N OUT               writes certificates 0..N-1, DER, one after the other, to OUT
  certs.py add DIR URL N [CONNECTIONS]   adds identity 0 (certificate 0 and the private key) and
                                         certificates 1..N-1; prints "<count> <seconds>"
  certs.py check DIR URL INDEX...        a certificate search and an identity search by each INDEX's
                                         CN answer exactly its DER (and the private key)
  certs.py window DIR                    prints "<offset> <base64>": certificate 0 in base64 and the
                                         offset of 12 characters that encode 9 of its serial's bytes

Generating 10,000 certificates with the openssl CLI takes minutes, so openssl makes ONE leaf,
subject /CN=host-00000.example.com/O=Bench with a 16-byte serial 0x42…, and certificate i is that
DER with the CN's five digits replaced by i's (host-<i:05>.example.com) and the serial's last 8
bytes by i. Lengths are unchanged, so the DER stays well-formed; the signature no longer verifies,
which does not matter: keychaind parses certificates but does not verify their signatures. Every
certificate keeps the template's public key, so the one private key pairs with all of them: each
certificate is an identity. The serial's first byte (0x42) is never patched, so it stays a
positive, minimal DER INTEGER.

`add` keeps CONNECTIONS keep-alive connections busy as items.py does (default 8); it stops at the
first response that is not 201 and exits 1.
"""

import base64
import json
import os
import subprocess
import sys
import time
import urllib.parse

from items import connect, headers, post_all

CN = b"host-00000.example.com"
SERIAL = "0x42" + "00" * 14 + "01"  # 16 content bytes, the first fixed
SERIAL_LENGTH = 16
WINDOW_BYTES = 9  # 12 base64 characters


def openssl(*arguments: str) -> None:
    subprocess.run(["openssl", *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)


def tlv(der: bytes, offset: int) -> tuple[int, int, int]:
    """(tag, content offset, content length) of the DER element at `offset`."""
    tag, first = der[offset], der[offset + 1]
    if first < 0x80:
        return tag, offset + 2, first
    count = first & 0x7F
    length = int.from_bytes(der[offset + 2:offset + 2 + count], "big")
    return tag, offset + 2 + count, length


def serial_field(der: bytes) -> tuple[int, int]:
    """(offset, length) of the serial number's content bytes in a certificate's DER."""
    _, certificate, _ = tlv(der, 0)
    _, tbs, _ = tlv(der, certificate)
    tag, content, length = tlv(der, tbs)
    if tag == 0xA0:  # [0] version
        tag, content, length = tlv(der, content + length)
    if tag != 0x02:
        raise ValueError("no serial INTEGER where a TBSCertificate has it")
    return content, length


class Template:
    """The template leaf and its private key, as `template` wrote them in DIR."""

    def __init__(self, directory: str):
        with open(os.path.join(directory, "template.der"), "rb") as file:
            self.der = file.read()
        with open(os.path.join(directory, "key.x963"), "rb") as file:
            self.key = file.read()
        self.serial, length = serial_field(self.der)
        if length != SERIAL_LENGTH or self.der[self.serial] != 0x42:
            raise ValueError(f"the template's serial is not the 16 bytes 0x42…: {self.der[self.serial:self.serial + length].hex()}")
        if self.der.count(CN) != 1:
            raise ValueError(f"the template does not hold {CN!r} exactly once")
        self.digits = self.der.index(CN) + len(b"host-")

    def certificate(self, index: int) -> bytes:
        """Certificate `index`: host-<index:05>.example.com, serial 0x42 00…00 <index, 8 bytes>."""
        if not 0 <= index < 100_000:
            raise ValueError("five digits hold indexes 0..99,999")
        der = bytearray(self.der)
        der[self.digits:self.digits + 5] = f"{index:05d}".encode()
        end = self.serial + SERIAL_LENGTH
        der[end - 8:end] = index.to_bytes(8, "big")
        return bytes(der)


def ec_private_key(sec1: bytes) -> bytes:
    """X9.63 04‖X‖Y‖K from SEC1's ECPrivateKey DER (version, privateKey, [0] curve, [1] publicKey)."""
    _, content, length = tlv(sec1, 0)
    end = content + length
    _, after, size = tlv(sec1, content)  # version
    _, scalar_at, scalar_length = tlv(sec1, after + size)
    scalar = sec1[scalar_at:scalar_at + scalar_length]
    offset, point = scalar_at + scalar_length, None
    while offset < end:
        tag, inner, size = tlv(sec1, offset)
        if tag == 0xA1:
            _, bits, bits_length = tlv(sec1, inner)
            point = sec1[bits + 1:bits + bits_length]  # after the unused-bits byte
        offset = inner + size
    if point is None or len(point) != 65 or point[0] != 4:
        raise ValueError("the EC key has no uncompressed P-256 public point")
    return point + scalar.rjust(32, b"\0")


def template(directory: str) -> int:
    os.makedirs(directory, exist_ok=True)
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *curve, "-subj", "/CN=Bench CA/O=Bench", "-days", "3650",
            "-keyout", path("ca.key"), "-out", path("ca.pem"))
    openssl("req", "-new", *curve, "-subj", "/CN=" + CN.decode() + "/O=Bench", "-keyout", path("leaf.key"),
            "-out", path("leaf.csr"))
    with open(path("leaf.ext"), "w") as file:  # a TLS server's v3 leaf
        file.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                   "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    openssl("x509", "-req", "-in", path("leaf.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-set_serial", SERIAL, "-days", "3650", "-extfile", path("leaf.ext"), "-outform", "DER",
            "-out", path("template.der"))
    openssl("ec", "-in", path("leaf.key"), "-outform", "DER", "-out", path("leaf.sec1"))
    with open(path("leaf.sec1"), "rb") as file:
        key = ec_private_key(file.read())
    with open(path("key.x963"), "wb") as file:
        file.write(key)
    made = Template(directory)  # checks the serial and the CN
    if key[:65] not in made.der:
        raise ValueError("the template certificate does not hold the key's public point")
    return 0


def write(directory: str, count: int, out: str) -> int:
    made = Template(directory)
    with open(out, "wb") as file:
        for index in range(count):
            file.write(made.certificate(index))
    return 0


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def add(directory: str, url: str, count: int, connections: int) -> int:
    made = Template(directory)
    began = time.monotonic()
    connection = connect(url)
    body = json.dumps({"class": "identity", "certificateData": b64(made.certificate(0)), "valueData": b64(made.key)})
    connection.request("POST", "/v1/items", body=body, headers=headers())
    response = connection.getresponse()
    text = response.read()
    connection.close()
    if response.status != 201:
        print(f"certs.py add: identity 0: HTTP {response.status} {text[:200]!r}", file=sys.stderr)
        return 1
    failures = post_all(
        url, range(1, count), connections,
        lambda index: {"class": "certificate", "valueData": b64(made.certificate(index))}, "certificate")
    if failures:
        print("certs.py add failed: " + failures[0], file=sys.stderr)
        return 1
    print(f"{count} {time.monotonic() - began:.3f}")
    return 0


def check(directory: str, url: str, indexes: list[int]) -> int:
    made = Template(directory)
    connection = connect(url)

    def search(item_class: str, index: int) -> list[dict]:
        query = urllib.parse.urlencode(
            {"class": item_class, "matchSubjectContains": f"host-{index:05d}.example", "returnData": "true",
             "matchLimit": "all"})
        connection.request("GET", "/v1/items?" + query, headers=headers())
        response = connection.getresponse()
        text = response.read()
        if response.status != 200:
            raise ValueError(f"{item_class} {index}: HTTP {response.status} {text[:200]!r}")
        return json.loads(text)["items"]

    try:
        for index in indexes:
            der = b64(made.certificate(index))
            certificates = search("certificate", index)
            if [item.get("valueData") for item in certificates] != [der]:
                raise ValueError(f"certificate {index}: {len(certificates)} answers, not exactly its DER")
            identities = search("identity", index)
            if [(item.get("certificateData"), item.get("valueData")) for item in identities] != [(der, b64(made.key))]:
                raise ValueError(f"identity {index}: {len(identities)} answers, not exactly its DER and the key")
    except ValueError as error:
        print(f"certs.py check: {error}", file=sys.stderr)
        return 1
    return 0


def window(directory: str) -> int:
    made = Template(directory)
    start = made.serial + 1  # the first content byte stays 0x42
    offset = start + (-start) % 3  # 3 bytes are 4 base64 characters: a window on a 3-byte boundary
    if offset + WINDOW_BYTES > made.serial + SERIAL_LENGTH:
        raise ValueError("no 3-byte-aligned window of 9 bytes in the serial")
    print(f"{offset // 3 * 4} {b64(made.certificate(0))}")
    return 0


def main(argv: list[str]) -> int:
    command, arguments = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if command == "template" and len(arguments) == 1:
        return template(arguments[0])
    if command == "write" and len(arguments) == 3:
        return write(arguments[0], int(arguments[1]), arguments[2])
    if command == "add" and len(arguments) in (3, 4):
        return add(arguments[0], arguments[1], int(arguments[2]), int(arguments[3]) if len(arguments) == 4 else 8)
    if command == "check" and len(arguments) >= 3:
        return check(arguments[0], arguments[1], [int(a) for a in arguments[2:]])
    if command == "window" and len(arguments) == 1:
        return window(arguments[0])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

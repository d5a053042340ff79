#!/usr/bin/env python3
"""Keys used in place, checked by a second implementation: pyca/cryptography (OpenSSL's
libcrypto underneath, but none of keychaind's code: its own key parsing, DER, KDF and ECIES
layout, written here from Apple's definitions).

usage: interop.py URL ADMIN_TOKEN
Prints `ok NAME` or `FAIL NAME` per check (Tests/keys/run.sh counts them).
"""
import base64
import json
import os
import sys
import urllib.error
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, x25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

URL, TOKEN = sys.argv[1], sys.argv[2]
failures = 0


def check(held, name):
    global failures
    print(f"{'ok' if held else 'FAIL'} {name}", flush=True)
    failures += 0 if held else 1


def b64(data):
    return base64.b64encode(data).decode()


def call(path, body):
    request = urllib.request.Request(URL + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def generate(key_type, bits=None, tag="k"):
    body = {"keyType": key_type, "applicationTag": b64(tag.encode()),
            "privateKeyAttrs": {"isPermanent": True, "isExtractable": False}, "publicKeyAttrs": {"isPermanent": True}}
    if bits:
        body["keySizeInBits"] = bits
    status, answer = call("/v1/keys", body)
    assert status == 201, answer
    return answer["privateKeyItem"]["persistentRef"], answer["publicKeyItem"]["persistentRef"], \
        base64.b64decode(answer["publicKey"])


def use(action, ref, algorithm=None, **inputs):
    body = {"persistentRef": ref, **{k: b64(v) if isinstance(v, bytes) else v for k, v in inputs.items()}}
    if algorithm:
        body["algorithm"] = algorithm
    return call(f"/v1/keys/{action}", body)


def add_public_key(key_type, external, tag):
    """A key of this script's, its public half stored in the keychain: an item's reference."""
    status, answer = call("/v1/items", {"class": "key", "keyType": key_type, "keyClass": "public",
                                        "valueData": b64(external), "applicationTag": b64(tag.encode())})
    assert status == 201, answer
    return answer["items"][0]["persistentRef"]


CURVES = {256: ec.SECP256R1(), 384: ec.SECP384R1(), 521: ec.SECP521R1()}
HASHES = {"SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384,
          "SHA512": hashes.SHA512}


def x963(public_key):
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def rsa_public(external):
    """Apple's RSA external representation is a PKCS #1 RSAPublicKey."""
    pem = b"-----BEGIN RSA PUBLIC KEY-----\n" + base64.encodebytes(external) + b"-----END RSA PUBLIC KEY-----\n"
    return serialization.load_pem_public_key(pem)


def ecies_encrypt(curve, recipient, plaintext, hash_name="SHA256"):
    """Apple's eciesEncryption…VariableIVX963…AESGCM: the ephemeral point, the AES-GCM
    ciphertext, its tag; AES-128 up to 256-bit curves, else AES-256; key and 16-byte IV from the
    X9.63 KDF of the shared secret with the ephemeral point as shared info."""
    ephemeral = ec.generate_private_key(curve)
    point = x963(ephemeral.public_key())
    shared = ephemeral.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, recipient))
    size = 16 if curve.key_size <= 256 else 32
    derived = X963KDF(algorithm=HASHES[hash_name](), length=size + 16, sharedinfo=point).derive(shared)
    return point + AESGCM(derived[:size]).encrypt(derived[size:], plaintext, None)


def ecies_decrypt(curve, private_key, ciphertext, hash_name="SHA256"):
    length = 1 + 2 * ((curve.key_size + 7) // 8)
    point, sealed = ciphertext[:length], ciphertext[length:]
    shared = private_key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, point))
    size = 16 if curve.key_size <= 256 else 32
    derived = X963KDF(algorithm=HASHES[hash_name](), length=size + 16, sharedinfo=point).derive(shared)
    return AESGCM(derived[:size]).decrypt(derived[size:], sealed, None)


def verifies(verify):
    try:
        verify()
        return True
    except InvalidSignature:
        return False


def signatures():
    message = os.urandom(100)
    for bits in (256, 384, 521):
        private, _, external = generate("ec", bits, tag=f"ec{bits}")
        public = ec.EllipticCurvePublicKey.from_encoded_point(CURVES[bits], external)
        for hash_name in ("SHA1", "SHA256", "SHA384", "SHA512"):
            status, answer = use("sign", private, f"ecdsaSignatureMessageX962{hash_name}", data=message)
            signature = base64.b64decode(answer.get("signature", ""))
            check(status == 200 and verifies(lambda: public.verify(signature, message, ec.ECDSA(HASHES[hash_name]()))),
                  f"P-{bits} ecdsaSignatureMessageX962{hash_name}: keychaind's signature verifies in cryptography")
        digest = hashes.Hash(hashes.SHA256())
        digest.update(message)
        digest = digest.finalize()
        status, answer = use("sign", private, "ecdsaSignatureDigestX962SHA256", data=digest)
        signature = base64.b64decode(answer.get("signature", ""))
        check(status == 200 and verifies(
            lambda: public.verify(signature, digest, ec.ECDSA(Prehashed(hashes.SHA256())))),
            f"P-{bits} ecdsaSignatureDigestX962SHA256: a signed digest verifies in cryptography")
        # And the other way: cryptography's key signs, keychaind verifies with the public key stored.
        theirs = ec.generate_private_key(CURVES[bits])
        stored = add_public_key("ec", x963(theirs.public_key()), f"theirs-ec{bits}")
        signature = theirs.sign(message, ec.ECDSA(hashes.SHA256()))
        for data, expected, what in ((message, True, "verifies"), (message + b"!", False, "a changed message does not")):
            status, answer = use("verify", stored, "ecdsaSignatureMessageX962SHA256", data=data, signature=signature)
            check(status == 200 and answer.get("verified") is expected,
                  f"P-{bits}: cryptography's signature {what} in keychaind")

    private, _, external = generate("ed25519", tag="ed")
    status, answer = use("sign", private, "edDSASignatureMessageCurve25519SHA512", data=message)
    public = ed25519.Ed25519PublicKey.from_public_bytes(external)
    signature = base64.b64decode(answer.get("signature", ""))
    check(status == 200 and verifies(lambda: public.verify(signature, message)),
          "Ed25519: keychaind's signature verifies in cryptography")
    theirs = ed25519.Ed25519PrivateKey.generate()
    stored = add_public_key("ed25519", theirs.public_key().public_bytes_raw(), "theirs-ed")
    status, answer = use("verify", stored, "edDSASignatureMessageCurve25519SHA512", data=message,
                         signature=theirs.sign(message))
    check(status == 200 and answer.get("verified") is True, "Ed25519: cryptography's signature verifies in keychaind")

    private, _, external = generate("rsa", 2048, tag="rsa")
    public = rsa_public(external)
    for algorithm, scheme in (("rsaSignatureMessagePKCS1v15SHA256", padding.PKCS1v15()),
                              ("rsaSignatureMessagePSSSHA256",
                               padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32))):
        status, answer = use("sign", private, algorithm, data=message)
        signature = base64.b64decode(answer.get("signature", ""))
        check(status == 200 and verifies(lambda: public.verify(signature, message, scheme, hashes.SHA256())),
              f"RSA {algorithm}: keychaind's signature verifies in cryptography (PSS: salt of the hash's length)")


def encryption():
    plaintext = b"a secret for the key, " + os.urandom(40)
    for bits, hash_name in ((256, "SHA256"), (384, "SHA384"), (521, "SHA512")):
        curve = CURVES[bits]
        algorithm = f"eciesEncryptionCofactorVariableIVX963{hash_name}AESGCM"
        private, public_ref, external = generate("ec", bits, tag=f"ecies{bits}")
        status, answer = use("decrypt", private, algorithm, ciphertext=ecies_encrypt(curve, external, plaintext, hash_name))
        check(status == 200 and base64.b64decode(answer.get("plaintext", "")) == plaintext,
              f"P-{bits} {algorithm}: cryptography's ciphertext opens in keychaind")
        theirs = ec.generate_private_key(curve)
        stored = add_public_key("ec", x963(theirs.public_key()), f"theirs-ecies{bits}")
        status, answer = use("encrypt", stored, algorithm, plaintext=plaintext)
        ciphertext = base64.b64decode(answer.get("ciphertext", ""))
        opened = None
        try:
            opened = ecies_decrypt(curve, theirs, ciphertext, hash_name)
        except Exception as error:  # noqa: BLE001 - any failure is the check's
            print(f"     {error!r}")
        check(status == 200 and opened == plaintext, f"P-{bits} {algorithm}: keychaind's ciphertext opens in cryptography")
        # A ciphertext changed in its last byte (the tag) is one errSecParam naming ciphertext.
        tampered = bytearray(ecies_encrypt(curve, external, plaintext, hash_name))
        tampered[-1] ^= 1
        status, answer = use("decrypt", private, algorithm, ciphertext=bytes(tampered))
        check(status == 400 and "ciphertext" in answer.get("message", ""), f"P-{bits}: a tampered ciphertext is 400")

    private, public_ref, external = generate("rsa", 2048, tag="oaep")
    public = rsa_public(external)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    status, answer = use("decrypt", private, "rsaEncryptionOAEPSHA256", ciphertext=public.encrypt(plaintext, oaep))
    check(status == 200 and base64.b64decode(answer.get("plaintext", "")) == plaintext,
          "RSA-OAEP SHA-256: cryptography's ciphertext opens in keychaind")
    theirs = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    stored = add_public_key("rsa", theirs.public_key().public_bytes(serialization.Encoding.DER,
                                                                    serialization.PublicFormat.PKCS1), "theirs-oaep")
    status, answer = use("encrypt", stored, "rsaEncryptionOAEPSHA256", plaintext=plaintext)
    ciphertext = base64.b64decode(answer.get("ciphertext", ""))
    check(status == 200 and theirs.decrypt(ciphertext, oaep) == plaintext,
          "RSA-OAEP SHA-256: keychaind's ciphertext opens in cryptography")


def key_exchange():
    shared_info = b"the two parties"
    for key_type, bits in (("ec", 256), ("ec", 384), ("x25519", None)):
        private, _, external = generate(key_type, bits, tag=f"dh-{key_type}{bits}")
        if key_type == "ec":
            theirs = ec.generate_private_key(CURVES[bits])
            peer = x963(theirs.public_key())
            shared = theirs.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(CURVES[bits], external))
        else:
            theirs = x25519.X25519PrivateKey.generate()
            peer = theirs.public_key().public_bytes_raw()
            shared = theirs.exchange(x25519.X25519PublicKey.from_public_bytes(external))
        status, answer = use("exchange", private, "ecdhKeyExchangeStandard", peerPublicKey=peer)
        check(status == 200 and base64.b64decode(answer.get("sharedSecret", "")) == shared,
              f"{key_type}{bits or ''} ecdhKeyExchangeStandard: both sides hold the same secret")
        derived = X963KDF(algorithm=hashes.SHA256(), length=48, sharedinfo=shared_info).derive(shared)
        status, answer = use("exchange", private, "ecdhKeyExchangeStandardX963SHA256", peerPublicKey=peer,
                             requestedSize=48, sharedInfo=shared_info)
        check(status == 200 and base64.b64decode(answer.get("sharedSecret", "")) == derived,
              f"{key_type}{bits or ''} ecdhKeyExchangeStandardX963SHA256: the X9.63 KDF's 48 bytes agree")


def main():
    signatures()
    encryption()
    key_exchange()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

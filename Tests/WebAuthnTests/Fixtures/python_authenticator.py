#!/usr/bin/env python3
"""An independent software authenticator + browser, written in Python from the WebAuthn Level 2
spec with cbor2 and cryptography, so the Swift verifier is not only checked against its own encoder.

Usage: python_authenticator.py RP_ID ORIGIN CREATE_CHALLENGE_B64URL GET_CHALLENGE_B64URL
Prints JSON: {"es256": ceremony, "rs256": ceremony}, every binary field base64url without padding.
  es256: "packed" self attestation, counters 5 then 6, flags UP|UV|BE|BS, extensions in the assertion.
  rs256: "none" attestation, counters 0 then 0 (like a synced passkey), flags UP only.
"""
import base64
import hashlib
import json
import os
import struct
import sys

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def client_data(kind: str, challenge: str, origin: str) -> bytes:
    # Same member order and compact form as browsers produce.
    return json.dumps(
        {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False},
        separators=(",", ":"),
    ).encode()


def int_bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def cose_es256(public_key) -> dict:
    numbers = public_key.public_numbers()
    return {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}


def cose_rs256(public_key) -> dict:
    numbers = public_key.public_numbers()
    return {1: 3, 3: -257, -1: int_bytes(numbers.n), -2: int_bytes(numbers.e)}


def auth_data(rp_id: str, flags: int, count: int, attested: bytes = b"", extensions: bytes = b"") -> bytes:
    return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count) + attested + extensions


def ceremony(rp_id, origin, create_challenge, get_challenge, algorithm):
    credential_id = os.urandom(32 if algorithm == "es256" else 48)
    user_handle = os.urandom(16)
    if algorithm == "es256":
        private = ec.generate_private_key(ec.SECP256R1())
        cose = cose_es256(private.public_key())
        sign = lambda data: private.sign(data, ec.ECDSA(hashes.SHA256()))  # DER-encoded, as WebAuthn wants
        aaguid = bytes(range(16))
        reg_flags, reg_count, get_flags, get_count = UP | UV | BE | BS | AT, 5, UP | UV | BE | BS | ED, 6
    else:
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cose = cose_rs256(private.public_key())
        sign = lambda data: private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        aaguid = bytes(16)
        reg_flags, reg_count, get_flags, get_count = UP | AT, 0, UP, 0

    attested = aaguid + struct.pack(">H", len(credential_id)) + credential_id + cbor2.dumps(cose)
    reg_auth_data = auth_data(rp_id, reg_flags, reg_count, attested)
    reg_client_data = client_data("webauthn.create", create_challenge, origin)
    if algorithm == "es256":
        signature = sign(reg_auth_data + hashlib.sha256(reg_client_data).digest())
        statement = {"alg": -7, "sig": signature}
        fmt = "packed"
    else:
        statement, fmt = {}, "none"
    attestation_object = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": reg_auth_data})

    extensions = cbor2.dumps({"credProtect": 2}) if get_flags & ED else b""
    get_auth_data = auth_data(rp_id, get_flags, get_count, extensions=extensions)
    get_client_data = client_data("webauthn.get", get_challenge, origin)
    assertion_signature = sign(get_auth_data + hashlib.sha256(get_client_data).digest())

    return {
        "credentialId": b64url(credential_id),
        "userHandle": b64url(user_handle),
        "coseKey": b64url(cbor2.dumps(cose)),
        "aaguid": b64url(aaguid),
        "registration": {
            "clientDataJSON": b64url(reg_client_data),
            "attestationObject": b64url(attestation_object),
        },
        "assertion": {
            "clientDataJSON": b64url(get_client_data),
            "authenticatorData": b64url(get_auth_data),
            "signature": b64url(assertion_signature),
            "userHandle": b64url(user_handle),
        },
    }


def main():
    rp_id, origin, create_challenge, get_challenge = sys.argv[1:5]
    result = {alg: ceremony(rp_id, origin, create_challenge, get_challenge, alg) for alg in ("es256", "rs256")}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

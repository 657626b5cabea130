#!/usr/bin/env python3
"""s3ctl: the two S3 calls the compose set-up needs, signed with AWS SigV4 (standard library only).

  s3ctl create-bucket NAME   creates the bucket (an existing one of ours is fine); waits up to
                             60 s for the server to answer first
  s3ctl list NAME            prints every object key in the bucket, one a line

Settings from the environment: S3_ENDPOINT (default http://127.0.0.1:$NANIO_PORT), S3_REGION
(us-east-1), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (else NANIO_ACCESS_KEY / NANIO_SECRET_KEY).
"""
import datetime
import hashlib
import hmac
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

ENDPOINT = os.environ.get("S3_ENDPOINT") or f"http://127.0.0.1:{os.environ.get('NANIO_PORT', '9000')}"
REGION = os.environ.get("S3_REGION") or "us-east-1"
ACCESS_KEY = os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("NANIO_ACCESS_KEY", "")
SECRET_KEY = os.environ.get("AWS_SECRET_ACCESS_KEY") or os.environ.get("NANIO_SECRET_KEY", "")
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def request(method: str, path: str, query: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Sends one signed request with an empty body (path-style: /bucket/key); answers status and body."""
    url = urllib.parse.urlsplit(ENDPOINT)
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    canonical_query = "&".join(
        f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}" for k, v in sorted((query or {}).items())
    )
    headers = {"host": url.netloc, "x-amz-content-sha256": EMPTY_SHA256, "x-amz-date": amz_date}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([
        method, urllib.parse.quote(path, safe="/-_.~"), canonical_query,
        "".join(f"{k}:{headers[k]}\n" for k in sorted(headers)), signed, EMPTY_SHA256,
    ])
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{SECRET_KEY}".encode(), day), REGION), "s3"), "aws4_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders={signed}, Signature={signature}"
    target = f"{url.scheme}://{url.netloc}{urllib.parse.quote(path, safe='/-_.~')}" + (f"?{canonical_query}" if canonical_query else "")
    req = urllib.request.Request(target, method=method, headers={k: v for k, v in headers.items() if k != "host"})
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def create_bucket(name: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            status, body = request("PUT", f"/{name}")
            break
        except OSError as error:  # not listening yet
            if time.monotonic() > deadline:
                sys.exit(f"s3ctl: {ENDPOINT} does not answer: {error}")
            time.sleep(1)
    if status == 200 or (status == 409 and b"BucketAlreadyOwnedByYou" in body):
        print(f"s3ctl: bucket {name} is ready")
        return
    sys.exit(f"s3ctl: creating bucket {name} failed with {status}: {body.decode(errors='replace')}")


def list_keys(name: str) -> None:
    ns = "{http://s3.amazonaws.com/doc/2006-03-01/}"
    query = {"list-type": "2"}
    while True:
        status, body = request("GET", f"/{name}", query)
        if status != 200:
            sys.exit(f"s3ctl: listing bucket {name} failed with {status}: {body.decode(errors='replace')}")
        root = ET.fromstring(body)
        for key in root.iter(f"{ns}Key"):
            print(key.text)
        token = root.findtext(f"{ns}NextContinuationToken")
        if root.findtext(f"{ns}IsTruncated") != "true" or not token:
            return
        query = {"list-type": "2", "continuation-token": token}


if __name__ == "__main__":
    commands = {"create-bucket": create_bucket, "list": list_keys}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2])

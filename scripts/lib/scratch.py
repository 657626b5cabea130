"""What the Python checks share: the scratch databases, blob stores and `selfie` servers they start
(loopback only), and the API calls every one of them makes (sign-up, sign-in, an upload).
`restore_drill.py` and `tus-check.py` import it."""
import base64
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import boto3

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SELFIE = os.path.join(ROOT, os.environ.get("SELFIE_BIN", ".build/debug/selfie"))
ENV = {}
for line in open(os.path.join(ROOT, ".env")):
    if "=" in line and not line.startswith("#"):
        name, value = line.rstrip("\n").split("=", 1)
        ENV[name] = value
APP_NAME, APP_PASSWORD = ENV["API_AUTH_NAME"], ENV["API_AUTH_PASSWORD"]
DATABASE_BASE = ENV["DATABASE_URL"].rsplit("/", 1)[0]
PASSWORD = "drill password 1"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def psql(sql):
    subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-qtA", "-c", sql], check=True, capture_output=True)


def psql_value(database, sql):
    """One value from `database`, as text."""
    return subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-qtA", "-d", database, "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def fresh_database(name):
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(f"CREATE DATABASE {name} OWNER selfie")
    return f"{DATABASE_BASE}/{name}"


def drop_database(name):
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Store:
    """A blob store's settings, and what is in it (blob key → SHA-256)."""

    def __init__(self, kind, place):
        self.kind, self.place = kind, place
        if kind == "s3":
            self.s3 = boto3.client("s3", endpoint_url=os.environ["TEST_S3_NANIO_ENDPOINT"], region_name="us-east-1",
                                   aws_access_key_id=os.environ["TEST_S3_NANIO_ACCESS_KEY"],
                                   aws_secret_access_key=os.environ["TEST_S3_NANIO_SECRET_KEY"])
            self.s3.create_bucket(Bucket=place)
        else:
            shutil.rmtree(place, ignore_errors=True)
            os.makedirs(place)

    def settings(self):
        if self.kind == "s3":
            return {"BLOB_STORE": "s3", "S3_ENDPOINT": os.environ["TEST_S3_NANIO_ENDPOINT"], "S3_REGION": "us-east-1",
                    "S3_BUCKET_NAME": self.place, "AWS_ACCESS_KEY_ID": os.environ["TEST_S3_NANIO_ACCESS_KEY"],
                    "AWS_SECRET_ACCESS_KEY": os.environ["TEST_S3_NANIO_SECRET_KEY"]}
        return {"BLOB_STORE": "fs", "BLOB_DIR": self.place}

    def contents(self):
        found = {}
        if self.kind == "s3":
            for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.place):
                for item in page.get("Contents", []):
                    body = self.s3.get_object(Bucket=self.place, Key=item["Key"])["Body"].read()
                    # Objects are named S3_KEY_PREFIX (default `photos/`) + the blob's key.
                    found[item["Key"].rsplit("/", 1)[-1]] = hashlib.sha256(body).hexdigest()
        else:
            for folder, _, files in os.walk(self.place):
                for name in files:
                    found[name] = hashlib.sha256(open(os.path.join(folder, name), "rb").read()).hexdigest()
        return found

    def read(self, key):
        if self.kind == "s3":
            return self.s3.get_object(Bucket=self.place, Key=f"photos/{key}")["Body"].read()
        return open(os.path.join(self.place, key[:2], key[2:4], key), "rb").read()

    def put(self, key, data):
        if self.kind == "s3":
            self.s3.put_object(Bucket=self.place, Key=f"photos/{key}", Body=data)
        else:
            open(os.path.join(self.place, key[:2], key[2:4], key), "wb").write(data)

    def remove(self, key):
        if self.kind == "s3":
            self.s3.delete_object(Bucket=self.place, Key=f"photos/{key}")
        else:
            os.remove(os.path.join(self.place, key[:2], key[2:4], key))

    def wipe(self):
        if self.kind == "s3":
            for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.place):
                for item in page.get("Contents", []):
                    self.s3.delete_object(Bucket=self.place, Key=item["Key"])
            self.s3.delete_bucket(Bucket=self.place)
        else:
            shutil.rmtree(self.place)


def selfie(arguments, database_url, store, check=True):
    environment = {**os.environ, **ENV, "DATABASE_URL": database_url, "LOG_LEVEL": "warning", **store.settings()}
    started = time.time()
    run = subprocess.run([SELFIE] + arguments, env=environment, capture_output=True, text=True)
    if check and run.returncode != 0:
        sys.exit(f"selfie {' '.join(arguments)} failed ({run.returncode}):\n{run.stdout}{run.stderr}")
    return run, time.time() - started


class Server:
    """`selfie serve` on a free port (or `port`, to start one again where it was), with `settings`
    added to the environment."""

    def __init__(self, database_url, store, log, settings=None, port=None, public_url=None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, **ENV, "DATABASE_URL": database_url, "PORT": str(self.port), "PUBLIC_URL": public_url or self.base,
                       "LOG_LEVEL": "warning", "TRASH_DAYS": "30", "LOCKOUT_THRESHOLD": "0", "RATE_LIMIT_SIGN_INS_PER_MINUTE": "0",
                       "RATE_LIMIT_SIGN_UPS_PER_HOUR": "0", "RATE_LIMIT_UPLOADS_PER_HOUR": "0", **store.settings(), **(settings or {})}
        self.process = subprocess.Popen([SELFIE, "serve", "--migrate"], env=environment, stdout=open(log, "a"), stderr=subprocess.STDOUT)
        for _ in range(150):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1)
                return
            except Exception:
                time.sleep(0.1)
        sys.exit(f"selfie did not start; see {log}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)

    def call(self, method, path, body=None, token=None, basic=False, raw=None, content_type="application/json"):
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type
        if token:
            headers["Authorization"] = f"Token token={token}"
        if basic:
            headers["Authorization"] = "Basic " + base64.b64encode(f"{APP_NAME}:{APP_PASSWORD}".encode()).decode()
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, method, path, **options):
        status, body = self.call(method, path, **options)
        assert status in (200, 201), f"{method} {path}: {status} {body[:300]!r}"
        return json.loads(body)


def encrypted(password):
    key = hashlib.sha256(APP_PASSWORD.encode()).hexdigest()
    out = subprocess.run(["openssl", "enc", "-aes-256-cbc", "-K", key, "-iv", "0" * 32], input=password.encode(),
                         capture_output=True, check=True).stdout
    return base64.b64encode(out).decode()


def sign_up(server, email):
    server.json("POST", "/api/signup", body={"full_name": "Drill User", "email": email, "password": encrypted(PASSWORD)}, basic=True)
    return sign_in(server, email)


def sign_in(server, email):
    return server.json("POST", "/api/signin", body={"email": email, "password": encrypted(PASSWORD)}, basic=True)["api_authtoken"]


def upload(server, token, image, title):
    boundary = "drill-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"photo\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + image + \
        (f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{title}\r\n--{boundary}--\r\n").encode()
    return server.json("POST", "/api/upload_photo", token=token, raw=body,
                       content_type=f"multipart/form-data; boundary={boundary}")["random_id"]

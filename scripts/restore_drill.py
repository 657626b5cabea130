#!/usr/bin/env python3
"""The restore drill (`make test`): what an operator does after losing a server, end to end, with
the real `selfie` binary, PostgreSQL and — for S3 — nanio (which checks every signature).

For each store (the filesystem; S3), on a scratch database and an empty store:
  1. people use Selfie: accounts, photos with their renditions, an album, a photo in the trash;
  2. `selfie backup DIR`;
  3. the database and the store are wiped (dropped, emptied);
  4. `selfie restore DIR` into a new, empty database and a new, empty store;
  5. Selfie serves the restored data: a password sign-in (API and browser) works, every API answer
     is the same, and every blob is byte-identical;
  6. `selfie check` finds everything in order; one more upload, then a second backup into the same
     DIR copies only its four blobs;
  7. a restore refuses a target that is not empty; `selfie check` names the photo whose original
     was deleted and exits 1; a damaged backup (one flipped byte) restores nothing.
The S3 backup is also restored into a filesystem store (the store may change on restore).
Figures: the time and size of each backup and restore.
"""
import base64
import hashlib
import http.cookiejar
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import boto3
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELFIE = os.path.join(ROOT, os.environ.get("SELFIE_BIN", ".build/debug/selfie"))
WORK = os.path.join(ROOT, ".build", "restore-drill")
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
    def __init__(self, database_url, store, log):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, **ENV, "DATABASE_URL": database_url, "PORT": str(self.port), "PUBLIC_URL": self.base,
                       "LOG_LEVEL": "warning", "TRASH_DAYS": "30", "LOCKOUT_THRESHOLD": "0", "RATE_LIMIT_SIGN_INS_PER_MINUTE": "0",
                       "RATE_LIMIT_SIGN_UPS_PER_HOUR": "0", "RATE_LIMIT_UPLOADS_PER_HOUR": "0", **store.settings()}
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


def browser_sign_in(server, email):
    """The sign-in form with its CSRF token, as a browser posts it; True when it lands signed in."""
    jar = http.cookiejar.CookieJar()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *arguments):
            return None

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    page = opener.open(server.base + "/signin").read().decode()
    csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"_csrf": csrf, "email": email, "password": PASSWORD}).encode()
    try:
        opener.open(urllib.request.Request(server.base + "/signin", data=form))
        return False
    except urllib.error.HTTPError as answer:
        if answer.code != 303:
            return False
    return opener.open(server.base + "/account").status == 200


def photo(seed, size=(1600, 1200)):
    image = Image.effect_noise(size, 40 + seed).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def upload(server, token, image, title):
    boundary = "drill-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"photo\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + image + \
        (f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{title}\r\n--{boundary}--\r\n").encode()
    return server.json("POST", "/api/upload_photo", token=token, raw=body,
                       content_type=f"multipart/form-data; boundary={boundary}")["random_id"]


def fetched(server, url):
    if url.startswith("/"):
        url = server.base + url
    with urllib.request.urlopen(url, timeout=30) as answer:
        return hashlib.sha256(answer.read()).hexdigest()


def answers(server, users):
    """What each user's app sees: photos, albums (with their photos), trash and usage — every
    image URL replaced by the SHA-256 of what it serves (signed URLs differ from one run to another)."""
    seen = {}
    for email, token in users.items():
        photos = server.json("GET", "/api/get_photos", token=token)
        for item in photos:
            for field in list(item):
                if field.endswith("url") and isinstance(item[field], str):
                    item[field] = fetched(server, item[field])
        albums = server.json("GET", "/api/albums", token=token)
        for album in albums:
            album["content"] = [p["random_id"] for p in server.json("GET", f"/api/albums/{album['id']}", token=token)["photos"]]
            album.pop("cover_url", None)
        trash = server.json("GET", "/api/trash", token=token)
        for item in trash:
            for field in list(item):
                if field.endswith("url"):
                    item.pop(field)
        seen[email] = {"photos": photos, "albums": albums, "trash": trash, "usage": server.json("GET", "/api/usage", token=token)}
    return seen


def copied(report):
    return int(re.search(r"copied now: (\d+)", report).group(1))


def drill(kind, restore_kind):
    name = f"drill_{kind}"
    backup = os.path.join(WORK, f"backup-{kind}")
    shutil.rmtree(backup, ignore_errors=True)
    log = os.path.join(WORK, f"{kind}.log")
    source_db = f"selfie_{name}"
    source_url = fresh_database(source_db)
    # Bucket names are not reused within a run: nanio lists a recreated bucket's old objects.
    stamp = f"{kind}-to-{restore_kind}-{int(time.time())}"
    source = Store(kind, f"drill-{stamp}-source" if kind == "s3" else os.path.join(WORK, f"{kind}-source-blobs"))
    server = Server(source_url, source, log)

    users = {}
    for n in range(3):
        email = f"drill{n}-{kind}@example.com"
        users[email] = sign_up(server, email)
    first = list(users)[0]
    ids = [upload(server, users[first], photo(i), f"photo {i}") for i in range(4)]
    upload(server, users[list(users)[1]], photo(9), "someone else's")
    album = server.json("POST", "/api/albums", token=users[first], body={"title": "Holidays", "description": "by the sea"})
    server.json("POST", f"/api/albums/{album['id']}/photos", token=users[first], body={"random_ids": ids[:3]})
    status, _ = server.call("DELETE", "/api/delete_photo", token=users[first], body={"photo_id": ids[3]})
    assert status == 200
    before = answers(server, users)
    assert before[first]["trash"] and before[first]["albums"][0]["content"], "the drill's data is in place"
    blobs_before = source.contents()
    assert len(blobs_before) == 5 * 4, f"five photos, four blobs each: {len(blobs_before)}"

    run, backup_seconds = selfie(["backup", backup], source_url, source)
    print(run.stdout.strip())
    assert copied(run.stdout) == 20
    backup_bytes = sum(os.path.getsize(os.path.join(folder, f)) for folder, _, files in os.walk(backup) for f in files)

    # The disaster: the database and the store are gone.
    server.stop()
    drop_database(source_db)
    source.wipe()

    target_db = f"selfie_{name}_restored"
    target_url = fresh_database(target_db)
    target = Store(restore_kind, f"drill-{stamp}-restored" if restore_kind == "s3" else os.path.join(WORK, f"{kind}-restored-blobs"))
    run, restore_seconds = selfie(["restore", backup], target_url, target)
    print(run.stdout.strip())
    restored = target.contents()
    assert restored == blobs_before, "every blob is back, byte for byte"

    server = Server(target_url, target, log)
    for email in users:
        users[email] = sign_in(server, email)  # a password sign-in on the restored accounts
    assert browser_sign_in(server, first), "a browser signs in with the password and opens its account"
    after = answers(server, users)
    assert after == before, f"the same answers after the restore:\n{json.dumps(before)[:800]}\n{json.dumps(after)[:800]}"

    run, _ = selfie(["check"], target_url, target)
    assert "Everything is in order." in run.stdout, run.stdout

    # A second backup into the same folder copies only what is new.
    upload(server, users[first], photo(20), "after the restore")
    run, _ = selfie(["backup", backup], target_url, target)
    assert copied(run.stdout) == 4, run.stdout
    print(f"incremental backup: {run.stdout.strip().splitlines()[-1].strip()}")

    # A target that is not empty is refused; so is a damaged backup, which restores nothing.
    run, _ = selfie(["restore", backup], target_url, target, check=False)
    assert run.returncode == 1 and "not empty" in run.stderr, run.stderr
    # `selfie check` names the photo whose original went missing, and exits 1.
    lost = subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-qtA", "-d", target_db, "-c",
                           "SELECT blob_key FROM photos ORDER BY id LIMIT 1"], capture_output=True, text=True, check=True).stdout.strip()
    target.remove(lost)
    run, _ = selfie(["check"], target_url, target, check=False)
    assert run.returncode == 1 and f"missing original: photo" in run.stdout and lost in run.stdout, run.stdout + run.stderr
    server.stop()
    empty_url = fresh_database(f"selfie_{name}_empty")
    empty = Store("fs", os.path.join(WORK, f"{kind}-empty-blobs"))
    victim = next(os.path.join(folder, f) for folder, _, files in os.walk(os.path.join(backup, "blobs")) for f in files)
    original = open(victim, "rb").read()
    open(victim, "wb").write(original[:100] + bytes([original[100] ^ 1]) + original[101:])
    run, _ = selfie(["restore", backup], empty_url, empty, check=False)
    assert run.returncode == 1 and "damaged" in run.stderr and os.path.basename(victim) in run.stderr, run.stderr
    assert not empty.contents(), "a damaged backup restores nothing"
    open(victim, "wb").write(original)
    drop_database(f"selfie_{name}_empty")
    drop_database(target_db)
    target.wipe()
    print(f"ok: {kind} → {restore_kind}: backup {backup_seconds:.1f} s ({backup_bytes / 1e6:.2f} MB), restore {restore_seconds:.1f} s; "
          "same answers, byte-identical blobs, a password sign-in works, selfie check clean; the second backup copied 4 blobs; "
          "a non-empty target and a damaged backup were refused; a lost original was named by selfie check")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    for source, target in [("fs", "fs"), ("s3", "s3"), ("s3", "fs")][int(sys.argv[1]) if len(sys.argv) > 1 else 0:]:
        drill(source, target)

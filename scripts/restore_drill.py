#!/usr/bin/env python3
"""The restore drill (`make test`): what an operator does after losing a server, end to end, with
the real `selfie` binary, PostgreSQL and — for S3 — nanio (which checks every signature).

For each store (the filesystem; S3), on a scratch database and an empty store:
  1. people use Selfie: accounts, photos with their renditions, an album, a photo in the trash;
  2. `selfie backup DIR`;
  3. the database and the store are wiped (dropped, emptied);
  4. `selfie restore DIR` into a new, empty database and a new, empty store;
  5. Selfie serves the restored data: a password sign-in (API and browser) works, every API answer
     is the same, and every blob is byte-identical; a resumable upload half sent at backup time is
     gone (404), not resumed onto bytes the backup does not hold;
  6. `selfie check` finds everything in order; one more upload, then a second backup into the same
     DIR copies only its four blobs;
  7. a restore refuses a target that is not empty; `selfie check` names the photo whose original
     was deleted and exits 1; a damaged backup (one flipped byte) restores nothing.
The S3 backup is also restored into a filesystem store (the store may change on restore).
Figures: the time and size of each backup and restore.
"""
import hashlib
import http.cookiejar
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from scratch import (PASSWORD, ROOT, Server, Store, drop_database, fresh_database, selfie, sign_in,  # noqa: E402
                     sign_up, upload)

WORK = os.path.join(ROOT, ".build", "restore-drill")


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


def tus(server, method, path, token, headers=None, data=None):
    """A tus 1.0 request: its status and headers."""
    request = urllib.request.Request(server.base + path, data=data, method=method, headers={
        "Authorization": f"Token token={token}", "Tus-Resumable": "1.0.0", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def psql_value(database, query):
    return subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-qtA", "-d", database, "-c", query],
                          capture_output=True, text=True, check=True).stdout.strip()


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

    # A resumable upload half sent when the backup runs: its bytes are not in the backup.
    status, headers = tus(server, "POST", "/api/uploads", users[first], {"Upload-Length": "20000"})
    assert status == 201, status
    unfinished = urllib.parse.urlparse(headers["Location"]).path
    status, _ = tus(server, "PATCH", unfinished, users[first], {"Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"},
                    data=photo(7)[:5000])
    assert status == 204, status

    run, backup_seconds = selfie(["backup", backup], source_url, source)
    print(run.stdout.strip())
    assert copied(run.stdout) == 20
    # Every photo and the whole database: no other user of the machine may read any of it.
    shared = [path for folder, _, files in os.walk(backup) for path in [folder] + [os.path.join(folder, f) for f in files]
              if os.stat(path).st_mode & 0o077]
    assert not shared, f"readable by other users: {shared[:4]}"
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
    status, _ = tus(server, "HEAD", unfinished, users[first])
    assert status == 404, f"the half-sent upload is gone (its bytes were not backed up), so the app starts it again: {status}"

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
    assert run.returncode == 1 and "missing original: photo" in run.stdout and lost in run.stdout, run.stdout + run.stderr
    # Bit rot in the store: a backup that copies the blob names it (its bytes no longer match the
    # SHA-256 its row records) and exits 2; one into a folder holding a good copy keeps that copy.
    rotten = psql_value(target_db, "SELECT blob_key FROM photos ORDER BY id LIMIT 1 OFFSET 1")
    good = target.read(rotten)
    target.put(rotten, good[:100] + bytes([good[100] ^ 1]) + good[101:])
    fresh = os.path.join(WORK, f"backup-{kind}-rotten")
    shutil.rmtree(fresh, ignore_errors=True)
    run, _ = selfie(["backup", fresh], target_url, target, check=False)
    assert run.returncode == 2 and "do not match their rows' SHA-256" in run.stderr and rotten in run.stdout, run.stdout + run.stderr
    shutil.rmtree(fresh)
    selfie(["backup", backup], target_url, target)
    kept = next(os.path.join(folder, f) for folder, _, files in os.walk(os.path.join(backup, "blobs")) for f in files if f == rotten)
    assert open(kept, "rb").read() == good, "the good copy from the earlier backup is kept"
    target.put(rotten, good)
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
    # A manifest whose names lead out of the backup folder (a blob key, the dump's file, the
    # snapshot named in `latest`) is refused before anything is read or touched.
    latest_file = os.path.join(backup, "latest")
    snapshot = open(latest_file).read().strip()
    manifest_path = os.path.join(backup, "snapshots", snapshot, "manifest.json")
    manifest_text = open(manifest_path).read()
    outside = os.path.join(WORK, "outside.jpg")
    open(outside, "wb").write(original)
    digest = hashlib.sha256(original).hexdigest()
    for field, value, said in [("blob", "../outside.jpg", "not a key Selfie makes"),
                               ("database_file", "../../../outside.jpg", "not the database file a backup writes")]:
        manifest = json.loads(manifest_text)
        if field == "blob":
            manifest["blobs"].append({"key": value, "bytes": len(original), "sha256": digest})
        else:
            manifest["database_file"] = value
        open(manifest_path, "w").write(json.dumps(manifest))
        run, _ = selfie(["restore", backup], empty_url, empty, check=False)
        assert run.returncode == 1 and "damaged" in run.stderr and said in run.stderr, run.stderr
        assert not empty.contents(), f"{field}: nothing restored into the store"
        assert psql_value(f"selfie_{name}_empty", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0", f"{field}: nor the database"
    open(manifest_path, "w").write(manifest_text)
    open(latest_file, "w").write("../../..\n")
    run, _ = selfie(["restore", backup], empty_url, empty, check=False)
    assert run.returncode == 1 and "not a snapshot's name" in run.stderr, run.stderr
    open(latest_file, "w").write(snapshot + "\n")
    drop_database(f"selfie_{name}_empty")
    drop_database(target_db)
    target.wipe()
    print(f"ok: {kind} → {restore_kind}: backup {backup_seconds:.1f} s ({backup_bytes / 1e6:.2f} MB), restore {restore_seconds:.1f} s; "
          "same answers, byte-identical blobs, a password sign-in works, selfie check clean; the second backup copied 4 blobs; "
          "a non-empty target, a damaged backup and a manifest leading out of its folder were refused; a lost original was named by selfie check")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    for source, target in [("fs", "fs"), ("s3", "s3"), ("s3", "fs")][int(sys.argv[1]) if len(sys.argv) > 1 else 0:]:
        drill(source, target)

#!/usr/bin/env python3
"""Resumable uploads (tus) against plain ones, on the real `selfie` binary (after `make build`):

  memory      8 people upload a 60 MB photo each at once through tus (tuspy, 5 MiB chunks): the
              server's peak RSS (VmHWM, reset after warming up) against its idle RSS;
  throughput  the same photo uploaded N times one after another, through /api/upload_photo and
              through tus: MB per second of the server's CPU (utime + stime from /proc), both ways.

The photo is a real JPEG padded to 60 MB with comment segments of random bytes, so the renditions
stay quick and the figures are about moving bytes. Usage (from the repository's root):

  python3 bench/tus-upload.py [--store fs|s3] [--runs 5]

`--store s3` needs the test peers (`bash scripts/test-peers.sh start`, then export
.build/test-peers/env).
"""
import argparse
import io
import os
import shutil
import sys
import threading
import time

import requests
from PIL import Image
from tusclient import client as tus

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "lib"))
from scratch import ROOT, Server, Store, drop_database, fresh_database, sign_up  # noqa: E402

WORK = os.path.join(ROOT, ".build", "bench-tus")
MB = 1024 * 1024
CHUNK = 5 * MB
PEOPLE = 8


def padded_jpeg(path, megabytes):
    buffer = io.BytesIO()
    Image.effect_noise((1024, 768), 50).convert("RGB").save(buffer, "JPEG", quality=85)
    jpeg = buffer.getvalue()
    segments = (megabytes * MB - len(jpeg)) // 65537
    padding = b"".join(b"\xff\xfe" + (65535).to_bytes(2, "big") + os.urandom(65533) for _ in range(segments))
    with open(path, "wb") as out:
        out.write(jpeg[:2] + padding + jpeg[2:])


def status(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return fields


def rss_mib(pid, field):
    return int(status(pid)[field].split()[0]) / 1024


def cpu_seconds(pid):
    parts = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def tus_uploader(server, token, path, title):
    return tus.TusClient(server.base + "/api/uploads", headers={"Authorization": f"Token token={token}"}).uploader(
        path, chunk_size=CHUNK, metadata={"filename": "big.jpg", "title": title})


def tus_upload(server, token, path, title):
    uploader = tus_uploader(server, token, path, title)
    uploader.upload()
    assert uploader.request.response_headers.get("upload-photo-id"), uploader.request.response_headers


def at_once(work):
    """Runs work(n) for every person in threads of their own; the failures."""
    failures = []

    def person(n):
        try:
            work(n)
        except Exception as error:  # noqa: BLE001 — reported by the caller
            failures.append(repr(error))

    threads = [threading.Thread(target=person, args=(n,)) for n in range(PEOPLE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def plain_upload(server, token, body, title):
    answer = requests.post(server.base + "/api/upload_photo", headers={"Authorization": f"Token token={token}"},
                           files={"image": ("big.jpg", body, "image/jpeg")}, data={"title": title}, timeout=120)
    assert answer.status_code == 200, answer.text[:200]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", choices=("fs", "s3"), default="fs")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--megabytes", type=int, default=60)
    parser.add_argument("--throughput-only", action="store_true", help="skip the memory runs (for profiling)")
    options = parser.parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    photo = os.path.join(WORK, "big.jpg")
    padded_jpeg(photo, options.megabytes)
    size = os.path.getsize(photo)
    body = open(photo, "rb").read()

    database = "selfie_bench_tus"
    database_url = fresh_database(database)
    store = Store(options.store, f"bench-tus-{int(time.time())}" if options.store == "s3" else os.path.join(WORK, "blobs"))
    settings = {"MAX_UPLOAD_BYTES": str(100 * MB), "MAX_CONCURRENT_UPLOADS": str(4 * PEOPLE)}
    server = Server(database_url, store, os.path.join(WORK, "server.log"), settings=settings)
    pid = server.process.pid
    try:
        tokens = [sign_up(server, f"bench-{n}@example.com") for n in range(PEOPLE)]
        # Warm up: one of each, so pools, caches and code are in memory before the baseline.
        tus_upload(server, tokens[0], photo, "warm-up tus")
        plain_upload(server, tokens[0], body, "warm-up plain")
        time.sleep(1)
        idle = rss_mib(pid, "VmRSS")
        with open(f"/proc/{pid}/clear_refs", "w") as clear:
            clear.write("5")  # VmHWM starts again from the current RSS

        # The bytes: every chunk but the last, 8 uploads at once.
        uploaders = [tus_uploader(server, tokens[n], photo, f"at once {n}") for n in range(PEOPLE)]
        last_boundary = (size - 1) // CHUNK * CHUNK
        started = time.time()
        failures = at_once(lambda n: uploaders[n].upload(stop_at=last_boundary))
        seconds = time.time() - started
        transfer = rss_mib(pid, "VmHWM")
        # The last chunks: each upload becomes a photo (renditions made from the original).
        failures += at_once(lambda n: uploaders[n].upload())
        whole = rss_mib(pid, "VmHWM")
        print(f"store: {options.store}; photo: {size / 1e6:.1f} MB; chunks: {CHUNK // MB} MiB")
        print(f"memory: {PEOPLE} tus uploads at once, {PEOPLE * last_boundary / 1e6:.0f} MB in {seconds:.1f} s; idle RSS {idle:.1f} MiB; "
              f"peak while the bytes arrive {transfer:.1f} MiB (+{transfer - idle:.1f}); with the last chunks and renditions "
              f"{whole:.1f} MiB (+{whole - idle:.1f}); failures: {failures or 'none'}")
        with open(f"/proc/{pid}/clear_refs", "w") as clear:
            clear.write("5")
        base = rss_mib(pid, "VmRSS")
        failures = at_once(lambda n: plain_upload(server, tokens[n], body, f"plain at once {n}"))
        print(f"memory: {PEOPLE} plain uploads at once for comparison: {base:.1f} → {rss_mib(pid, 'VmHWM'):.1f} MiB; "
              f"failures: {failures or 'none'}")

        for name, upload in (("plain", lambda n: plain_upload(server, tokens[1], body, f"plain {n}")),
                             ("tus", lambda n: tus_upload(server, tokens[1], photo, f"tus {n}"))):
            cpu, wall = cpu_seconds(pid), time.time()
            for n in range(options.runs):
                upload(n)
            cpu, wall = cpu_seconds(pid) - cpu, time.time() - wall
            megabytes = options.runs * size / 1e6
            print(f"throughput {name:5}: {options.runs} × {size / 1e6:.1f} MB in {wall:.1f} s, server CPU {cpu:.2f} s: "
                  f"{megabytes / cpu:.0f} MB per CPU-second, {megabytes / wall:.0f} MB/s")
    finally:
        server.stop()
        drop_database(database)
        store.wipe()


if __name__ == "__main__":
    main()

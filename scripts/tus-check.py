#!/usr/bin/env python3
"""The resumable-upload check (`make test`): PyPI's tus client (tuspy, which no one here wrote)
against the real `selfie` binary, for the filesystem store and for S3 (nanio, which checks every
signature). For each store, with a 60 MB image (PNG, 6000 × 3376 pixels) sent in 5 MiB chunks:
  0. nginx whose `client_max_body_size` is 10m (the README's snippet) refuses the file in one
     request (`/api/upload_photo`: 413);
  1. through that nginx, tus: the upload completes,
     the last answer names the photo (`Upload-Photo-Id`), the photo is in `get_photos` with its
     renditions, and tuspy's sha1 `Upload-Checksum` was checked on every chunk;
  2. the server restarted between two chunks: the upload goes on where it was and completes;
  3. an instance killed (-9) half-way, a second one taking over: a new tuspy uploader asks the
     second instance (HEAD) where the upload stands and completes it there;
and every time the stored original is byte-identical (SHA-256) to the file.
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from PIL import Image
from tusclient import client as tus

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from scratch import ROOT, Server, Store, drop_database, free_port, fresh_database, psql_value, sign_up  # noqa: E402

WORK = os.path.join(ROOT, ".build", "tus-check")
CHUNK = 5 * 1024 * 1024
SETTINGS = {"MAX_UPLOAD_BYTES": str(100 * 1024 * 1024)}


def big_image(path):
    """A 60 MB PNG: noise (no smooth areas a codec could squeeze), stored without compression."""
    image = Image.effect_noise((1500, 844), 60).convert("RGB").resize((6000, 3376), Image.NEAREST)
    image.save(path, "PNG", compress_level=0)
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


class Nginx:
    """nginx in front of one instance, refusing bodies over 10 MB as many set-ups do."""

    def __init__(self, backend_port):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        folder = os.path.join(WORK, "nginx")
        os.makedirs(folder, exist_ok=True)
        config = os.path.join(folder, "nginx.conf")
        with open(config, "w") as out:
            out.write(f"""
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    server {{
        listen 127.0.0.1:{self.port};
        client_max_body_size 10m;
        location /api/uploads {{
            proxy_pass http://127.0.0.1:{backend_port};
            proxy_http_version 1.1;
            proxy_request_buffering off;
            proxy_set_header Host $host;
        }}
        location / {{ proxy_pass http://127.0.0.1:{backend_port}; }}
    }}
}}
""")
        subprocess.run(["nginx", "-c", config, "-p", folder, "-e", f"{folder}/error.log"], check=True)
        self.pid_file = f"{folder}/nginx.pid"

    def stop(self):
        with open(self.pid_file) as pid:
            os.kill(int(pid.read()), signal.SIGQUIT)


def nginx_call(nginx, path, token, body):
    request = urllib.request.Request(nginx.base + path, data=body, method="POST", headers={
        "Authorization": f"Token token={token}", "Content-Type": "multipart/form-data; boundary=x"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (ConnectionError, urllib.error.URLError):
        return 413, b""  # nginx may close before the whole body is sent; its log says 413


def uploader(endpoint, token, path, title, url=None):
    client = tus.TusClient(endpoint, headers={"Authorization": f"Token token={token}"})
    return client.uploader(path, url=url, chunk_size=CHUNK, metadata={"filename": "big.png", "title": title},
                           upload_checksum=True)


def finish(upload):
    """Sends the rest; the photo the last answer names."""
    while upload.offset < upload.get_file_size():
        upload.upload_chunk()
    photo = upload.request.response_headers.get("upload-photo-id")
    assert photo, f"the last PATCH named no photo: {upload.request.response_headers}"
    return photo


def check_photo(server, token, store, database, photo, title, digest):
    photos = server.json("GET", "/api/get_photos", token=token)
    found = [item for item in photos if item["random_id"] == photo]
    assert found and found[0]["title"] == title, f"{photo} is not in get_photos: {photos}"
    key = psql_value(database, f"SELECT blob_key FROM photos WHERE public_id = '{photo}'")
    renditions = psql_value(database, f"SELECT count(*) FROM photo_renditions r JOIN photos p ON p.id = r.photo_id WHERE p.public_id = '{photo}'")
    assert renditions == "3", f"{photo} has {renditions} renditions"
    stored = store.contents()[key]
    assert stored == digest, f"the stored original differs: {stored} != {digest}"
    recorded = psql_value(database, f"SELECT encode(sha256, 'hex') FROM photos WHERE public_id = '{photo}'")
    assert recorded == digest, f"the recorded SHA-256 differs: {recorded} != {digest}"


def run(kind):
    name = f"selfie_tus_{kind}"
    database_url = fresh_database(name)
    store = Store(kind, f"tus-check-{int(time.time())}" if kind == "s3" else os.path.join(WORK, "blobs"))
    image = os.path.join(WORK, "big.png")
    digest = big_image(image)
    size = os.path.getsize(image)
    log = os.path.join(WORK, f"{kind}.log")
    port = free_port()
    nginx = Nginx(port)
    server = Server(database_url, store, log, settings=SETTINGS, port=port, public_url=nginx.base)
    second = None
    try:
        token = sign_up(server, f"tus-{kind}@example.com")

        # 0. What tus is for: nginx refuses the file in one request.
        with open(image, "rb") as body:
            refused, _ = nginx_call(nginx, "/api/upload_photo", token, body.read())
        assert refused == 413, f"nginx let {size} bytes through in one request: {refused}"

        # 1. Through nginx, 5 MiB at a time, sha1 checksums on.
        started = time.time()
        upload = uploader(nginx.base + "/api/uploads", token, image, "through nginx")
        photo = finish(upload)
        seconds = time.time() - started
        check_photo(server, token, store, name, photo, "through nginx", digest)
        print(f"ok   {kind}: {size / 1e6:.1f} MB in {CHUNK >> 20} MiB chunks through nginx (10m) in {seconds:.1f} s: {photo}")

        # 2. The server restarted between two chunks.
        upload = uploader(nginx.base + "/api/uploads", token, image, "across a restart")
        for _ in range(5):
            upload.upload_chunk()
        before = upload.offset
        server.stop()
        server = Server(database_url, store, log, settings=SETTINGS, port=port, public_url=nginx.base)
        photo = finish(upload)
        check_photo(server, token, store, name, photo, "across a restart", digest)
        print(f"ok   {kind}: restarted at {before} bytes; the upload went on and completed: {photo}")

        # 3. One instance killed half-way, another takes over (HEAD, then the rest).
        second = Server(database_url, store, log, settings=SETTINGS)
        upload = uploader(server.base + "/api/uploads", token, image, "taken over")
        for _ in range(6):
            upload.upload_chunk()
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        on_second = upload.url.replace(nginx.base, second.base).replace(server.base, second.base)
        resumed = uploader(second.base + "/api/uploads", token, image, "taken over", url=on_second)
        assert resumed.offset == upload.offset, f"HEAD on the second instance says {resumed.offset}, the first stored {upload.offset}"
        photo = finish(resumed)
        check_photo(second, token, store, name, photo, "taken over", digest)
        print(f"ok   {kind}: the first instance killed at {upload.offset} bytes; the second resumed from HEAD and completed: {photo}")
    finally:
        for instance in (server, second):
            if instance and instance.process.poll() is None:
                instance.stop()
        nginx.stop()
        drop_database(name)
        store.wipe()


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for kind in ("fs", "s3"):
        run(kind)
    print("resumable uploads: ok")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# What real photos cost (loopback only):
#  1. the image pipeline alone (release build): milliseconds to make every rendition of a 12 MP
#     JPEG and a 12 MP HEIC on one core, and peak memory with 8 at once;
#  2. the server: peak RSS while 8 uploads of a 12 MP JPEG arrive at once, then the bytes of a
#     gallery page of 24 such photos with its images at 1× (what a phone downloads), beside the
#     originals' bytes;
#  3. real 14.7 MP camera-like JPEGs (Debian's plasma-workspace-wallpapers: Volna is progressive
#     4:4:4, SafeLanding baseline 4:2:0), uploaded end to end through /api/upload_photo: median wall
#     time of 5 (and 5 through curl, which asks `Expect: 100-continue`), then 8 at once with the
#     server's idle and peak RSS and the image workers' peak.
# Usage: bench/images.sh        (SELFIE_BIN=.build/release/selfie to measure a release server;
#                               SKIP_PIPELINE=1 for the server's figures only, without building the bench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/share/wallpapers/Volna ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq plasma-workspace-wallpapers >/dev/null
if [ -z "${SKIP_PIPELINE:-}" ]; then
    RELEASE_PRODUCTS=selfie-image-bench bash scripts/release-build.sh 2>&1 | tail -1
    echo "==> the pipeline (release, one photo per core)"
    .build/release/selfie-image-bench --runs 10 --concurrency 8
elif [ ! -f "${TMPDIR:-/tmp}/imaging-bench/photo-12mp.jpg" ]; then
    # The bench makes the 12 MP photos the server part uploads; the debug build makes the same ones.
    swift build --product selfie-image-bench 2>&1 | tail -1
    .build/debug/selfie-image-bench --runs 1 --no-peak-rss > /dev/null
fi

photo=${TMPDIR:-/tmp}/imaging-bench/photo-12mp.jpg
. scripts/lib/scratch-server.sh
start_scratch_server images MAX_CONCURRENT_UPLOADS_PER_USER=8
trap 'kill $server 2>/dev/null || true' EXIT
token=$(api_token images@example.com "image bench password")
echo "==> the server ($(basename "${SELFIE_BIN:-.build/debug/selfie}") in ${SELFIE_BIN:-.build/debug/selfie})"
python3 - "$base" "$token" "$server" "$photo" "${photo%.jpg}.heic" <<'PY'
import re, sys, threading, time, urllib.parse, urllib.request, http.cookiejar
base, token, pid, photo, heic = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
image = open(photo, "rb").read()

def status(field):
    return next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith(field)) // 1024

def upload(title, image=image):
    boundary = "bench"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n\r\n").encode() + image + \
        (f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{title}\r\n--{boundary}--\r\n").encode()
    request = urllib.request.Request(base + "/api/upload_photo", data=body, headers={
        "Authorization": f"Token token={token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    return urllib.request.urlopen(request, timeout=120).status

for kind, data in (("JPEG", image), ("HEIC", open(heic, "rb").read())):
    idle = status("VmRSS")
    open(f"/proc/{pid}/clear_refs", "w").write("5")
    started = time.time()
    statuses = []
    threads = [threading.Thread(target=lambda i=i: statuses.append(upload(f"burst {i}", data))) for i in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(f"8 concurrent uploads of a {len(data) / 1e6:.1f} MB 12 MP {kind}: {sorted(statuses)} in {time.time() - started:.1f} s; "
          f"RSS {idle} MB before, peak {status('VmHWM')} MB")
for i in range(8):
    assert upload(f"photo {i}") == 200

# A browser's view: sign in, the gallery page, and each image it shows at 1× (the `src`).
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
page = opener.open(base + "/signin").read().decode()
csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
opener.open(base + "/signin", data=urllib.parse.urlencode({"_csrf": csrf, "email": "images@example.com", "password": "image bench password"}).encode())
html = opener.open(base + "/gallery").read()
sources = [s.decode().replace("&amp;", "&") for s in re.findall(rb'<img src="([^"]+)"', html)]
images = sum(len(urllib.request.urlopen(s).read()) for s in sources)
print(f"gallery page of {len(sources)} photos at 1x: {(len(html) + images) / 1e6:.2f} MB "
      f"({len(html) / 1e3:.0f} KB HTML + {images / 1e6:.2f} MB of thumbnails); the originals would be {len(sources) * len(image) / 1e6:.0f} MB")

# Real 14.7 MP JPEGs, end to end; then 8 at once, with the image workers' peaks (the server's children).
import os, statistics

def workers():
    return [child for task in os.listdir(f"/proc/{pid}/task") for child in open(f"/proc/{pid}/task/{task}/children").read().split()]

def peak(process):
    return next(int(l.split()[1]) for l in open(f"/proc/{process}/status") if l.startswith("VmHWM")) // 1024

for name in ("Volna", "SafeLanding", "Flow"):
    image = open(f"/usr/share/wallpapers/{name}/contents/images/5120x2880.jpg", "rb").read()
    upload("warm-up", image)
    times = []
    for i in range(5):
        started = time.perf_counter()
        assert upload(f"{name} {i}", image) == 200
        times.append((time.perf_counter() - started) * 1000)
    print(f"{name} ({len(image) / 1e6:.1f} MB): median {statistics.median(times):.0f} ms, min {min(times):.0f} ms end to end")

# The same through curl, which sends `Expect: 100-continue` for a body over 1 MiB and waits up to
# a second for the 100 before sending it.
import subprocess

def curl_upload(name):
    status, seconds = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", f"Authorization: Token token={token}",
         "-F", f"image=@/usr/share/wallpapers/{name}/contents/images/5120x2880.jpg", "-F", "title=curl", base + "/api/upload_photo"],
        check=True, capture_output=True, text=True).stdout.split()
    assert status == "200", f"curl upload of {name} answered {status}"
    return float(seconds) * 1000

for name in ("Volna", "SafeLanding"):
    times = [curl_upload(name) for _ in range(5)]
    print(f"{name} through curl: median {statistics.median(times):.0f} ms, min {min(times):.0f} ms end to end")

image = open("/usr/share/wallpapers/Volna/contents/images/5120x2880.jpg", "rb").read()
idle = status("VmRSS")
open(f"/proc/{pid}/clear_refs", "w").write("5")
for worker in workers(): open(f"/proc/{worker}/clear_refs", "w").write("5")
started = time.time()
statuses = []
threads = [threading.Thread(target=lambda i=i: statuses.append(upload(f"burst {i}", image))) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
peaks = [peak(w) for w in workers()]
print(f"8 at once (Volna): {sorted(statuses)} in {time.time() - started:.1f} s; server RSS {idle} MB idle, peak {status('VmHWM')} MB; "
      f"image workers' peaks {peaks} MB")
PY

#!/usr/bin/env bash
# Faults a real deployment meets, against a live Selfie (scratch database, loopback only):
#  1. PostgreSQL stopped for a few seconds under steady load: every answer is a 200 or a 503
#     (JSON under /api, a page in the browser), never a 500, and Selfie recovers by itself.
#  2. Fifty uploads trickling in a byte at a time: those beyond the server's cap are refused at
#     once (429), the rest end at the upload deadline (408), memory stays flat (peak RSS < 150 MB)
#     and the server keeps answering.
#  3. SIGTERM during a slow upload: /readyz turns 503 at once while /livez and new requests are
#     still served for DRAIN_SECONDS, then the listener closes; the upload finishes (200), then
#     the server exits.
#  4. SIGTERM while an upload never finishes: it is cancelled SHUTDOWN_TIMEOUT_SECONDS after the
#     drain, leaves no row and no file, and the server exits (a hang at shutdown cannot outlast it).
# Used by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh
read -r pg_version pg_cluster _ < <(pg_lsclusters -h | head -1)
trap 'pg_ctlcluster "$pg_version" "$pg_cluster" start >/dev/null 2>&1 || true; kill ${server:-} 2>/dev/null || true' EXIT
start_scratch_server faults MAX_CONCURRENT_UPLOADS=20 MAX_CONCURRENT_UPLOADS_PER_USER=100 UPLOAD_TIMEOUT_SECONDS=10 DRAIN_SECONDS=2
work=$scratch_dir
token=$(api_token faults@example.com "fault check password")

echo "==> fault 1: PostgreSQL stopped for 4 s under load"
python3 - "$base" "$token" > "$work/load.txt" <<'PY' &
# Three clients in parallel (an API call, the health check, a page) and a crowd of 32 health
# checks, so that requests pile up while the pool reconnects. A request that was already past its
# first query when PostgreSQL went away waits for the pool to reconnect (the pool retries with
# backoff) and is answered once the database is back: the slowest answer is printed, and a request
# that never ends is caught by the 30 s timeout.
import sys, time, threading, urllib.request, urllib.error, collections
base, token = sys.argv[1], sys.argv[2]
counts, timeline, lock = collections.Counter(), [], threading.Lock()
slowest = [0.0, ""]
deadline = time.time() + 16

def client(path, headers):
    while time.time() < deadline:
        request = urllib.request.Request(base + path, headers=headers)
        started = time.time()
        try:
            status = urllib.request.urlopen(request, timeout=30).status
        except urllib.error.HTTPError as error:
            status = error.code
        except Exception as error:
            status = f"error:{type(error).__name__}"
        with lock:
            counts[status] += 1
            timeline.append((round(time.time(), 2), path, status))
            if time.time() - started > slowest[0]:
                slowest[:] = [time.time() - started, f"{path} {status}"]
        time.sleep(0.05)

# With connections kept open, PostgresNIO 1.33.2 stopped the process on a precondition when the
# crowd piled up (DatabaseURL.poolConfiguration).
crowd = [("/healthz", {})] * 32
threads = [threading.Thread(target=client, args=args) for args in (
    ("/api/get_photos", {"Authorization": f"Token token={token}"}), ("/healthz", {}), ("/account", {"Cookie": "selfie_session=unknown"}), *crowd)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(dict(counts))
print(f"slowest answer: {slowest[0]:.1f} s ({slowest[1]})")
for entry in sorted(timeline)[-6:]:
    print(*entry)
PY
load=$!
sleep 3
pg_ctlcluster "$pg_version" "$pg_cluster" stop -m fast
sleep 4
pg_ctlcluster "$pg_version" "$pg_cluster" start
wait $load
cat "$work/load.txt"
python3 - "$work/load.txt" <<'PY'
import ast, sys
lines = open(sys.argv[1]).read().splitlines()
counts = ast.literal_eval(lines[0])
bad = {status: n for status, n in counts.items() if status not in (200, 303, 503)}
assert not bad, f"answers other than 200/303/503 during the outage: {bad}"
assert counts.get(503, 0) > 0, "the outage was not noticed (no 503)"
assert all(line.split()[-1] in ("200", "303") for line in lines[-6:] if not line.startswith("slowest")), "not recovered at the end of the run"
print(f"ok: {counts.get(200, 0) + counts.get(303, 0)} answered normally, {counts.get(503, 0)} answered 503 while PostgreSQL was down, none else; recovered by itself")
PY

echo "==> fault 2: 50 uploads trickling in (cap 20 at once, 10 s deadline)"
python3 - "$base" "$token" "$server" <<'PY'
import socket, sys, threading, time, urllib.request
base, token, pid = sys.argv[1], sys.argv[2], sys.argv[3]
host, port = base.split("//")[1].split(":")
boundary = "trickle"
head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n"
        "Content-Type: image/jpeg\r\n\r\n").encode() + b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
results, lock = [], threading.Lock()

def peak_rss_mib():
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmHWM")) // 1024

def trickle():
    s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall((f"POST /api/upload_photo HTTP/1.1\r\nHost: x\r\nAuthorization: Token token={token}\r\n"
               f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {5 * 1024 * 1024}\r\n\r\n").encode() + head)
    s.setblocking(False)
    started, answer = time.time(), b""
    while time.time() - started < 25 and b"\r\n" not in answer:
        try:
            answer += s.recv(4096)
        except BlockingIOError:
            try:
                s.send(b"\x00")
            except OSError:
                pass
            time.sleep(1)
        except OSError:
            break
    with lock:
        results.append((answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none", round(time.time() - started, 1)))
    s.close()

before = peak_rss_mib()
threads = [threading.Thread(target=trickle) for _ in range(50)]
for thread in threads: thread.start()
for thread in threads: thread.join()
statuses = sorted(status for status, _ in results)
refused = [seconds for status, seconds in results if status == "429"]
timed_out = [seconds for status, seconds in results if status == "408"]
peak = peak_rss_mib()
healthy = urllib.request.urlopen(base + "/healthz", timeout=5).status
print(f"answers: {dict((s, statuses.count(s)) for s in set(statuses))}; 429s within {max(refused, default=0)} s, "
      f"408s after {min(timed_out, default=0)}-{max(timed_out, default=0)} s; peak RSS {before} -> {peak} MiB; /healthz {healthy}")
assert len(refused) == 30 and max(refused) < 3, "the uploads beyond the cap were not refused at once"
assert len(timed_out) == 20 and all(9 <= s < 20 for s in timed_out), "the uploads in progress did not end at the deadline"
assert peak < 150, f"peak RSS {peak} MiB"
assert healthy == 200
print("ok: beyond the cap refused at once, the rest ended at the deadline, memory flat, still healthy")
PY

echo "==> fault 3: SIGTERM during a slow upload"
# A real photo-sized JPEG (noise compresses badly): ~0.7 MB, four seconds at 200 KB/s.
python3 -c 'import sys; from PIL import Image; Image.effect_noise((900, 700), 90).convert("RGB").save(sys.argv[1], quality=95)' "$work/photo.jpg"
curl -s -o "$work/upload.json" -w '%{http_code}' --limit-rate 200k -H "Authorization: Token token=$token" \
    -F "image=@$work/photo.jpg;type=application/octet-stream" -F "title=in flight" "$base/api/upload_photo" > "$work/upload.status" &
upload=$!
sleep 1
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ] || { echo "/readyz was not 200 before SIGTERM" >&2; exit 1; }
kill -TERM "$server"
sleep 0.3
ready=$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")
live=$(curl -s -o /dev/null -w '%{http_code}' "$base/livez")
page=$(curl -s -o /dev/null -w '%{http_code}' "$base/signin")
echo "while draining: /readyz $ready, /livez $live, /signin $page"
[ "$ready/$live/$page" = "503/200/200" ] || { echo "expected 503/200/200 while draining" >&2; exit 1; }
sleep 2.5
closed=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/livez" || true)
echo "after the grace: a new connection gets ${closed:-nothing} (000: refused)"
[ "$closed" = 000 ] || { echo "the listener still took a new connection after the grace" >&2; exit 1; }
wait $upload || true
status=$(cat "$work/upload.status")
for _ in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server" 2>/dev/null; then echo "server still running 10 s after SIGTERM" >&2; exit 1; fi
[ "$status" = "200" ] || { echo "the in-flight upload got $status: $(cat "$work/upload.json")" >&2; exit 1; }
echo "ok: the in-flight upload finished with 200 ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["title"])' "$work/upload.json")), then the server exited"

echo "==> fault 4: SIGTERM while an upload never finishes (SHUTDOWN_TIMEOUT_SECONDS=2)"
# The same database and blobs, a second instance; the upload's own deadline is far away.
start_instance stuck MAX_CONCURRENT_UPLOADS_PER_USER=100 UPLOAD_TIMEOUT_SECONDS=300 DRAIN_SECONDS=1 SHUTDOWN_TIMEOUT_SECONDS=2
count_leftovers() {
    echo "$(runuser -u postgres -- psql -qtA -d "selfie_faults" -c "SELECT count(*) FROM photos")/$(find "$work/blobs" -type f | wc -l)"
}
before=$(count_leftovers)
python3 - "$base" "$token" "$server" <<'PY' &
# A byte every 0.2 s of a 5 MiB upload: it would take days.
import socket, sys, time
base, token = sys.argv[1], sys.argv[2]
host, port = base.split("//")[1].split(":")
s = socket.create_connection((host, int(port)), timeout=30)
s.sendall((f"POST /api/upload_photo HTTP/1.1\r\nHost: x\r\nAuthorization: Token token={token}\r\n"
           "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 5242880\r\n\r\n"
           "--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode()
          + b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64 * 1024))
try:
    while True:
        s.send(b"\x00")
        time.sleep(0.2)
except OSError:
    pass
PY
trickler=$!
sleep 1
started=$(date +%s.%N)
kill -TERM "$server"
for _ in $(seq 1 150); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
took=$(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 1))" "$started")
kill "$trickler" 2>/dev/null || true
if kill -0 "$server" 2>/dev/null; then echo "server still running ${took} s after SIGTERM (drain 1 s + timeout 2 s)" >&2; exit 1; fi
after=$(count_leftovers)
echo "exited ${took} s after SIGTERM; photos/blob files before $before, after $after"
[ "$before" = "$after" ] || { echo "the cut-off upload left something behind" >&2; exit 1; }
python3 -c "import sys; assert 2.5 <= float(sys.argv[1]) < 8, sys.argv[1]" "$took" || { echo "expected an exit 3–8 s after SIGTERM, took $took s" >&2; exit 1; }
echo "ok: the stuck upload was cancelled after the drain and the timeout, it left nothing, the server exited"

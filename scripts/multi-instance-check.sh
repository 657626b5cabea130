#!/usr/bin/env bash
# Two Selfie instances behind a real load balancer (nginx, retrying the next instance on connection
# errors), one PostgreSQL, one S3 peer (nanio), loopback only. Shows:
#  1. a token and a browser session made on one instance work on the other;
#  2. a photo uploaded through one is served through the other;
#  3. the account lockout counts across instances;
#  4. a rolling restart under steady load (SIGTERM one, start it again, then the other) fails no request;
#  5. kill -9 of an instance under upload load leaves no photo row without its blob.
# Prints requests sent, failures and restarts. `make multi-instance-check`.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_APT_PACKAGES="nginx" bash scripts/bootstrap.sh >/dev/null
. scripts/lib/scratch-server.sh
work=.build/multi-lb # not .build/multi, which start_scratch_server empties
rm -rf "$work"
mkdir -p "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT

# The S3 peer and its bucket.
s3_port=$(free_port)
NANIO_ACCESS_KEY=multi NANIO_SECRET_KEY=multi-secret-key python3 -m nanio serve --host 127.0.0.1 --port "$s3_port" \
    --data-dir "$work/s3" --no-access-log --log-level warning > "$work/s3.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$s3_port/" && break; sleep 0.1; done
python3 -c "import boto3,sys; boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='multi',
    aws_secret_access_key='multi-secret-key').create_bucket(Bucket='photos')" "http://127.0.0.1:$s3_port"

# nginx in front of two fixed ports.
port_a=$(free_port)
port_b=$(free_port)
lb_port=$(free_port)
lb="http://127.0.0.1:$lb_port"
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
pid $PWD/$work/nginx.pid;
error_log $PWD/$work/nginx-error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path $PWD/$work/nginx-body;
    proxy_temp_path $PWD/$work/nginx-proxy;
    upstream selfie {
        server 127.0.0.1:$port_a max_fails=0;
        server 127.0.0.1:$port_b max_fails=0;
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$lb_port;
        client_max_body_size 25m;
        location / {
            proxy_pass http://selfie;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            # A refused connection (an instance restarting) goes to the other instance.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
            proxy_connect_timeout 2s;
        }
    }
}
NGINX
nginx -c "$PWD/$work/nginx.conf"

settings=(BLOB_STORE=s3 S3_ENDPOINT="http://127.0.0.1:$s3_port" S3_REGION=us-east-1 S3_BUCKET_NAME=photos
    AWS_ACCESS_KEY_ID=multi AWS_SECRET_ACCESS_KEY=multi-secret-key TRUSTED_PROXIES=127.0.0.1 PUBLIC_URL="$lb"
    LOCKOUT_THRESHOLD=5 DRAIN_SECONDS=2 MAX_CONCURRENT_UPLOADS_PER_USER=50)
INSTANCE_PORT=$port_a start_scratch_server multi "${settings[@]}"
server_a=$server
pids+=("$server_a")
INSTANCE_PORT=$port_b start_instance b "${settings[@]}"
server_b=$server
pids+=("$server_b")
a="http://127.0.0.1:$port_a"
b="http://127.0.0.1:$port_b"

echo "==> 1: a token and a session made on one instance work on the other"
base=$a
token=$(api_token multi@example.com "multi instance password")
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" "$b/api/get_photos")" = 200 ] ||
    { echo "a token from A is refused by B" >&2; exit 1; }
jar=$work/cookies
csrf=$(curl -s -c "$jar" -b "$jar" "$a/signin" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1)
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "_csrf=$csrf" --data-urlencode "email=multi@example.com" \
    --data-urlencode "password=multi instance password" "$a/signin"
[ "$(curl -s -o /dev/null -w '%{http_code}' -b "$jar" "$b/account")" = 200 ] || { echo "a session from A is not signed in on B" >&2; exit 1; }
echo "ok"

echo "==> 2: a photo uploaded through one is served through the other"
python3 -c 'import sys; from PIL import Image; Image.effect_noise((640, 480), 60).convert("RGB").save(sys.argv[1], quality=90)' "$work/photo.jpg"
curl -fs -o /dev/null -H "Authorization: Token token=$token" -F "image=@$work/photo.jpg" -F "title=from A" "$a/api/upload_photo"
image_url=$(curl -fs -H "Authorization: Token token=$token" "$b/api/get_photos" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["image_url"])')
curl -fs -o "$work/served.jpg" "$image_url"
[ "$(head -c 3 "$work/served.jpg" | od -An -tx1 | tr -d ' ')" = ffd8ff ] || { echo "B did not serve the photo" >&2; exit 1; }
echo "ok"

echo "==> 3: the lockout counts across instances"
base=$a
api_token locked@example.com "the right password" >/dev/null
wrong=$(aescrypt "a wrong password")
for i in 1 2 3 4 5; do
    target=$a
    [ $((i % 2)) = 0 ] && target=$b
    curl -s -o /dev/null -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
        -d "{\"email\":\"locked@example.com\",\"password\":\"$wrong\"}" "$target/api/signin"
done
right=$(aescrypt "the right password")
for target in "$a" "$b"; do
    status=$(curl -s -o /dev/null -w '%{http_code}' -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
        -d "{\"email\":\"locked@example.com\",\"password\":\"$right\"}" "$target/api/signin")
    [ "$status" = 429 ] || { echo "after 5 failures spread over A and B, $target answered $status, not 429" >&2; exit 1; }
done
echo "ok: five failures alternating between A and B lock the account on both"

echo "==> 4: rolling restart under steady load"
python3 - "$lb" "$token" "$work/photo.jpg" > "$work/load.txt" <<'PY' &
# Four clients through nginx for 24 s: the gallery API, a page, an upload now and then.
import sys, time, threading, urllib.request, urllib.error, collections, uuid
base, token, photo = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
counts, lock, deadline = collections.Counter(), threading.Lock(), time.time() + 24
def upload():
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nload\r\n--{boundary}\r\n"
            f"Content-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
    return urllib.request.Request(base + "/api/upload_photo", data=body, headers={
        "Authorization": f"Token token={token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
def client(kind):
    while time.time() < deadline:
        if kind == "photos": request = urllib.request.Request(base + "/api/get_photos", headers={"Authorization": f"Token token={token}"})
        elif kind == "page": request = urllib.request.Request(base + "/signin")
        else: request = upload()
        try: status = urllib.request.urlopen(request, timeout=15).status
        except urllib.error.HTTPError as error: status = error.code
        except Exception as error: status = f"error:{type(error).__name__}"
        with lock: counts[status] += 1
        time.sleep(0.02 if kind != "upload" else 0.3)
threads = [threading.Thread(target=client, args=(k,)) for k in ("photos", "photos", "page", "upload")]
for t in threads: t.start()
for t in threads: t.join()
print(dict(counts))
PY
load=$!
restarts=0
sleep 3
for name in a b; do
    if [ $name = a ]; then pid=$server_a port=$port_a; else pid=$server_b port=$port_b; fi
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    INSTANCE_PORT=$port start_instance "restarted-$name" "${settings[@]}"
    pids+=("$server")
    if [ $name = a ]; then server_a=$server; else server_b=$server; fi
    restarts=$((restarts + 1))
    sleep 4
done
wait $load
counts=$(cat "$work/load.txt")
echo "requests: $counts; restarts: $restarts"
python3 - "$counts" <<'PY'
import ast, sys
counts = ast.literal_eval(sys.argv[1])
failed = {k: v for k, v in counts.items() if k != 200}
total = sum(counts.values())
print(f"sent {total}, failed {sum(failed.values())}")
sys.exit(1 if failed or total < 100 else 0)
PY

echo "==> 5: kill -9 under upload load leaves no row without its blob"
python3 - "$lb" "$token" "$work/photo.jpg" > "$work/uploads.txt" <<'PY' &
import sys, time, threading, urllib.request, urllib.error, collections, uuid
base, token, photo = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
counts, lock, deadline = collections.Counter(), threading.Lock(), time.time() + 8
def client():
    while time.time() < deadline:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(base + "/api/upload_photo", data=body, headers={
            "Authorization": f"Token token={token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
        try: status = urllib.request.urlopen(request, timeout=15).status
        except urllib.error.HTTPError as error: status = error.code
        except Exception as error: status = f"error:{type(error).__name__}"
        with lock: counts[status] += 1
threads = [threading.Thread(target=client) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print(dict(counts))
PY
uploads=$!
sleep 3
kill -9 "$server_b"
wait $uploads
echo "uploads while B was killed: $(cat "$work/uploads.txt") (a few cut off mid-request are expected)"
report=$(set -a; . ./.env; set +a; DATABASE_URL="$scratch_database_url" BLOB_STORE=s3 S3_ENDPOINT="http://127.0.0.1:$s3_port" S3_REGION=us-east-1 \
    S3_BUCKET_NAME=photos AWS_ACCESS_KEY_ID=multi AWS_SECRET_ACCESS_KEY=multi-secret-key .build/debug/selfie blobs sweep)
echo "$report"
echo "$report" | grep -q "Every photo has its blob." || { echo "a photo row lost its blob" >&2; exit 1; }
echo "==> several instances: shared sessions, photos and lockout; a rolling restart failed nothing; kill -9 left no row without its blob"

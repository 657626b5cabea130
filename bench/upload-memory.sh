#!/usr/bin/env bash
# Measures the server's peak memory (VmHWM) while N uploads of SIZE_MIB run at once through the
# browser upload endpoint. Streaming means the peak must not grow by N × SIZE.
# Usage: bench/upload-memory.sh [N=8] [SIZE_MIB=15]     (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-8}
size=${2:-15}
set -a; . ./.env; set +a
work=$(mktemp -d)
port=${BENCH_PORT:-18081}
db=selfie_bench
runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db OWNER selfie" >/dev/null
DATABASE_URL="${DATABASE_URL%/*}/$db" PORT=$port BLOB_DIR="$work/blobs" MAX_UPLOAD_BYTES=$(( (size + 1) * 1024 * 1024 )) \
    LOG_LEVEL=warning .build/debug/selfie serve --migrate > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done

base="http://127.0.0.1:$port"
jar="$work/cookies"
token() { curl -s -b "$jar" -c "$jar" "$base$1" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1; }
curl -s -b "$jar" -c "$jar" -o /dev/null -d "_csrf=$(token /signup)&full_name=Bench&email=bench@example.com&password=bench+password+1&password_confirmation=bench+password+1" "$base/signup"
# Sign-up asks to confirm the address; signing in does not wait for it.
curl -s -b "$jar" -c "$jar" -o /dev/null -d "_csrf=$(token /signin)&email=bench@example.com&password=bench+password+1" "$base/signin"
upload_token=$(token /photos/new)
# A real JPEG of few pixels padded to SIZE MiB with comment segments of random bytes: the parser
# and the store see the whole size, the renditions stay quick.
python3 - "$work/photo.jpg" "$size" <<'PY'
import io, os, sys
from PIL import Image
buffer = io.BytesIO()
Image.new("RGB", (96, 64), (30, 120, 200)).save(buffer, "JPEG")
jpeg = buffer.getvalue()
segments = int(sys.argv[2]) * 1024 * 1024 // 65537
padding = b"".join(b"\xff\xfe" + (65535).to_bytes(2, "big") + os.urandom(65533) for _ in range(segments))
open(sys.argv[1], "wb").write(jpeg[:2] + padding + jpeg[2:])
PY

idle=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
start=$(date +%s.%N)
for i in $(seq 1 "$n"); do
    curl -s -o /dev/null -w "%{http_code} " -b "$jar" -F "title=Upload $i" -F "image=@$work/photo.jpg;type=image/jpeg" \
        "$base/photos?_csrf=$upload_token" &
done
wait $(jobs -p | grep -v "^$server$") 2>/dev/null || true
end=$(date +%s.%N)
echo
peak=$(awk '/VmHWM/ {print $2}' /proc/$server/status)
stored=$(find "$work/blobs" -type f -name '*.jpg' | wc -l)
echo "uploads: $n x ${size} MiB in $(echo "$end - $start" | bc) s, stored: $stored"
echo "server RSS before: $((idle / 1024)) MiB, peak (VmHWM): $((peak / 1024)) MiB, sum of uploads: $((n * size)) MiB"

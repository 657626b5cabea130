#!/usr/bin/env bash
# "Download my data" memory: stores PHOTOS photos of about 2.5 MB each through the API, then
# downloads GET /api/export twice (as fast as curl reads, and with curl limited to 20 MB/s, a
# slow reader) and reports how far the server's peak RSS (VmHWM, reset before each download) rose
# above its RSS before it. The ZIP is written while it is sent, so the rise must not grow with the
# library: the check fails at 30 MB or more. Every ZIP is read back with Python's zipfile.
# Usage: bench/export-memory.sh [fs|s3] [PHOTOS=100]      (after `make build`; s3 uses a nanio on loopback)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh
store=${1:-fs}
photos=${2:-100}
settings=(MAX_CONCURRENT_UPLOADS_PER_USER=100)
nanio=""
trap 'kill ${server:-} $nanio 2>/dev/null || true' EXIT
if [ "$store" = s3 ]; then
    mkdir -p .build/export-nanio
    rm -rf .build/export-nanio/data
    nanio_port=$(free_port)
    NANIO_ACCESS_KEY=export-bench NANIO_SECRET_KEY=export-bench-secret \
        python3 -m nanio serve --host 127.0.0.1 --port "$nanio_port" --data-dir .build/export-nanio/data \
        --no-access-log --log-level warning > .build/export-nanio/log 2>&1 &
    nanio=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$nanio_port/" && break; sleep 0.1; done
    python3 - "$nanio_port" <<'PY'
import sys, boto3
boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", region_name="us-east-1",
             aws_access_key_id="export-bench", aws_secret_access_key="export-bench-secret").create_bucket(Bucket="export-bench")
PY
    settings+=(BLOB_STORE=s3 S3_ENDPOINT="http://127.0.0.1:$nanio_port" S3_REGION=us-east-1 S3_BUCKET_NAME=export-bench
        AWS_ACCESS_KEY_ID=export-bench AWS_SECRET_ACCESS_KEY=export-bench-secret)
fi
start_scratch_server exportbench "${settings[@]}"
work=$scratch_dir
token=$(api_token export@example.com "export bench password")

echo "==> storing $photos photos of about 2.5 MB ($store store)"
python3 - "$work/photos" "$photos" <<'PY'
# A real JPEG of few pixels, padded to 2.5 MB with comment segments of random bytes: the upload
# path and the renditions stay quick, the original (what the export carries) is big and incompressible.
import io, os, sys
from PIL import Image
folder, count = sys.argv[1], int(sys.argv[2])
os.makedirs(folder, exist_ok=True)
for n in range(count):
    buffer = io.BytesIO()
    Image.new("RGB", (96, 64), (n * 2 % 256, 120, 200)).save(buffer, "JPEG", quality=80)
    jpeg = buffer.getvalue()
    padding = b"".join(b"\xff\xfe" + (65535).to_bytes(2, "big") + os.urandom(65533) for _ in range(38))
    with open(os.path.join(folder, f"photo-{n:03}.jpg"), "wb") as handle:
        handle.write(jpeg[:2] + padding + jpeg[2:])
PY
for file in "$work"/photos/*.jpg; do
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" \
        -F "title=$(basename "$file")" -F "image=@$file;type=image/jpeg" "$base/api/upload_photo")
    [ "$status" = 200 ] || { echo "upload of $file answered $status" >&2; exit 1; }
done
library=$(du -cb "$work"/photos/*.jpg | tail -1 | cut -f1)

failed=0
for rate in unlimited 20M; do
    limit=()
    [ "$rate" = unlimited ] || limit=(--limit-rate "$rate")
    before=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
    echo 5 > "/proc/$server/clear_refs" # VmHWM := VmRSS
    start=$(date +%s.%N)
    curl -fs "${limit[@]}" -H "Authorization: Token token=$token" -o "$work/export.zip" "$base/api/export"
    end=$(date +%s.%N)
    peak=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
    entries=$(python3 - "$work/export.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    assert archive.testzip() is None, "a damaged entry"
    names = archive.namelist()
print(sum(name.endswith(".jpg") for name in names), len(names))
PY
)
    rise=$(((peak - before) / 1024))
    printf 'export (%s, curl %s): %s MB in %.1f s; ZIP entries (photos, all): %s; RSS before %d MB, peak %d MB, rise %d MB\n' \
        "$store" "$rate" "$(($(stat -c %s "$work/export.zip") / 1000000))" "$(echo "$end - $start" | bc)" "$entries" \
        "$((before / 1024))" "$((peak / 1024))" "$rise"
    [ "${entries%% *}" = "$photos" ] || { echo "expected $photos photos in the ZIP" >&2; failed=1; }
    [ "$rise" -lt 30 ] || { echo "peak RSS rose by $rise MB (limit 30) for a library of $((library / 1000000)) MB" >&2; failed=1; }
done
exit $failed

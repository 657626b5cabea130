#!/usr/bin/env bash
# Throughput and latency of the hot paths, with wrk on loopback, against a release build.
# Usage: bench/wrk.sh [SECONDS=10] [CONNECTIONS=64]     (builds release first: ~8 min the first time)
# Bounded: each run lasts SECONDS; only 127.0.0.1 is targeted.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
bash scripts/release-build.sh >/dev/null
. scripts/lib/scratch-server.sh
mkdir -p .build/bench
# The release binary, on the scratch database the helper prepares.
start_scratch_server bench
kill "$server"; wait "$server" 2>/dev/null || true
port=${base##*:}
DATABASE_URL="$scratch_database_url" PORT="$port" BLOB_DIR="$scratch_dir/blobs" LOG_LEVEL=error \
    LOCKOUT_THRESHOLD=0 RATE_LIMIT_SIGN_INS_PER_MINUTE=0 RATE_LIMIT_SIGN_UPS_PER_HOUR=0 RATE_LIMIT_UPLOADS_PER_HOUR=0 \
    .build/release/selfie serve > "$scratch_dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done
token=$(api_token bench@example.com "bench password 1")

run() { # NAME PATH [HEADER]
    echo "== $1 ($2)"
    if [ -n "${3:-}" ]; then
        wrk -t2 -c"$connections" -d"${seconds}s" --latency -H "$3" "$base$2" | grep -E "Requests/sec|Latency|99%|Non-2xx"
    else
        wrk -t2 -c"$connections" -d"${seconds}s" --latency "$base$2" | grep -E "Requests/sec|Latency|99%|Non-2xx"
    fi
}
run "health check (one SELECT 1)" /healthz
run "sign-in page (template, no database)" /signin
run "API photo list (token lookup + query)" /api/get_photos "Authorization: Token token=$token"

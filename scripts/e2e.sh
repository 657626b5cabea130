#!/usr/bin/env bash
# Starts Selfie on a scratch database and port, drives it with headless Chromium (e2e/browser_check.py),
# and stops it again. Screenshots go to .build/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
set -a; . ./.env; set +a


db="selfie_e2e"
base="${DATABASE_URL%/*}"
runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db OWNER selfie" >/dev/null 2>&1
port=${E2E_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
mkdir -p .build/e2e
rm -rf .build/e2e/blobs
DATABASE_URL="$base/$db" PORT=$port BLOB_DIR=.build/e2e/blobs .build/debug/selfie serve --migrate > .build/e2e/server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
# An admin made the way an operator would: with the command line.
admin_email="admin+$RANDOM@example.com"
admin_password=$(DATABASE_URL="$base/$db" .build/debug/selfie admin create --email "$admin_email" --name "Ada Admin" --generate-password |
    sed -n 's/.*shown only now): //p')
E2E_ADMIN_EMAIL="$admin_email" E2E_ADMIN_PASSWORD="$admin_password" python3 e2e/browser_check.py "http://127.0.0.1:$port" .build/e2e

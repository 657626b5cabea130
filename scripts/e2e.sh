#!/usr/bin/env bash
# Starts Selfie on a scratch database and port, drives it with headless Chromium (e2e/browser_check.py),
# and stops it again. Screenshots go to .build/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh

# A stand-in OpenID Connect provider ("Google") on its own port, for "Continue with Google".
fake_port=$(free_port)
mkdir -p .build/e2e-providers
.build/debug/selfie-fake-providers "$fake_port" selfie-e2e e2e-client-secret > .build/e2e-providers/log 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$fake_port/oidc/.well-known/openid-configuration" >/dev/null && break
    sleep 0.1
done

start_scratch_server e2e GOOGLE_CLIENT_IDS=selfie-e2e GOOGLE_CLIENT_SECRET=e2e-client-secret \
    GOOGLE_ISSUER="http://127.0.0.1:$fake_port/oidc"
trap 'kill $server $fake 2>/dev/null || true' EXIT

# An admin made the way an operator would: with the command line.
admin_email="admin+$RANDOM@example.com"
admin_password=$(DATABASE_URL="$scratch_database_url" .build/debug/selfie admin create --email "$admin_email" --name "Ada Admin" --generate-password |
    sed -n 's/.*shown only now): //p')
E2E_ADMIN_EMAIL="$admin_email" E2E_ADMIN_PASSWORD="$admin_password" python3 e2e/browser_check.py "$base" "$scratch_dir"

#!/usr/bin/env bash
# Starts Selfie on a scratch database and port, drives it with headless Chromium (e2e/browser_check.py),
# and stops it again. Screenshots go to .build/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh

# A stand-in OpenID Connect provider ("Google") on its own port, for "Continue with Google", and a
# real SMTP server that keeps the mail Selfie sends (confirmation and reset links).
start_fake_providers
trap 'kill $fake 2>/dev/null || true' EXIT
start_smtp_sink e2e
trap 'kill $fake $smtp 2>/dev/null || true' EXIT
# WebAuthn needs a host name, not an IP address: the browser and PUBLIC_URL use localhost.
port=$(free_port)
INSTANCE_PORT=$port start_scratch_server e2e "${fake_provider_settings[@]}" "${smtp_settings[@]}" PUBLIC_URL="http://localhost:$port"
base="http://localhost:$port"
trap 'kill $server $fake $smtp 2>/dev/null || true' EXIT

# An admin made the way an operator would: with the command line.
admin_email="admin+$RANDOM@example.com"
admin_password=$(DATABASE_URL="$scratch_database_url" .build/debug/selfie admin create --email "$admin_email" --name "Ada Admin" --generate-password |
    sed -n 's/.*shown only now): //p')
# The scratch database's name (no password: the check reaches it as the postgres user, to age a session).
E2E_DATABASE_NAME="${scratch_database_url##*/}" \
E2E_ADMIN_EMAIL="$admin_email" E2E_ADMIN_PASSWORD="$admin_password" E2E_SMTP_MESSAGES="$smtp_messages" python3 e2e/browser_check.py "$base" "$scratch_dir"

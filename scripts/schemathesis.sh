#!/usr/bin/env bash
# Hostile input against a live Selfie (scratch database and blob folder): schemathesis against
# /api/openapi.yaml, once with the app key (sign-up/in endpoints), once with a user's token (the
# rest), failing on any server error or any response the document does not describe; then
# scripts/bad_input.py throws malformed requests at every page and endpoint (no 5xx allowed).
# Used by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh
# Sign-in providers are the fakes: generated tokens reach real verification and are refused.
start_fake_providers
trap 'kill $fake 2>/dev/null || true' EXIT
start_scratch_server schemathesis "${fake_provider_settings[@]}"
work=$scratch_dir
trap 'kill $server $fake 2>/dev/null || true' EXIT
token=$(api_token st@example.com "schemathesis password")

# `unsupported_method` is left out on purpose: the railsauth contract answers a wrong method with
# 404 {"status":404,"message":"Wrong URL or HTTP method"}, not 405 (tested in APITests).
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,ignored_auth,missing_required_header
common=(--url "$base" --checks "$checks" --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --seed 2026 --no-color --workers 1
    --generation-database none --request-timeout 10)

echo "==> schemathesis: app-key endpoints"
schemathesis run "$base/api/openapi.yaml" "${common[@]}" --auth "$API_AUTH_NAME:$API_AUTH_PASSWORD" \
    --include-path-regex '^/api/(signup|signin|get_token|social/signin|register|login|forgot_password)$'
echo "==> schemathesis: token endpoints"
# clear_token is run last on its own: it ends the token the other operations use.
schemathesis run "$base/api/openapi.yaml" "${common[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/(reset_password|upload_photo|get_photos|delete_photo|export|openapi.yaml)$'
# delete_account gets generated passwords, never the right one: every answer is a refusal.
schemathesis run "$base/api/openapi.yaml" "${common[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/delete_account$'
schemathesis run "$base/api/openapi.yaml" "${common[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/clear_token$'
echo "==> bad input against every page and endpoint, and every parameter as a user and as an admin"
admin_email="fuzz-admin+$RANDOM@example.com"
admin_password=$(DATABASE_URL="$scratch_database_url" .build/debug/selfie admin create --email "$admin_email" --generate-password |
    sed -n 's/.*shown only now): //p')
E2E_ADMIN_EMAIL="$admin_email" E2E_ADMIN_PASSWORD="$admin_password" python3 scripts/bad_input.py "$base"
if grep -q "request failed" "$work/server.log"; then
    echo "the server logged failures during the run:" >&2
    grep "request failed" "$work/server.log" >&2
    exit 1
fi
echo "==> hostile input: no server errors, every API response as documented"

#!/usr/bin/env bash
# Hostile input against a live Selfie (scratch database and blob folder): schemathesis against
# /api/openapi.yaml, once with the app key (sign-up/in endpoints), then with a user's token (the
# rest; albums and share links in a run of their own that also follows the document's links), failing
# on any server error or any response the document does not describe; then
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
# The document's links are all between album and share-link operations: the other runs have none
# to follow, and schemathesis counts a stateful phase whose links are all filtered out as an error.
stateless=(--phases examples,coverage,fuzzing)

# Something for the token runs to find: a photo with a capture time and one without (taken_at a
# string and null in every photo answer), and an album holding both with one as its cover. The
# album-and-link run draws about half of its valid album and photo ids from these (a
# schemathesis dictionary) and follows the document's links from what it makes itself; the rest
# are generated, so unknown ids answer 404.
echo "==> photos and an album to test with"
python3 - "$work" <<'PY'
import sys
from PIL import Image
exif = Image.Exif()
exif.get_ifd(0x8769)[0x9003] = "2019:05:01 10:00:00"  # DateTimeOriginal
exif.get_ifd(0x8769)[0x9011] = "+02:00"  # OffsetTimeOriginal
Image.new("RGB", (300, 200), (120, 80, 40)).save(f"{sys.argv[1]}/taken.jpg", quality=90, exif=exif)
Image.new("RGB", (200, 300), (20, 80, 140)).save(f"{sys.argv[1]}/undated.png")
PY
# api FIELD CURL_ARGUMENT…: a request with the user's token; prints FIELD of the JSON answer.
api() {
    local field=$1
    shift
    curl -fsS -H "Authorization: Token token=$token" "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$field"
}
taken=$(api random_id -F "image=@$work/taken.jpg" -F "title=Taken in 2019" "$base/api/upload_photo")
undated=$(api random_id -F "image=@$work/undated.png" -F "title=" "$base/api/upload_photo")
album=$(api id -H 'Content-Type: application/json' -d '{"title":"Schemathesis","description":"Two photos"}' "$base/api/albums")
api id -X POST -H 'Content-Type: application/json' -d "{\"random_ids\":[\"$taken\",\"$undated\"]}" "$base/api/albums/$album/photos" >/dev/null
api id -X PATCH -H 'Content-Type: application/json' -d "{\"cover_random_id\":\"$undated\"}" "$base/api/albums/$album" >/dev/null
cat > "$work/albums.toml" <<TOML
[dictionaries.albums]
values = ["$album"]
[dictionaries.photos]
values = ["$taken", "$undated"]

[[operations]]
include-operation-id = "getAlbum"
parameters = { "path.id" = { dictionary = "albums", probability = 0.5 } }
[[operations]]
include-operation-id = "updateAlbum"
parameters = { "path.id" = { dictionary = "albums", probability = 0.5 }, "body.cover_random_id" = { dictionary = "photos", probability = 0.5 } }
[[operations]]
include-operation-id = ["addPhotosToAlbum", "removePhotosFromAlbum"]
parameters = { "path.id" = { dictionary = "albums", probability = 0.5 }, "body.random_ids[*]" = { dictionary = "photos", probability = 0.5 } }
[[operations]]
include-operation-id = "createShareLink"
parameters = { "body.album_id" = { dictionary = "albums", probability = 0.5 }, "body.random_id" = { dictionary = "photos", probability = 0.5 } }
TOML

echo "==> schemathesis: app-key endpoints"
schemathesis run "$base/api/openapi.yaml" "${common[@]}" "${stateless[@]}" --auth "$API_AUTH_NAME:$API_AUTH_PASSWORD" \
    --include-path-regex '^/api/(signup|signin|get_token|social/signin|register|login|forgot_password)$'
echo "==> schemathesis: token endpoints"
# clear_token is run last on its own: it ends the token the other operations use.
schemathesis run "$base/api/openapi.yaml" "${common[@]}" "${stateless[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/(reset_password|upload_photo|get_photos|delete_photo|export|openapi.yaml)$'
echo "==> schemathesis: albums and share links"
schemathesis --config-file "$work/albums.toml" run "$base/api/openapi.yaml" "${common[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/(albums|share_links)(/|$)'
echo "==> schemathesis: resumable uploads (tus)"
# tus answers a missing or other Tus-Resumable with 412 Precondition Failed, and a wrong checksum with 460.
# Half of the upload ids drawn are of a real upload (one of this user's), the rest unknown (404).
upload=$(curl -fsS -D - -o /dev/null -X POST -H "Authorization: Token token=$token" -H 'Tus-Resumable: 1.0.0' \
    -H 'Upload-Length: 1000000' "$base/api/uploads" | tr -d '\r' | sed -n 's|^[Ll]ocation: .*/||p')
cat > "$work/tus.toml" <<TOML
[generation]
allow-extra-parameters = false  # HTTP allows headers a server does not know; they are not bad input
[[operations]]
include-operation-id = ["uploadOffset", "appendToUpload", "terminateUpload"]
parameters = { "path.id" = { dictionary = "uploads", probability = 0.5 } }
[dictionaries.uploads]
values = ["$upload"]
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "409", "410", "412", "413", "415", "422", "429", "460"]
[checks.missing_required_header]
expected-statuses = ["400", "401", "403", "412"]
TOML
PYTHONPATH=scripts/schemathesis SCHEMATHESIS_HOOKS=tus_hooks schemathesis --config-file "$work/tus.toml" run "$base/api/openapi.yaml" \
    "${common[@]}" "${stateless[@]}" -H "Authorization: Token token=$token" --include-path-regex '^/api/uploads'
# delete_account gets generated passwords, never the right one: every answer is a refusal.
schemathesis run "$base/api/openapi.yaml" "${common[@]}" "${stateless[@]}" -H "Authorization: Token token=$token" \
    --include-path-regex '^/api/delete_account$'
schemathesis run "$base/api/openapi.yaml" "${common[@]}" "${stateless[@]}" -H "Authorization: Token token=$token" \
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

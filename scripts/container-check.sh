#!/usr/bin/env bash
# `make container-check`: builds Selfie's container image and tries it as a user would, with
# compose.yaml (PostgreSQL, the nanio S3 store, Selfie):
#   1. installs Docker, debootstrap and docker-compose if missing; starts dockerd if none runs
#      (and stops it at the end only then); builds the base images (scripts/container-base-images.sh)
#   2. builds selfie:local from a clean snapshot: the sources of HEAD (so a half-edited working
#      tree never breaks it) with the container recipe (Dockerfile, .dockerignore, compose.yaml,
#      deploy/) of the working tree (so a change to the recipe is checked before it is committed)
#   3. `docker-compose up -d`, timed until http://127.0.0.1:8080/signin answers 200
#   4. through the JSON API: signs up, signs in, uploads a real JPEG, lists it, loads its image_url
#      from this machine (a presigned S3 URL) and checks it is a JPEG, finds the object in the bucket
#   5. checks the server runs as non-root and that Docker calls the container healthy, and that
#      `selfie backup` works inside it (pg_dump is in the image)
#   6. prints the image size, the build time and the start-up time; `docker-compose down -v`
# Run as root. Not part of `make test`: a release build inside Docker takes ~20 min on 2 cores.
# Logs: .build/container-check/ (build.log, compose.log, dockerd.log).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

log() { printf '==> %s\n' "$*"; }
fail() { printf 'container-check: FAILED: %s\n' "$*" >&2; exit 1; }
# Debian's client: it knows BuildKit (DOCKER_BUILDKIT=1); another `docker` may come first on PATH.
docker() { /usr/bin/docker "$@"; }

[ "$(id -u)" = 0 ] || fail "run as root: it installs packages and may start the Docker engine"

# --- 1. Tools ------------------------------------------------------------------------------------
. scripts/lib/apt.sh
install_missing docker.io debootstrap docker-compose git curl openssl ca-certificates python3
# Pillow makes the test photo (the version scripts/requirements-test.txt pins).
python3 -c 'import PIL' 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore pillow==13.0.0

logs=$repo/.build/container-check
rm -rf "$logs"
mkdir -p "$logs"
work=$(mktemp -d /tmp/selfie-container-check.XXXXXX)
project=selfie-check
started_dockerd=""
compose_started=""

compose() { docker-compose --ansi never -p "$project" -f "$work/src/compose.yaml" "$@"; }

cleanup() {
    local status=$?
    trap - EXIT
    if [ -n "$compose_started" ]; then
        if [ "$status" != 0 ]; then
            echo "--- docker-compose ps and the last lines of each service's log:" >&2
            compose ps >&2 || true
            compose logs --tail=40 >&2 || true
        fi
        log "docker-compose down -v"
        compose down -v --remove-orphans > "$logs/down.log" 2>&1 || echo "docker-compose down failed: $logs/down.log" >&2
    fi
    if [ -n "$started_dockerd" ]; then
        log "stopping the dockerd this check started (pid $started_dockerd)"
        kill "$started_dockerd" 2>/dev/null || true
        wait "$started_dockerd" 2>/dev/null || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1b. The Docker engine -------------------------------------------------------------------------
if ! docker info > /dev/null 2>&1; then
    log "starting dockerd (log: $logs/dockerd.log)"
    dockerd > "$logs/dockerd.log" 2>&1 &
    started_dockerd=$!
    for _ in $(seq 1 60); do
        docker info > /dev/null 2>&1 && break
        kill -0 "$started_dockerd" 2>/dev/null || fail "dockerd exited; see $logs/dockerd.log"
        sleep 0.5
    done
    docker info > /dev/null 2>&1 || fail "dockerd did not answer within 30 s; see $logs/dockerd.log"
fi

bash scripts/container-base-images.sh

# --- 2. The image, from a clean snapshot --------------------------------------------------------
mkdir -p "$work/src"
git -C "$repo" archive HEAD | tar -x -C "$work/src"
for recipe in Dockerfile .dockerignore compose.yaml deploy; do
    if [ -e "$recipe" ]; then cp -r "$recipe" "$work/src/"; fi
done

# Fresh secrets for this run only, exported (never on a command line); compose.yaml requires them.
export SECRET_KEY API_AUTH_NAME=selfie-ios API_AUTH_PASSWORD POSTGRES_PASSWORD POSTGRES_SUPERUSER_PASSWORD S3_ACCESS_KEY=selfie S3_SECRET_KEY
SECRET_KEY=$(openssl rand -hex 32)
API_AUTH_PASSWORD=$(openssl rand -hex 16)
POSTGRES_PASSWORD=$(openssl rand -hex 24)
POSTGRES_SUPERUSER_PASSWORD=$(openssl rand -hex 24)
S3_SECRET_KEY=$(openssl rand -hex 24)
# What an interrupted earlier run may have left (containers, volumes), then the ports, before the
# long build rather than after it.
compose down -v --remove-orphans > "$logs/down-before.log" 2>&1 || true
for port in 8080 9000; do
    if (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
        fail "127.0.0.1:$port is taken (compose.yaml publishes Selfie on 8080 and the S3 store on 9000)"
    fi
done

log "building selfie:local from HEAD $(git -C "$repo" rev-parse --short HEAD) (~20 min without cache; log: $logs/build.log)"
build_start=$(date +%s)
DOCKER_BUILDKIT=1 docker build --progress=plain -t selfie:local "$work/src" > "$logs/build.log" 2>&1 ||
    { tail -40 "$logs/build.log" >&2; fail "docker build failed (the end of $logs/build.log is above)"; }
build_seconds=$(($(date +%s) - build_start))

# --- 3. Up, timed until the sign-in page is served ------------------------------------------------
base=http://127.0.0.1:8080

log "docker-compose up -d"
up_start=$(date +%s%N)
compose_started=1
compose up -d --no-build > "$logs/compose.log" 2>&1 || { cat "$logs/compose.log" >&2; fail "docker-compose up failed"; }
signin_status=000
for _ in $(seq 1 900); do
    signin_status=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$base/signin" || true)
    [ "$signin_status" = 200 ] && break
    sleep 0.2
done
[ "$signin_status" = 200 ] || fail "GET $base/signin answered $signin_status 3 minutes after docker-compose up"
startup_seconds=$(python3 -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / 1e9:.1f}')" "$up_start" "$(date +%s%N)")
log "sign-in page served ${startup_seconds} s after docker-compose up"

# --- 4. A user, through the API ---------------------------------------------------------------------
# The app key and the token go to curl in a config on a pipe, not on its command line.
app_key_config() { printf 'user = "%s:%s"\n' "$API_AUTH_NAME" "$API_AUTH_PASSWORD"; }
token_config() { printf 'header = "Authorization: Token token=%s"\n' "$token"; }
no_config() { :; }
# request CONFIG OUTPUT CURL_ARGS…: prints the HTTP status (000 when nothing answered).
request() {
    local config=$1 output=$2
    shift 2
    "$config" | curl -sS --max-time 60 -K - -o "$output" -w '%{http_code}' "$@" || true
}
json() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
# aescrypt PLAINTEXT: the password as the iOS app sends it (AES-256-CBC, key = SHA-256 of the app
# key's password, zero IV), as scripts/lib/scratch-server.sh does.
aescrypt() {
    printf '%s' "$1" | openssl enc -aes-256-cbc -K "$(printf '%s' "$API_AUTH_PASSWORD" | sha256sum | cut -d' ' -f1)" \
        -iv 00000000000000000000000000000000 | base64 -w0
}
expect_status() { # WHAT GOT WANT BODY_FILE
    [ "$2" = "$3" ] || fail "$1 answered $2, not $3: $(head -c 500 "$4" 2>/dev/null)"
}

email=container-check@example.com
encrypted=$(aescrypt "$(openssl rand -hex 12)")
printf '{"full_name":"Container Check","email":"%s","password":"%s"}' "$email" "$encrypted" > "$work/signup.json"
status=$(request app_key_config "$work/signup.out" -H 'Content-Type: application/json' \
    --data-binary @"$work/signup.json" "$base/api/signup")
expect_status "POST /api/signup" "$status" 200 "$work/signup.out"
printf '{"email":"%s","password":"%s"}' "$email" "$encrypted" > "$work/signin.json"
status=$(request app_key_config "$work/signin.out" -H 'Content-Type: application/json' \
    --data-binary @"$work/signin.json" "$base/api/signin")
expect_status "POST /api/signin" "$status" 200 "$work/signin.out"
token=$(json "$work/signin.out" '["api_authtoken"]')
log "signed up and signed in as $email"

# A real photo: 1600×1200 with gradients and shapes, so the renditions have something to scale.
python3 - "$work/photo.jpg" <<'PY'
import sys
from PIL import Image, ImageDraw
img = Image.linear_gradient("L").resize((1600, 1200)).convert("RGB")
img = Image.merge("RGB", (img.getchannel(0), img.getchannel(1).rotate(90, expand=False), Image.new("L", img.size, 140)))
draw = ImageDraw.Draw(img)
draw.ellipse((500, 300, 1100, 900), fill=(230, 90, 40))
draw.rectangle((100, 800, 600, 1100), fill=(30, 60, 200))
img.save(sys.argv[1], "JPEG", quality=88)
PY
status=$(request token_config "$work/upload.out" \
    -F "image=@$work/photo.jpg;type=image/jpeg" -F "title=From the container check" "$base/api/upload_photo")
expect_status "POST /api/upload_photo" "$status" 200 "$work/upload.out"
photo_id=$(json "$work/upload.out" '["random_id"]')

status=$(request token_config "$work/photos.out" "$base/api/get_photos")
expect_status "GET /api/get_photos" "$status" 200 "$work/photos.out"
image_url=$(python3 - "$work/photos.out" "$photo_id" <<'PY'
import json, sys
photos = [p for p in json.load(open(sys.argv[1])) if p["random_id"] == sys.argv[2]]
if len(photos) != 1 or photos[0]["title"] != "From the container check":
    sys.exit(f"get_photos does not list the uploaded photo {sys.argv[2]}: {photos}")
print(photos[0]["image_url"])
PY
) || fail "the uploaded photo is not in GET /api/get_photos"
log "uploaded photo $photo_id; its image_url: ${image_url%%\?*}?…"

# The presigned URL, loaded from this machine as a browser here would.
status=$(request no_config "$work/fetched.jpg" "$image_url")
expect_status "GET image_url (${image_url%%\?*})" "$status" 200 "$work/fetched.jpg"
python3 - "$work/fetched.jpg" <<'PY' || fail "the photo's image_url did not give a JPEG"
import sys
from PIL import Image
with Image.open(sys.argv[1]) as img:
    img.load()
    if img.format != "JPEG":
        sys.exit(f"image_url gave {img.format}, not JPEG")
    print(f"==> image_url gave a {img.width}x{img.height} JPEG of {len(open(sys.argv[1], 'rb').read())} bytes")
PY

# The object behind that URL is in the bucket (listed through the S3 API, signed).
object_key=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.unquote(urllib.parse.urlsplit(sys.argv[1]).path).split("/", 2)[2])' "$image_url")
compose exec -T s3 s3ctl list selfie > "$work/bucket.txt" || fail "could not list the bucket"
grep -qxF "$object_key" "$work/bucket.txt" ||
    fail "object $object_key is not in bucket selfie (it holds: $(tr '\n' ' ' < "$work/bucket.txt"))"
log "object $object_key is in bucket selfie ($(wc -l < "$work/bucket.txt") objects)"

# --- 5. Non-root, healthy ------------------------------------------------------------------------------
server_uid=$(compose exec -T selfie sh -c 'grep ^Uid: /proc/1/status' | awk '{print $2}')
[ -n "$server_uid" ] && [ "$server_uid" != 0 ] || fail "the server (PID 1 in its container) runs as uid '${server_uid}', not a non-root user"
container=$(compose ps -q selfie)
health=""
for _ in $(seq 1 60); do
    health=$(docker inspect --format '{{.State.Health.Status}}' "$container")
    [ "$health" = healthy ] && break
    sleep 1
done
[ "$health" = healthy ] || fail "docker calls the selfie container '$health', not healthy: $(docker inspect --format '{{json .State.Health.Log}}' "$container" | tail -c 600)"
log "the server runs as uid $server_uid; Docker says the container is healthy"

# --- 5b. A backup, made inside the container as an operator would ----------------------------------
# The README's command: a one-off container of the image, the server's environment, a host folder
# mounted (writable by the image's user, uid 10001).
install -d -o 10001 -g 10001 -m 700 "$work/backups"
compose run --rm -T -v "$work/backups:/backups" selfie selfie backup /backups > "$logs/backup.log" 2>&1 ||
    { cat "$logs/backup.log" >&2; fail "selfie backup failed in a container of the image"; }
ls "$work"/backups/snapshots/*/database.dump > /dev/null 2>&1 ||
    fail "selfie backup wrote no database dump: $(cat "$logs/backup.log")"
[ "$(find "$work/backups/blobs" -type f | wc -l)" -ge 2 ] ||
    fail "the backup holds fewer blobs than the photo and its renditions: $(cat "$logs/backup.log")"
log "selfie backup in a container of the image: $(tail -1 "$logs/backup.log")"

# --- 6. Figures ------------------------------------------------------------------------------------
image_bytes=$(docker image inspect --format '{{.Size}}' selfie:local)
echo "container-check: PASSED"
printf '  image selfie:local           %s bytes (%s MB)\n' "$image_bytes" "$((image_bytes / 1000000))"
printf '  image build                  %s s\n' "$build_seconds"
printf '  docker-compose up → /signin  %s s\n' "$startup_seconds"

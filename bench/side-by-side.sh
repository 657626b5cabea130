#!/usr/bin/env bash
# Selfie's hot paths beside the ceilings of the same machine, measured in one run (loopback only):
#  - nginx serving Public/'s app.css, and `pgbench -S -c16 -j2` over TCP on a scratch database;
#  - Selfie (release build, on a scratch database holding one user with 20 photos) under
#    `wrk -t2 -cN --latency`: the stylesheet at the URL the pages link to, /healthz,
#    /api/get_photos (token) and /gallery (session cookie);
#  - uploads of a 15 MiB photo through the API and the web form, as MB per second of the server's
#    CPU (its utime + stime from /proc);
#  - get_photos' p99 while a sign-in storm keeps the bcrypt pool saturated;
#  - the share page of a 24-photo album beside the gallery of the same 24 photos, and one
#    thumbnail of that page as its visitor loads it, as the server's CPU per request (utime +
#    stime from /proc over the wrk run);
#  - the server's RSS when idle and after everything above;
#  - the Go peer (GO_PEER_DIR, default ../shared/peers/go_peer: net/http + pgx v4, Selfie's own SQL
#    statements and bodies; built with its setup.sh --build) on the same database, the same
#    token and cookie, under the same wrk runs of /healthz, /api/get_photos and /gallery; whether
#    its bodies are byte-identical to Selfie's is printed (they differ where Selfie changed since).
# Prints a markdown table (path, ceiling, Selfie req/s, p99, ratio). Brute-force limits are off.
# Usage: bench/side-by-side.sh [SECONDS=10] [CONNECTIONS=64]     (SKIP_BUILD=1 to reuse the binary)
# Bounded: each load lasts SECONDS (about 13 × SECONDS + set-up in all); every process started is
# stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}

missing=()
for tool in nginx:nginx wrk:wrk pgbench:postgresql-client bc:bc; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c 'import PIL' 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore pillow==13.0.0

[ -n "${SKIP_BUILD:-}" ] || bash scripts/release-build.sh 2>&1 | tail -1
export SELFIE_BIN=${SELFIE_BIN:-.build/release/selfie}

. scripts/lib/scratch-server.sh
work=$(mktemp -d)
nginx_pid=""
go_pid=""
cleanup() {
    [ -z "${server:-}" ] || kill "$server" 2>/dev/null || true
    [ -z "$go_pid" ] || kill "$go_pid" 2>/dev/null || true
    [ -z "$nginx_pid" ] || kill "$nginx_pid" 2>/dev/null || true
    runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS selfie_sidebysidepgbench WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

clock_ticks=$(getconf CLK_TCK)
# rss_mib PID: VmRSS, and how much of it is anonymous memory (the rest is pages of the binary and
# its shared libraries), in MiB.
rss_mib() { awk '/^VmRSS/ {rss = $2} /^RssAnon/ {anon = $2} END {printf "%.1f MiB (anon %.1f)", rss / 1024, anon / 1024}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# PostgreSQL's CPU: utime + stime of every process of the postgres user (the backends serving the
# run hold their connections throughout, so their ticks are all counted).
# pg_ticks FILE: each such process's "pid ticks" into FILE; pg_delta BEFORE AFTER: the ticks spent
# between the two by the processes alive at the end (one that ended meanwhile is left out rather
# than counted negative).
pg_ticks() { local p; for p in $(pgrep -u postgres); do awk -v pid="$p" '{print pid, $14 + $15}' "/proc/$p/stat" 2>/dev/null; done > "$1"; }
pg_delta() { awk 'NR == FNR {before[$1] = $2; next} {s += $2 - before[$1]} END {print s + 0}' "$1" "$2"; }
# measured_run OUT URL PID [wrk options…]: wrk_run, and into OUT.cpu the µs of CPU per request of
# the server PID and of PostgreSQL.
measured_run() {
    local out=$1 url=$2 pid=$3 before after requests
    shift 3
    before=$(cpu_ticks "$pid")
    pg_ticks "$out.pg-before"
    wrk_run "$out" "$url" "$@"
    after=$(cpu_ticks "$pid")
    pg_ticks "$out.pg-after"
    requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$out.txt")
    python3 -c "import sys; s, p, hz, n = map(float, sys.argv[1:]); print(f'{s / hz / n * 1e6:.0f} {p / hz / n * 1e6:.0f}')" \
        "$((after - before))" "$(pg_delta "$out.pg-before" "$out.pg-after")" "$clock_ticks" "$requests" > "$out.cpu"
}
results=$work/results.tsv
: > "$results"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$results"; }

# wrk_run OUT URL [wrk options…]: a run's requests per second and p99 (ms) into OUT as "rps p99";
# any non-2xx/3xx answer or socket error fails the script (figures of errors are not figures).
wrk_run() {
    local out=$1 url=$2
    shift 2
    wrk "$@" --latency "$url" > "$out.txt"
    if grep -qE "Non-2xx|Socket errors" "$out.txt"; then
        echo "wrk saw errors on $url:" >&2
        cat "$out.txt" >&2
        exit 1
    fi
    python3 - "$out.txt" > "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
print(rps, float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit])
PY
}

echo "==> machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Ceilings ------------------------------------------------------------------------------
echo "==> nginx serving Public/ (the same app.css)"
nginx_port=$(free_port)
cat > "$work/nginx.conf" <<EOF
user root;
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    types { text/css css; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $PWD/Public;
    }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" -g 'daemon off;' &
nginx_pid=$!
for _ in $(seq 1 50); do curl -fs -o /dev/null "http://127.0.0.1:$nginx_port/assets/css/app.css" && break; sleep 0.1; done
cmp <(curl -fs "http://127.0.0.1:$nginx_port/assets/css/app.css") Public/assets/css/app.css
wrk_run "$work/nginx" "http://127.0.0.1:$nginx_port/assets/css/app.css" -t2 -c"$connections" -d"${seconds}s"
kill "$nginx_pid"
wait "$nginx_pid" 2>/dev/null || true
nginx_pid=""
read -r nginx_rps nginx_p99 < "$work/nginx"

echo "==> pgbench -S -c16 -j2 over TCP (127.0.0.1)"
set -a; . ./.env; set +a
eval "$(python3 - "$DATABASE_URL" <<'PY'
import sys, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
print(f"pg_user={url.username} pg_port={url.port or 5432}")
print(f"export PGPASSWORD={urllib.parse.unquote(url.password or '')!r}")
PY
)"
runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS selfie_sidebysidepgbench WITH (FORCE)" \
    -c "CREATE DATABASE selfie_sidebysidepgbench OWNER $pg_user" >/dev/null 2>&1
pgbench -i -q -s 1 -h 127.0.0.1 -p "$pg_port" -U "$pg_user" selfie_sidebysidepgbench > "$work/pgbench-init.txt" 2>&1
pgbench -S -c16 -j2 -T"$seconds" -h 127.0.0.1 -p "$pg_port" -U "$pg_user" selfie_sidebysidepgbench > "$work/pgbench.txt" 2>&1
pgbench_tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.txt" | tail -1)
unset PGPASSWORD

# --- Selfie --------------------------------------------------------------------------------
echo "==> Selfie ($SELFIE_BIN) on a scratch database"
start_scratch_server sidebyside LOG_LEVEL=error
sleep 2
idle_rss=$(rss_mib "$server")
email=bench@example.com
password="bench password 1"
token=$(api_token "$email" "$password")

python3 - "$work" <<'PY'
import io, os, sys
from PIL import Image
work = sys.argv[1]
# 24 small photos of different colours (real JPEGs: they get real renditions); 20 at first.
for i in range(24):
    image = Image.new("RGB", (640, 480), (i * 12 % 256, 120, 255 - i * 12 % 256))
    image.save(f"{work}/small-{i}.jpg", "JPEG", quality=85)
# A real JPEG of few pixels padded to 15 MiB with comment segments of random bytes: the parser and
# the store see the whole size, the renditions stay quick (as bench/upload-memory.sh does).
buffer = io.BytesIO()
Image.new("RGB", (96, 64), (30, 120, 200)).save(buffer, "JPEG")
jpeg = buffer.getvalue()
segments = 15 * 1024 * 1024 // 65537
padding = b"".join(b"\xff\xfe" + (65535).to_bytes(2, "big") + os.urandom(65533) for _ in range(segments))
open(f"{work}/large.jpg", "wb").write(jpeg[:2] + padding + jpeg[2:])
PY
for i in $(seq 0 19); do
    curl -fs -o /dev/null -H "Authorization: Token token=$token" -F "image=@$work/small-$i.jpg;type=image/jpeg" \
        -F "title=Photo $i" "$base/api/upload_photo"
done

# A browser's session: the sign-in form's CSRF token, then the cookie jar as one Cookie header.
jar=$work/cookies
csrf() { curl -fs -b "$jar" -c "$jar" "$base$1" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1; }
curl -s -o /dev/null -b "$jar" -c "$jar" --data-urlencode "_csrf=$(csrf /signin)" --data-urlencode "email=$email" \
    --data-urlencode "password=$password" "$base/signin"
cookie="Cookie: $(awk -F'\t' 'NF == 7 {sub(/^#HttpOnly_/, "", $1); printf "%s%s=%s", sep, $6, $7; sep = "; "}' "$jar")"
gallery_status=$(curl -s -o "$work/gallery.html" -w '%{http_code}' -H "$cookie" "$base/gallery")
[ "$gallery_status" = 200 ] || { echo "the gallery answered $gallery_status with the session cookie" >&2; exit 1; }
[ "$(grep -c '<img src=' "$work/gallery.html")" = 20 ] || { echo "the gallery does not show the 20 photos" >&2; exit 1; }
[ "$(curl -fs -H "Authorization: Token token=$token" "$base/api/get_photos" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 20 ]
# The stylesheet at the URL the layout links to (fingerprinted once the pages link to one).
css=$(sed -n 's/.*rel="stylesheet" href="\([^"]*\)".*/\1/p' "$work/gallery.html" | head -1)
cmp <(curl -fs "$base$css") Public/assets/css/app.css

echo "==> wrk -t2 -c$connections -d${seconds}s against Selfie"
measured_run "$work/css" "$base$css" "$server" -t2 -c"$connections" -d"${seconds}s"
measured_run "$work/healthz" "$base/healthz" "$server" -t2 -c"$connections" -d"${seconds}s"
measured_run "$work/photos" "$base/api/get_photos" "$server" -t2 -c"$connections" -d"${seconds}s" -H "Authorization: Token token=$token"
measured_run "$work/gallery" "$base/gallery" "$server" -t2 -c"$connections" -d"${seconds}s" -H "$cookie"

# --- The Go peer on the same database, token and cookie -------------------------------------
go_peer_dir=${GO_PEER_DIR:-../shared/peers/go_peer}
go_columns=false
if [ -x "$go_peer_dir/setup.sh" ]; then
    echo "==> the Go peer ($go_peer_dir) on the same database"
    bash "$go_peer_dir/setup.sh" --build > "$work/go-build.txt" 2>&1 || { cat "$work/go-build.txt" >&2; exit 1; }
    go_port=$(free_port)
    (
        export PORT="$go_port" DATABASE_URL="$scratch_database_url" PUBLIC_URL="$base" PUBLIC_DIR="$PWD/Public"
        exec bash "$go_peer_dir/run.sh" > "$work/go.log" 2>&1
    ) &
    go_pid=$!
    go_base="http://127.0.0.1:$go_port"
    for _ in $(seq 1 100); do curl -fs -o /dev/null "$go_base/healthz" && break; sleep 0.1; done
    go_server=$(pgrep -P "$go_pid" go_peer || echo "$go_pid")
    go_idle_rss=$(rss_mib "$go_server")
    same() { cmp -s <(curl -fs -H "$2" "$base$1") <(curl -fs -H "$2" "$go_base$1") && echo identical || echo different; }
    go_photos_body=$(same /api/get_photos "Authorization: Token token=$token")
    go_gallery_body=$(same /gallery "$cookie")
    measured_run "$work/go-healthz" "$go_base/healthz" "$go_server" -t2 -c"$connections" -d"${seconds}s"
    measured_run "$work/go-photos" "$go_base/api/get_photos" "$go_server" -t2 -c"$connections" -d"${seconds}s" -H "Authorization: Token token=$token"
    measured_run "$work/go-gallery" "$go_base/gallery" "$go_server" -t2 -c"$connections" -d"${seconds}s" -H "$cookie"
    go_final_rss=$(rss_mib "$go_server")
    kill "$go_pid" 2>/dev/null || true
    wait "$go_pid" 2>/dev/null || true
    go_pid=""
    go_columns=true
else
    echo "==> no Go peer at $go_peer_dir: its columns are left out"
fi

echo "==> get_photos during a sign-in storm (bcrypt pool saturated)"
cat > "$work/signin.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Basic $(printf '%s:%s' "$API_AUTH_NAME" "$API_AUTH_PASSWORD" | base64 -w0)"
wrk.body = '{"email":"$email","password":"$(aescrypt "$password")"}'
EOF
wrk -t1 -c8 -d"$((seconds + 2))s" --timeout 30s -s "$work/signin.lua" "$base/api/signin" > "$work/storm.txt" &
storm=$!
sleep 1
wrk_run "$work/stormphotos" "$base/api/get_photos" -t1 -c16 -d"${seconds}s" -H "Authorization: Token token=$token"
wait "$storm"
if grep -qE "Non-2xx|Socket errors" "$work/storm.txt"; then
    echo "the sign-in storm saw errors:" >&2
    cat "$work/storm.txt" >&2
    exit 1
fi
# Sign-ins still queued for bcrypt when wrk stopped finish before the uploads are measured.
sleep 3

echo "==> a 24-photo album's share page beside the gallery, and a thumbnail of it (server CPU per request)"
for i in 20 21 22 23; do
    curl -fs -o /dev/null -H "Authorization: Token token=$token" -F "image=@$work/small-$i.jpg;type=image/jpeg" \
        -F "title=Photo $i" "$base/api/upload_photo"
done
selection=$(curl -fs -H "Authorization: Token token=$token" "$base/api/get_photos" |
    python3 -c 'import json, sys, urllib.parse; print("&".join("photo=" + urllib.parse.quote(p["random_id"]) for p in json.load(sys.stdin)))')
gallery_csrf=$(curl -fs -H "$cookie" "$base/gallery" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1)
album_path=$(curl -s -o /dev/null -w '%{redirect_url}' -H "$cookie" --data "_csrf=$gallery_csrf&$selection&action=add&target_album=&new_album_title=Bench" \
    "$base/photos/selection" | sed 's|^[a-z]*://[^/]*||; s|?.*||')
[ -n "$album_path" ] || { echo "no album was made" >&2; exit 1; }
album_id=${album_path##*/}
share_token=$(curl -fs -H "$cookie" --data "_csrf=$gallery_csrf&album=$album_id&expires=7" "$base/links" |
    sed -n 's|.*value="[^"]*/s/\([A-Za-z0-9_-]\{32\}\)".*|\1|p' | head -1)
[ -n "$share_token" ] || { echo "no share link was made" >&2; exit 1; }
[ "$(curl -fs "$base/s/$share_token" | grep -c '<img src=')" = 24 ] || { echo "the share page does not show the 24 photos" >&2; exit 1; }
[ "$(curl -fs -H "$cookie" "$base/gallery" | grep -c '<img src=')" = 24 ] || { echo "the gallery does not show the 24 photos" >&2; exit 1; }
# cpu_per_request OUT URL [wrk options…]: "rps p99 µs-of-server-CPU-per-request" into OUT.
cpu_per_request() {
    local out=$1 url=$2 before after
    shift 2
    before=$(cpu_ticks "$server")
    wrk_run "$out.wrk" "$url" "$@"
    after=$(cpu_ticks "$server")
    local requests
    requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$out.wrk.txt")
    read -r rps p99 < "$out.wrk"
    echo "$rps $p99 $(python3 -c "import sys; t, hz, n = map(float, sys.argv[1:]); print(f'{t / hz / n * 1e6:.0f}')" "$((after - before))" "$clock_ticks" "$requests")" > "$out"
}
cpu_per_request "$work/gallery24" "$base/gallery" -t2 -c"$connections" -d"${seconds}s" -H "$cookie"
cpu_per_request "$work/shared24" "$base/s/$share_token" -t2 -c"$connections" -d"${seconds}s"
# One thumbnail of that page as its visitor's browser asks for it: the link is checked again.
shared_image=$(curl -fs "$base/s/$share_token" | sed -n 's|.*<img src="\(/s/[^"]*/thumb-400\)".*|\1|p')
shared_image=${shared_image%%$'\n'*}
[ -n "$shared_image" ] || { echo "the share page links no thumbnail" >&2; exit 1; }
cpu_per_request "$work/sharedimage" "$base$shared_image" -t2 -c"$connections" -d"${seconds}s"
storm_rps=$(sed -n 's/^Requests\/sec:[[:space:]]*\([0-9.]*\)/\1/p' "$work/storm.txt")
# curl asks `Expect: 100-continue` for these bodies, as it would for a user: the server sends the
# 100 when the upload's body is first read.
echo "==> uploads of a 15 MiB photo (5 through the API, 5 through the web form)"
upload_size=$(stat -c %s "$work/large.jpg")
# upload_rate KIND: MB of upload per second of server CPU, and the mean wall time per upload.
upload_rate() {
    local kind=$1 before after started ended
    before=$(cpu_ticks "$server")
    started=$(date +%s.%N)
    for i in 1 2 3 4 5; do
        if [ "$kind" = api ]; then
            status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" \
                -F "image=@$work/large.jpg;type=image/jpeg" -F "title=Large $i" "$base/api/upload_photo")
            [ "$status" = 200 ] || { echo "API upload answered $status" >&2; exit 1; }
        else
            status=$(curl -s -o /dev/null -w '%{http_code}' -H "$cookie" -F "title=Large $i" \
                -F "image=@$work/large.jpg;type=image/jpeg" "$base/photos?_csrf=$(csrf_signed_in)")
            [ "$status" = 303 ] || { echo "web upload answered $status" >&2; exit 1; }
        fi
    done
    ended=$(date +%s.%N)
    after=$(cpu_ticks "$server")
    python3 -c "import sys; size, ticks, hz, wall = map(float, sys.argv[1:]); \
print(f'{5 * size / 1e6 / (ticks / hz):.0f} {ticks / hz / 5 * 1000:.0f} {wall / 5 * 1000:.0f}')" \
        "$upload_size" "$((after - before))" "$clock_ticks" "$(echo "$ended - $started" | bc)"
}
csrf_signed_in() { curl -fs -H "$cookie" "$base/photos/new" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1; }
upload_rate api > "$work/upload-api"
upload_rate web > "$work/upload-web"
read -r api_rate api_cpu_ms api_wall_ms < "$work/upload-api"
read -r web_rate web_cpu_ms web_wall_ms < "$work/upload-web"

final_rss=$(rss_mib "$server")

# --- The table -----------------------------------------------------------------------------
read -r css_rps css_p99 < "$work/css"
read -r health_rps health_p99 < "$work/healthz"
read -r photos_rps photos_p99 < "$work/photos"
read -r gallery_rps gallery_p99 < "$work/gallery"
read -r storm_photos_rps storm_photos_p99 < "$work/stormphotos"
read -r gallery24_rps gallery24_p99 gallery24_cpu < "$work/gallery24"
read -r shared24_rps shared24_p99 shared24_cpu < "$work/shared24"
read -r sharedimage_rps sharedimage_p99 sharedimage_cpu < "$work/sharedimage"
cpu_cell() { [ -s "$1.cpu" ] && read -r app pg < "$1.cpu" && echo "$app / $pg" || echo "—"; }
cpu_css=$(cpu_cell "$work/css") cpu_health=$(cpu_cell "$work/healthz") cpu_photos=$(cpu_cell "$work/photos") cpu_gallery=$(cpu_cell "$work/gallery")
go_cpu_health=$(cpu_cell "$work/go-healthz") go_cpu_photos=$(cpu_cell "$work/go-photos") go_cpu_gallery=$(cpu_cell "$work/go-gallery")
go_health=0 go_photos=0 go_gallery=0
if $go_columns; then
    read -r go_health _ < "$work/go-healthz"
    read -r go_photos _ < "$work/go-photos"
    read -r go_gallery _ < "$work/go-gallery"
fi
python3 - <<PY
go = {"healthz": $go_health, "photos": $go_photos, "gallery": $go_gallery}
rows = [
    ("\`$css\` (wrk -c$connections)", "nginx $nginx_rps", None, $css_rps, $css_p99, $css_rps / $nginx_rps, "$cpu_css", "—"),
    ("\`/healthz\` (one SELECT 1)", "pgbench -S $pgbench_tps", go["healthz"], $health_rps, $health_p99, $health_rps / $pgbench_tps, "$cpu_health", "$go_cpu_health"),
    ("\`/api/get_photos\` (20 photos)", "pgbench -S $pgbench_tps", go["photos"], $photos_rps, $photos_p99, $photos_rps / $pgbench_tps, "$cpu_photos", "$go_cpu_photos"),
    ("\`/gallery\` (20 photos)", "pgbench -S $pgbench_tps", go["gallery"], $gallery_rps, $gallery_p99, $gallery_rps / $pgbench_tps, "$cpu_gallery", "$go_cpu_gallery"),
]
print()
print("| path | ceiling (req/s) | Go peer req/s | Selfie req/s | Selfie p99 | Selfie / Go | Selfie / ceiling | CPU µs per request, Selfie / PostgreSQL | Go / PostgreSQL |")
print("|---|---|---|---|---|---|---|---|---|")
for path, ceiling, go_rps, rps, p99, ratio, cpu, go_cpu in rows:
    name, value = ceiling.rsplit(" ", 1)
    go_cell, vs_go = (f"{go_rps:,.0f}", f"{rps / go_rps:.2f}") if go_rps else ("—", "—")
    print(f"| {path} | {name} {float(value):,.0f} | {go_cell} | {rps:,.0f} | {p99:.1f} ms | {vs_go} | {ratio:.0%} | {cpu} | {go_cpu} |")
print(f"| \`/api/get_photos\` (wrk -t1 -c16) during a sign-in storm ({float('$storm_rps'):.1f} sign-ins/s, 8 at once) | | {$storm_photos_rps:,.0f} | {$storm_photos_p99:.1f} ms | |")
print(f"| \`/gallery\` (24 photos, session) | | {$gallery24_rps:,.0f} | {$gallery24_p99:.1f} ms | $gallery24_cpu µs server CPU per request |")
print(f"| \`/s/<token>\` (album of 24, no account) | | {$shared24_rps:,.0f} | {$shared24_p99:.1f} ms | $shared24_cpu µs server CPU per request |")
print(f"| a thumbnail of that link (\`/s/<token>/photos/<id>/thumb-400\`) | | {$sharedimage_rps:,.0f} | {$sharedimage_p99:.1f} ms | $sharedimage_cpu µs server CPU per request |")
print(f"| upload 15 MiB, API (\`curl -F\`) | | $api_rate MB/s of server CPU | $api_cpu_ms ms CPU, $api_wall_ms ms wall per upload | |")
print(f"| upload 15 MiB, web form (CSRF) | | $web_rate MB/s of server CPU | $web_cpu_ms ms CPU, $web_wall_ms ms wall per upload | |")
print(f"| server RSS (VmRSS) | | idle $idle_rss, after the run $final_rss | | |")
if "$go_columns" == "true":
    print(f"| Go peer RSS (VmRSS) | | idle ${go_idle_rss:-}, after its runs ${go_final_rss:-}; bodies: get_photos ${go_photos_body:-}, gallery ${go_gallery_body:-} | | |")
PY
echo
echo "nginx p99 ${nginx_p99} ms; pgbench: $(grep -E '^latency average' "$work/pgbench.txt")"

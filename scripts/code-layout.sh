#!/usr/bin/env bash
# Writes deploy/code-layout.ld, the linker script with which scripts/release-build.sh lays out the
# server's code: first the functions a release server runs, in the order it first runs them — its
# start and first idle seconds, then the common requests once each (API sign-up, sign-in, upload
# of a real photo, get_photos; the browser's sign-in and gallery; the stylesheet; /healthz) — then
# everything else. The code a running server touches then lies together in about 2 MiB instead of
# being spread over the binary's 18, and the kernel maps fewer pages of code that never runs
# (each page touched brings its neighbours): BENCHMARKS.md, "The server's code in the order it runs".
#
# How: a release build linked without the script, with lld's map of where each function went; the
# server runs on a scratch database under scripts/code-layout/calltrace.c, which stops at each
# function the first time it runs and writes its address down; scripts/code-layout/layout.py turns
# the addresses back into (object file, section) names. Run it again when the code has changed
# much: a function the script does not name is linked after those it does, where it costs memory
# only if it runs.
# Usage: scripts/code-layout.sh     (as root, like `make run`; ~10 min from a clean .build)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$PWD/.build/code-layout
rm -rf "$work"
mkdir -p "$work"
RELEASE_PRODUCTS=selfie CODE_LAYOUT=0 bash scripts/release-build.sh -Xlinker "-Map=$work/selfie.map" 2>&1 | tail -1
RELEASE_PRODUCTS=selfie-image-worker bash scripts/release-build.sh 2>&1 | tail -1
binary=$PWD/.build/release/selfie
"${CC:-clang}" -O2 -Wall -o "$work/calltrace" scripts/code-layout/calltrace.c
python3 scripts/code-layout/layout.py sections "$work/selfie.map" "$work/sections" > "$work/addresses"
# The scratch-server helper starts SELFIE_BIN with its settings in the environment: this one starts
# the server under calltrace.
cat > "$work/selfie" <<WRAPPER
#!/usr/bin/env bash
exec "$work/calltrace" "$work/hits" "$work/addresses" "$binary" "\$@"
WRAPPER
chmod +x "$work/selfie"

. scripts/lib/scratch-server.sh
set -a; . ./.env; set +a
trap '[ -z "${server:-}" ] || kill "$server" 2>/dev/null || true' EXIT
SELFIE_BIN=$work/selfie start_scratch_server codelayout LOG_LEVEL=error
sleep 2
email=layout@example.com
password="layout password 1"
token=$(api_token "$email" "$password")
photo=/usr/share/wallpapers/SafeLanding/contents/images/1622x2880.jpg
[ -f "$photo" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq plasma-workspace-wallpapers >/dev/null
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" -F "image=@$photo" -F "title=layout" "$base/api/upload_photo")
[ "$status" = 200 ] || { echo "the upload answered $status" >&2; exit 1; }
for _ in 1 2 3; do curl -fs -o /dev/null -H "Authorization: Token token=$token" "$base/api/get_photos"; done
jar=$work/cookies
csrf() { curl -fs -b "$jar" -c "$jar" "$base$1" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -1; }
curl -s -o /dev/null -b "$jar" -c "$jar" --data-urlencode "_csrf=$(csrf /signin)" --data-urlencode "email=$email" \
    --data-urlencode "password=$password" "$base/signin"
for _ in 1 2; do curl -fs -o "$work/gallery.html" -b "$jar" "$base/gallery"; done
grep -q '<img src=' "$work/gallery.html" || { echo "the gallery does not show the photo" >&2; exit 1; }
css=$(sed -n 's/.*rel="stylesheet" href="\([^"]*\)".*/\1/p' "$work/gallery.html" | head -1)
for _ in 1 2; do curl -fs -o /dev/null "$base$css"; curl -fs -o /dev/null "$base/healthz"; done
sleep 1
kill "$server"
wait "$server" 2>/dev/null || true
server=""
python3 scripts/code-layout/layout.py script "$work/sections" "$work/hits" > deploy/code-layout.ld
echo "==> deploy/code-layout.ld written; scripts/release-build.sh links with it"

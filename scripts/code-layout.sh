#!/usr/bin/env bash
# Writes deploy/code-layout.ld, the linker script with which scripts/release-build.sh links the
# server (why: docs/ARCHITECTURE.md, "Release builds lay the code out by use"): the functions a
# release server runs — its start and first idle seconds, then the common requests once each (API
# sign-up, sign-in, upload of a real photo, get_photos; the browser's sign-in and gallery; the
# stylesheet; /healthz) — in the order it first runs them, then everything else.
#
# How: a release build linked without the script, with lld's map of where each function went; the
# server runs on a scratch database under scripts/code-layout/calltrace.c, which stops at each
# function the first time it runs and writes its address down; scripts/code-layout/layout.py turns
# the addresses back into (object file, section) names. Run it again when the code has changed
# much. Ends with the release build linked with the new script.
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
[ -s "$work/hits" ] || { echo "calltrace recorded no function" >&2; exit 1; }
python3 scripts/code-layout/layout.py script "$work/sections" "$work/hits" > "$work/code-layout.ld"
mv "$work/code-layout.ld" deploy/code-layout.ld
RELEASE_PRODUCTS=selfie bash scripts/release-build.sh 2>&1 | tail -1
echo "==> deploy/code-layout.ld written, and .build/release/selfie linked with it"

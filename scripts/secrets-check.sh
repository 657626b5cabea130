#!/usr/bin/env bash
# The set-up's secrets stay secret on a shared machine (run by `make test`):
#  1. secret files are created owner-only from the start: the process that creates one has set
#     umask 077 before it opens the file (no window in which another user could open it);
#  2. no secret is ever on a command line: the whole bootstrap runs under strace, and no
#     program's arguments contain the database password, SECRET_KEY or API_AUTH_PASSWORD.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "==> secret files are owner-only from the first byte"
strace -f -qq -e trace=umask,openat -o "$work/files.trace" \
    bash -c '. scripts/lib/secrets.sh; ensure_secret_file "$1/secret" printf s3cr3t; ensure_private_file "$1/env"' _ "$work"
python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
umask077, created = set(), {}
for line in open(f"{work}/files.trace"):
    pid = line.split()[0]
    if re.search(r"umask\(0?77\)", line):
        umask077.add(pid)
    match = re.search(r'openat\(AT_FDCWD, "([^"]+)", [^)]*O_CREAT', line)
    if match:
        created[match.group(1)] = pid in umask077
for name in ("secret", "env"):
    path = f"{work}/{name}"
    assert path in created, f"{path} was not created"
    assert created[path], f"{path} was created before umask 077"
print("ok: both created under umask 077")
PY
[ "$(stat -c %a "$work/secret")" = 600 ] && [ "$(stat -c %a "$work/env")" = 600 ]

echo "==> no secret on any command line during the set-up"
strace -f -qq -e trace=execve -s 100000 -o "$work/exec.trace" bash scripts/bootstrap.sh > /dev/null
db_password=$(cat "${XDG_CONFIG_HOME:-$HOME/.config}/selfie/database-password")
leaks=0
for name in db_password SECRET_KEY API_AUTH_PASSWORD; do
    if [ "$name" = db_password ]; then value=$db_password; else value=$(sed -n "s/^$name=//p" .env); fi
    [ -n "$value" ] || { echo "no value for $name" >&2; exit 1; }
    if grep -qF -- "$value" "$work/exec.trace"; then
        echo "$name appears on a command line:" >&2
        grep -F -- "$value" "$work/exec.trace" | head -3 | cut -c1-200 >&2
        leaks=1
    fi
done
[ $leaks = 0 ]
echo "ok: $(grep -c execve "$work/exec.trace") programs started, none with a secret in its arguments"

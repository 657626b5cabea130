#!/usr/bin/env bash
# Selfie through PgBouncer in transaction mode (Debian's pgbouncer, loopback only): a scratch server
# migrates and serves through it, then the API and the pages are used as in the other checks —
# sign up, sign in, upload, list, a page, the account lockout (advisory transaction locks), mail
# queued in a transaction. Every answer must be the expected one and PgBouncer must log no error.
# Not part of `make test`; docs/SCALING.md reports it. `make pgbouncer-check`.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_APT_PACKAGES="pgbouncer" bash scripts/bootstrap.sh >/dev/null
. scripts/lib/scratch-server.sh
work=.build/pgbouncer-check
rm -rf "$work"
mkdir -p "$work"
runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS selfie_pgbouncer WITH (FORCE)" -c "CREATE DATABASE selfie_pgbouncer OWNER selfie" >/dev/null
password=${DATABASE_URL#*://selfie:}
password=${password%%@*}
bouncer_port=$(free_port)
(umask 077
cat > "$work/pgbouncer.ini" <<INI
[databases]
selfie_pgbouncer = host=127.0.0.1 port=5432 dbname=selfie_pgbouncer user=selfie password=$password
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
auth_type = plain
auth_file = $PWD/$work/users.txt
pool_mode = transaction
default_pool_size = 10
max_client_conn = 200
logfile = $PWD/$work/pgbouncer.log
pidfile = $PWD/$work/pgbouncer.pid
unix_socket_dir =
INI
printf '"selfie" "%s"\n' "$password" > "$work/users.txt")
chown -R postgres "$work"
runuser -u postgres -- pgbouncer -d "$PWD/$work/pgbouncer.ini"
trap 'kill ${server:-} 2>/dev/null || true; kill "$(cat "$work/pgbouncer.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do [ -s "$work/pgbouncer.pid" ] && break; sleep 0.1; done

# start_scratch_server makes its own database; point the server at the one behind PgBouncer instead.
# PgBouncer before 1.21 keeps no named prepared statement across transactions: they are turned off.
# The access-change listener is left on the pooler here: its probe must find that LISTEN does not
# hear through transaction pooling and keep sessions and tokens out of memory.
start_scratch_server pgbscratch DATABASE_URL="postgres://selfie:$password@127.0.0.1:$bouncer_port/selfie_pgbouncer" \
    LOCKOUT_THRESHOLD=5 DATABASE_POOL_SIZE=30 DATABASE_PREPARED_STATEMENTS=off LOG_LEVEL=info
echo "==> serving through PgBouncer (transaction mode) on port $bouncer_port"
token=$(api_token bouncer@example.com "through the bouncer")
python3 -c 'import sys; from PIL import Image; Image.effect_noise((640, 480), 60).convert("RGB").save(sys.argv[1], quality=90)' "$work/photo.jpg"
statuses=""
for i in $(seq 1 20); do
    statuses+="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" -F "image=@$work/photo.jpg" -F "title=$i" "$base/api/upload_photo") "
done
for i in $(seq 1 50); do
    statuses+="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" "$base/api/get_photos") "
    statuses+="$(curl -s -o /dev/null -w '%{http_code}' "$base/signin") "
done
bad=$(echo "$statuses" | tr ' ' '\n' | grep -v '^$' | grep -vc '^200$' || true)
count=$(curl -fs -H "Authorization: Token token=$token" "$base/api/get_photos" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "120 requests, $bad not 200; $count photos listed"
[ "$bad" = 0 ] && [ "$count" = 20 ] || { echo "unexpected answers through PgBouncer" >&2; exit 1; }
wrong=$(aescrypt "wrong password")
for _ in 1 2 3 4 5; do
    curl -s -o /dev/null -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
        -d "{\"email\":\"bouncer@example.com\",\"password\":\"$wrong\"}" "$base/api/signin"
done
locked=$(curl -s -o /dev/null -w '%{http_code}' -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
    -d "{\"email\":\"bouncer@example.com\",\"password\":\"$(aescrypt "through the bouncer")\"}" "$base/api/signin")
echo "after five wrong passwords: $locked"
[ "$locked" = 429 ] || { echo "the lockout did not hold through PgBouncer" >&2; exit 1; }
queued=$(runuser -u postgres -- psql -qtA -d selfie_pgbouncer -c "SELECT count(*) FROM mail_outbox")
[ "$queued" -ge 1 ] || { echo "no mail queued" >&2; exit 1; }
if grep -Ei "error|prepared statement" "$work/pgbouncer.log" | grep -v "client_close_request\|client unexpected eof" >&2; then
    echo "PgBouncer logged errors (above)" >&2
    exit 1
fi
if grep -q "request failed" "$scratch_dir/server.log"; then grep "request failed" "$scratch_dir/server.log" >&2; exit 1; fi
for _ in $(seq 1 50); do grep -q "not hearing access changes" "$scratch_dir/server.log" && break; sleep 0.1; done
if grep -q "hearing access changes; sessions and tokens are kept in memory" "$scratch_dir/server.log" \
    || ! grep -q "not hearing access changes" "$scratch_dir/server.log"; then
    echo "the access-change listener believed it hears through transaction pooling" >&2
    exit 1
fi
echo "listener through the pooler: not hearing, sessions and tokens looked up every time (as it must)"

# A second instance with DATABASE_LISTEN_URL straight to PostgreSQL hears, and still reads through the pooler.
# (start_instance sets $server to the new one: the first is kept aside so the exit trap stops it.)
first=$server
start_instance direct-listener DATABASE_URL="postgres://selfie:$password@127.0.0.1:$bouncer_port/selfie_pgbouncer" \
    DATABASE_LISTEN_URL="postgres://selfie:$password@127.0.0.1:5432/selfie_pgbouncer" \
    DATABASE_PREPARED_STATEMENTS=off LOG_LEVEL=info
second=$server
for _ in $(seq 1 50); do grep -q "hearing access changes; sessions" "$scratch_dir/direct-listener.log" && break; sleep 0.1; done
grep -q "hearing access changes; sessions" "$scratch_dir/direct-listener.log" \
    || { echo "the listener on DATABASE_LISTEN_URL did not hear" >&2; cat "$scratch_dir/direct-listener.log" >&2; exit 1; }
listed=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token token=$token" "$base/api/get_photos")
kill "$second"
server=$first
[ "$listed" = 200 ] || { echo "the second instance answered $listed" >&2; exit 1; }
echo "listener on DATABASE_LISTEN_URL (direct): hearing; the token works there too"
echo "==> PgBouncer, transaction mode: migrations, sign-up/in, 20 uploads, 100 reads, lockout, outbox: all as direct"

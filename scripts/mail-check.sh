#!/usr/bin/env bash
# The mail outbox against real processes: two Selfie instances on one scratch database, one real
# SMTP server (scripts/smtp_sink.py), loopback only.
#  1. The server killed (-9) in the middle of sending a message its sign-up committed: started
#     again, it delivers the message, exactly once. (Another live instance taking over at once is
#     in MailDeliveryTests.)
#  2. 200 queued messages, both instances sending at once: every message arrives exactly once
#     (no Message-ID twice), and both instances took part.
# Used by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/scratch-server.sh
cleanup() {
    # Never `kill 0` (the whole process group, make included): only the pids that are set.
    for pid in ${first:-} ${second:-} ${smtp:-}; do
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
start_smtp_sink mailcheck
start_scratch_server mailcheck "${smtp_settings[@]}" LOG_LEVEL=info
first=$server
work=$scratch_dir

psql_scratch() { runuser -u postgres -- psql -qtA -d selfie_mailcheck -c "$1"; }

# message_ids: one Message-ID per line for every message the sink accepted.
message_ids() {
    python3 - "$smtp_messages" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/message-*.json")):
    print(json.load(open(path))["headers"]["message-id"])
PY
}

echo "==> 1: the server killed mid-send, then started again"
kill -STOP "$smtp"
encrypted=$(aescrypt "mail check password")
# The sign-up commits its account and its mail together before it answers.
curl -fs -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
    -d "{\"full_name\":\"Mail Check\",\"email\":\"crash@example.com\",\"password\":\"$encrypted\"}" "$base/api/signup" >/dev/null
# The SMTP server is frozen: the kernel completes the connection, the greeting never comes.
connected=""
for _ in $(seq 1 100); do
    connected=$(ss -tnpH state established "( dport = :$smtp_port )" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
    [ -n "$connected" ] && break
    sleep 0.1
done
[ "$connected" = "$first" ] || { echo "the server never connected to the SMTP server" >&2; exit 1; }
echo "the server is sending; kill -9"
kill -9 "$first"
wait "$first" 2>/dev/null || true
first=""
kill -CONT "$smtp"
sleep 1
[ "$(message_ids | wc -l)" = 0 ] || { echo "a message arrived from a dead server" >&2; exit 1; }
start_instance restarted "${smtp_settings[@]}" LOG_LEVEL=info
first=$server
delivered=""
for _ in $(seq 1 150); do
    if [ "$(psql_scratch "SELECT count(*) FROM mail_outbox WHERE sent_at IS NOT NULL")" = 1 ]; then delivered=yes; break; fi
    sleep 0.1
done
[ -n "$delivered" ] || { echo "the message was not delivered after the restart" >&2; psql_scratch "TABLE mail_outbox" >&2; exit 1; }
sleep 3 # time for a duplicate to show up, were there one
count=$(message_ids | wc -l)
attempts=$(psql_scratch "SELECT attempts FROM mail_outbox")
echo "after the restart: $count message(s) at the SMTP server, attempts recorded: $attempts"
[ "$count" = 1 ] || { echo "expected exactly one message, got $count" >&2; exit 1; }
[ "$attempts" = 1 ] || { echo "the dead server's attempt must not count (it recorded nothing): attempts=$attempts" >&2; exit 1; }

echo "==> 2: 200 messages, two instances sending"
start_instance second "${smtp_settings[@]}" LOG_LEVEL=info
second=$server
before=$(message_ids | wc -l)
psql_scratch "INSERT INTO mail_outbox (message_id, recipient, recipient_name, kind, params)
    SELECT 'check-' || n || '@example.com', 'person' || n || '@example.com', 'Person ' || n, 'password_changed', '{}'::jsonb
    FROM generate_series(1, 200) AS n"
started=$(date +%s.%N)
for _ in $(seq 1 600); do
    [ "$(psql_scratch "SELECT count(*) FROM mail_outbox WHERE sent_at IS NULL")" = 0 ] && break
    sleep 0.1
done
finished=$(date +%s.%N)
pending=$(psql_scratch "SELECT count(*) FROM mail_outbox WHERE sent_at IS NULL")
[ "$pending" = 0 ] || { echo "$pending messages still undelivered after 60 s" >&2; exit 1; }
sleep 3
total=$(message_ids | wc -l)
distinct=$(message_ids | sort -u | wc -l)
per_instance=$(for log in "$work"/restarted.log "$work"/second.log; do
    printf '%s=%s ' "$(basename "$log" .log)" "$(grep -c 'mail delivered' "$log" || true)"
done)
seconds=$(python3 -c "print(f'{$finished - $started:.1f}')")
echo "$((total - before)) messages in ${seconds} s; $distinct distinct Message-IDs of $total; delivered per log: $per_instance"
[ "$((total - before))" = 200 ] || { echo "expected 200 new messages at the SMTP server" >&2; exit 1; }
[ "$distinct" = "$total" ] || { echo "a message was delivered twice" >&2; message_ids | sort | uniq -d >&2; exit 1; }
# Both instances running during the batch delivered a share of it.
for log in "$work/restarted.log" "$work/second.log"; do
    if [ "$(grep -c 'mail delivered' "$log" || true)" -lt 10 ]; then
        echo "$(basename "$log") delivered fewer than 10 of the 200: the instances did not share the work" >&2
        exit 1
    fi
done
echo "==> mail: a dead sender's message delivered once; 200 messages, two senders, none twice"

#!/usr/bin/env bash
# Starts (or stops) the servers the tests talk to, on free loopback ports:
#   nanio  - S3-compatible, verifies SigV4 signatures strictly
#   moto   - S3-compatible, broad behaviour (does not check signatures)
#   smtp   - a real SMTP server (aiosmtpd) with STARTTLS and AUTH; every message it accepts is
#            written to .build/test-peers/smtp/ (scripts/smtp_sink.py)
# `start` writes their addresses to .build/test-peers/env for `make test` to export.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.build/test-peers
mkdir -p "$dir"

stop() {
    for name in nanio moto smtp; do
        if [ -f "$dir/$name.pid" ]; then
            kill "$(cat "$dir/$name.pid")" 2>/dev/null || true
            rm -f "$dir/$name.pid"
        fi
    done
}

. scripts/lib/ports.sh

wait_for_file() { # NAME FILE
    for _ in $(seq 1 100); do
        if [ -s "$2" ]; then return 0; fi
        sleep 0.1
    done
    echo "$1 did not start; its log:" >&2
    cat "$dir/$1.log" >&2
    return 1
}

wait_for() { # NAME PORT
    for _ in $(seq 1 100); do
        if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $2), 0.2)" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "$1 did not start; its log:" >&2
    cat "$dir/$1.log" >&2
    return 1
}

start() {
    stop
    rm -rf "$dir/nanio-data"
    mkdir -p "$dir/nanio-data"
    nanio_port=$(free_port)
    moto_port=$(free_port)
    NANIO_ACCESS_KEY=selfie-test NANIO_SECRET_KEY=selfie-test-secret-key \
        python3 -m nanio serve --host 127.0.0.1 --port "$nanio_port" --data-dir "$dir/nanio-data" \
        --no-access-log --log-level warning > "$dir/nanio.log" 2>&1 &
    echo $! > "$dir/nanio.pid"
    python3 -m moto.server -H 127.0.0.1 -p "$moto_port" > "$dir/moto.log" 2>&1 &
    echo $! > "$dir/moto.pid"
    # SMTP: STARTTLS with a self-signed certificate for "localhost", AUTH required.
    rm -rf "$dir/smtp"
    mkdir -p "$dir/smtp/messages"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$dir/smtp/key.pem" -out "$dir/smtp/cert.pem" -days 2 -subj /CN=localhost \
        -addext subjectAltName=DNS:localhost 2> "$dir/smtp.log"
    python3 scripts/smtp_sink.py --detached --out "$dir/smtp/messages" --tls starttls \
        --cert "$dir/smtp/cert.pem" --key "$dir/smtp/key.pem" --user selfie-test --password sink-password \
        >> "$dir/smtp.log" 2>&1 < /dev/null &
    echo $! > "$dir/smtp.pid"
    wait_for nanio "$nanio_port"
    wait_for moto "$moto_port"
    wait_for_file smtp "$dir/smtp/messages/ready.json"
    smtp_port=$(python3 -c "import json; print(json.load(open('$dir/smtp/messages/ready.json'))['port'])")
    cat > "$dir/env" <<ENV
TEST_S3_NANIO_ENDPOINT=http://127.0.0.1:$nanio_port
TEST_S3_NANIO_ACCESS_KEY=selfie-test
TEST_S3_NANIO_SECRET_KEY=selfie-test-secret-key
TEST_S3_MOTO_ENDPOINT=http://127.0.0.1:$moto_port
TEST_SMTP_URL=smtp://selfie-test:sink-password@localhost:$smtp_port
TEST_SMTP_CA_FILE=$PWD/$dir/smtp/cert.pem
TEST_SMTP_MESSAGES=$PWD/$dir/smtp/messages
ENV
    echo "==> test peers: nanio on $nanio_port, moto on $moto_port, SMTP on $smtp_port"
}

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

# Shared by the scripts that drive a live Selfie: a scratch database, a free loopback port, the
# server started on them, and a user with an API token. Source it after `cd` to the repository.
set -a; . ./.env; set +a

. scripts/lib/ports.sh

# start_scratch_server NAME [VAR=value …]: a fresh database selfie_NAME, blobs and log under
# .build/NAME, brute-force limits off unless given; sets $server (pid) and $base (URL).
start_scratch_server() {
    local name=$1
    shift
    scratch_dir=.build/$name
    rm -rf "$scratch_dir"
    mkdir -p "$scratch_dir"
    scratch_database_url="${DATABASE_URL%/*}/selfie_$name"
    runuser -u postgres -- psql -qtA -c "DROP DATABASE IF EXISTS selfie_$name WITH (FORCE)" \
        -c "CREATE DATABASE selfie_$name OWNER selfie" >/dev/null 2>&1
    start_instance server "$@"
}

# start_instance LOG [VAR=value …]: one more Selfie on the scratch database and blob folder of
# start_scratch_server, on a port of its own ($INSTANCE_PORT, else a free one), logging to
# $scratch_dir/LOG.log; sets $server and $base.
start_instance() {
    local log=$scratch_dir/$1.log
    shift
    local port
    port=${INSTANCE_PORT:-$(free_port)}
    base="http://127.0.0.1:$port"
    # Settings are exported in a subshell, not passed to `env`: the database URL carries a
    # password, and a program's arguments are visible to everyone in `ps`.
    (
        export DATABASE_URL="$scratch_database_url" PORT="$port" PUBLIC_URL="$base" BLOB_DIR="$scratch_dir/blobs" LOG_LEVEL=warning \
            LOCKOUT_THRESHOLD=0 RATE_LIMIT_SIGN_INS_PER_MINUTE=0 RATE_LIMIT_SIGN_UPS_PER_HOUR=0 RATE_LIMIT_UPLOADS_PER_HOUR=0
        for setting in "$@"; do export "${setting?}"; done
        exec "${SELFIE_BIN:-.build/debug/selfie}" serve --migrate >> "$log" 2>&1
    ) &
    server=$!
    for _ in $(seq 1 100); do
        curl -fs "$base/healthz" >/dev/null && return 0
        sleep 0.1
    done
    echo "selfie did not start; its log:" >&2
    cat "$log" >&2
    return 1
}

# start_smtp_sink NAME: a real SMTP server (scripts/smtp_sink.py: STARTTLS with a fresh
# self-signed certificate, AUTH required) that keeps every message under .build/NAME-smtp; sets
# $smtp (pid), $smtp_port, $smtp_messages and the settings that point Selfie at it: "${smtp_settings[@]}".
start_smtp_sink() {
    local dir=.build/$1-smtp
    rm -rf "$dir"
    mkdir -p "$dir/messages"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" \
        -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost 2> "$dir/log"
    python3 scripts/smtp_sink.py --detached --out "$dir/messages" --tls starttls --cert "$dir/cert.pem" --key "$dir/key.pem" \
        --user selfie-sink --password sink-password >> "$dir/log" 2>&1 < /dev/null &
    smtp=$!
    smtp_messages=$dir/messages
    for _ in $(seq 1 100); do
        if [ -s "$smtp_messages/ready.json" ]; then
            local port
            port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$smtp_messages/ready.json")
            smtp_port=$port
            smtp_settings=(MAIL_TRANSPORT=smtp SMTP_URL="smtp://selfie-sink:sink-password@localhost:$port"
                SMTP_CA_FILE="$PWD/$dir/cert.pem" MAIL_FROM="Selfie <selfie@example.com>")
            return 0
        fi
        sleep 0.1
    done
    echo "the SMTP sink did not start; its log:" >&2
    cat "$dir/log" >&2
    return 1
}

# start_fake_providers: the stand-in identity providers (an OpenID Connect issuer, Facebook's
# Graph API, Twitter) on a free port; sets $fake (pid) and $fake_base. Selfie's settings for them:
# "${fake_provider_settings[@]}".
start_fake_providers() {
    local port
    port=$(free_port)
    fake_base="http://127.0.0.1:$port"
    mkdir -p .build/fake-providers
    .build/debug/selfie-fake-providers "$port" selfie-test fake-client-secret >> .build/fake-providers/log 2>&1 &
    fake=$!
    fake_provider_settings=(GOOGLE_CLIENT_IDS=selfie-test GOOGLE_CLIENT_SECRET=fake-client-secret GOOGLE_ISSUER="$fake_base/oidc"
        FACEBOOK_APP_ID=selfie-test FACEBOOK_APP_SECRET=fake-client-secret FACEBOOK_GRAPH_URL="$fake_base/facebook"
        TWITTER_CONSUMER_KEY=selfie-test TWITTER_CONSUMER_SECRET=fake-client-secret TWITTER_API_URL="$fake_base/twitter/1.1")
    for _ in $(seq 1 100); do
        curl -fs "$fake_base/oidc/.well-known/openid-configuration" >/dev/null && return 0
        sleep 0.1
    done
    echo "the fake providers did not start; their log:" >&2
    cat .build/fake-providers/log >&2
    return 1
}

# aescrypt PLAINTEXT: the password as the iOS app sends it (AES-256-CBC, SHA-256 of the app key).
aescrypt() {
    printf '%s' "$1" | openssl enc -aes-256-cbc -K "$(printf '%s' "$API_AUTH_PASSWORD" | sha256sum | cut -d' ' -f1)" \
        -iv 00000000000000000000000000000000 | base64 -w0
}

# api_token EMAIL PASSWORD: signs the user up through the API and prints a fresh token.
api_token() {
    local encrypted
    encrypted=$(aescrypt "$2")
    curl -fs -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
        -d "{\"full_name\":\"Script User\",\"email\":\"$1\",\"password\":\"$encrypted\"}" "$base/api/signup" >/dev/null
    curl -fs -u "$API_AUTH_NAME:$API_AUTH_PASSWORD" -H 'Content-Type: application/json' \
        -d "{\"email\":\"$1\",\"password\":\"$encrypted\"}" "$base/api/signin" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["api_authtoken"])'
}

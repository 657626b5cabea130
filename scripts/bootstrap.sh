#!/usr/bin/env bash
# Brings a Debian 12 machine (as root) to the point where Selfie can build, migrate and run:
# system packages, a running local PostgreSQL, the `selfie` role and databases, and a `.env`
# with generated development secrets. Safe to run again and again, from any state.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }

# --- 1. System packages (only what is missing; apt-get update only when needed) -------------
. scripts/lib/apt.sh
# shellcheck disable=SC2086  # EXTRA_APT_PACKAGES is a space-separated list
install_missing postgresql libmagic-dev libvips-dev pkg-config openssl ca-certificates curl ${EXTRA_APT_PACKAGES:-}

# --- 2. A running PostgreSQL cluster -------------------------------------------------------
if ! pg_lsclusters -h | grep -q .; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -1)
    log "creating PostgreSQL $version cluster"
    pg_createcluster "$version" main
fi
read -r pg_version pg_cluster pg_port pg_status _ < <(pg_lsclusters -h | head -1)
if [ "$pg_status" != "online" ]; then
    log "starting PostgreSQL $pg_version/$pg_cluster on port $pg_port"
    pg_ctlcluster "$pg_version" "$pg_cluster" start
fi
for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p "$pg_port" && break
    sleep 1
done
pg_isready -q -h 127.0.0.1 -p "$pg_port" || { echo "PostgreSQL did not become ready on port $pg_port" >&2; exit 1; }

# --- 3. Development secrets in .env, generated once ----------------------------------------
. scripts/lib/secrets.sh
random_hex() { openssl rand -hex "$1"; }
ensure_private_file .env
ensure_env() { # NAME VALUE: append NAME=VALUE unless .env already sets NAME
    grep -q "^$1=" .env || printf '%s=%s\n' "$1" "$2" >> .env
}
# The local role's password is one per machine (not per checkout), so several checkouts, CI's
# fresh clone among them, never reset it under each other.
machine_dir="${XDG_CONFIG_HOME:-$HOME/.config}/selfie"
mkdir -p -m 700 "$machine_dir"
ensure_secret_file "$machine_dir/database-password" random_hex 16
db_password=$(cat "$machine_dir/database-password")
local_url() { printf 'postgres://selfie:%s@127.0.0.1:%s/%s' "$db_password" "$pg_port" "$1"; }
# Local database URLs are rewritten if they point at this machine's selfie role; a URL to any
# other server is the developer's choice and left alone.
for pair in "DATABASE_URL selfie" "TEST_DATABASE_URL postgres"; do
    set -- $pair
    if grep -q "^$1=postgres://selfie:[^@]*@127.0.0.1:" .env; then
        sed -i "/^$1=/d" .env
    fi
    ensure_env "$1" "$(local_url "$2")"
done
sed -i '/^DATABASE_PASSWORD=/d' .env
ensure_env SECRET_KEY "$(random_hex 32)"
ensure_env API_AUTH_NAME "selfie-ios"
ensure_env API_AUTH_PASSWORD "$(random_hex 16)"

# --- 4. Role and database (password kept in step with .env) --------------------------------
psql_admin() { runuser -u postgres -- psql -p "$pg_port" -v ON_ERROR_STOP=1 -qtA "$@"; }
if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = 'selfie'")" != "1" ]; then
    log "creating role selfie"
    psql_admin -c "CREATE ROLE selfie LOGIN CREATEDB"
fi
# The password goes in on stdin (printf is a shell builtin): never on a command line.
printf "ALTER ROLE selfie WITH LOGIN CREATEDB PASSWORD '%s';\n" "$db_password" | psql_admin
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = 'selfie'")" != "1" ]; then
    log "creating database selfie"
    psql_admin -c "CREATE DATABASE selfie OWNER selfie"
fi
log "PostgreSQL ready; secrets in .env"

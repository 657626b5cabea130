#!/usr/bin/env bash
# Entrypoint of the postgres:15 image (deploy/images/postgres): on the first start, creates the
# cluster in $PGDATA with the POSTGRES_USER superuser (password POSTGRES_PASSWORD) and the
# POSTGRES_DB database, then runs the server as the postgres user on every interface. With
# POSTGRES_APP_USER (and POSTGRES_APP_PASSWORD) the database belongs to that role instead: it can
# log in and owns its database, but is no superuser (what the application connects as).
set -euo pipefail

POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}

# Any other command (bash, psql …) runs as given.
if [ "${1:-}" != postgres ]; then
    exec "$@"
fi

# As root: own the data folder (a fresh volume belongs to root), then run again as postgres.
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "postgres: POSTGRES_PASSWORD must be set for the first start (it protects every TCP login)" >&2
        exit 1
    fi
    # The password reaches initdb through a file descriptor, never a command line.
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 > /dev/null
    {
        echo "listen_addresses = '*'"
        echo "password_encryption = 'scram-sha-256'"
    } >> "$PGDATA/postgresql.conf"
    # Every TCP client (the compose network) must prove the password.
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    owner=${POSTGRES_APP_USER:-$POSTGRES_USER}
    if [ "$POSTGRES_DB" != postgres ] || [ "$owner" != "$POSTGRES_USER" ]; then
        # A set-up server on the socket only: nothing outside can reach it half-initialised.
        pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start > /dev/null
        if [ "$owner" != "$POSTGRES_USER" ]; then
            if [ -z "${POSTGRES_APP_PASSWORD:-}" ]; then
                echo "postgres: POSTGRES_APP_PASSWORD must be set with POSTGRES_APP_USER" >&2
                exit 1
            fi
            # The password through a psql variable read from stdin, never a command line.
            psql -v ON_ERROR_STOP=1 -q --username "$POSTGRES_USER" --dbname postgres --set role="$owner" \
                --set password="$POSTGRES_APP_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
SQL
        fi
        psql -v ON_ERROR_STOP=1 -q --username "$POSTGRES_USER" --dbname postgres \
            --set db="$POSTGRES_DB" --set owner="$owner" <<'SQL'
CREATE DATABASE :"db" OWNER :"owner";
SQL
        pg_ctl -D "$PGDATA" -m fast -w stop > /dev/null
    fi
    echo "postgres: created the cluster, superuser $POSTGRES_USER and database $POSTGRES_DB owned by $owner"
fi

exec "$@"

# Selfie's container image: a release build of the `selfie` command on Debian 12 slim, run as the
# unprivileged user `selfie`, `selfie serve --migrate` by default.
#
#   bash scripts/container-base-images.sh          # once: the FROM images (no registry is reachable here)
#   DOCKER_BUILDKIT=1 docker build -t selfie:local .
#   docker-compose up -d                           # with PostgreSQL and an S3 store: compose.yaml
#
# Settings come from the environment (README "Configuration"). CMD is the whole command line, so
# `docker run … selfie:local selfie migrate` (or `selfie admin create …`, or `bash`) runs in the
# same place with the same files. `make container-check` builds it and tries it end to end.

# --- Build: the Swift toolchain plus the C libraries' headers --------------------------------
FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmagic-dev libvips-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The dependencies first, in a layer of their own: it stays cached until the manifest changes.
# (Package.resolved is not committed; the glob copies it when the build context has one.)
COPY Package.swift Package.resolve[d] ./
RUN swift package resolve
# Tests/ only because the manifest names the test targets' folders: .dockerignore sends them
# empty (SwiftPM warns about that), so a change to a test does not rebuild the image.
COPY Sources ./Sources
COPY Tests ./Tests
# The Swift runtime and Foundation are linked in, so the runtime image needs no toolchain. Not
# scripts/release-build.sh's code layout (docs/ARCHITECTURE.md, "Release builds lay the code out by
# use"): that was made from, and measured on, the build that links them dynamically.
RUN swift build -c release --static-swift-stdlib --product selfie \
 && swift build -c release --static-swift-stdlib --product selfie-image-worker \
 && install -D -m 755 .build/release/selfie /out/selfie \
 && install -D -m 755 .build/release/selfie-image-worker /out/selfie-image-worker \
 && strip /out/selfie /out/selfie-image-worker

# --- Runtime: the C libraries Selfie links (libmagic, libvips), CA certificates, curl, pg_dump ---
FROM debian:bookworm-slim
# curl is the health check's client; postgresql-client-15's pg_dump and pg_restore are what
# `selfie backup` and `selfie restore` run (the same major version as compose's PostgreSQL).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmagic1 libvips42 ca-certificates curl postgresql-client-15 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /app --shell /usr/sbin/nologin selfie \
 && install -d -o selfie -g selfie /app/data
# The server starts the image worker from its own folder (IMAGE_WORKER_PATH to change that).
COPY --from=build /out/selfie /out/selfie-image-worker /usr/local/bin/
# The server reads these relative to its working directory (ResourcePaths in Sources/App). They
# stay owned by root: the server only reads them. Only /app/data (BLOB_STORE=fs) is writable.
WORKDIR /app
COPY Templates ./Templates
COPY Locales ./Locales
COPY Public ./Public
COPY migrations ./migrations
COPY openapi.yaml ./

USER selfie
ENV HOST=0.0.0.0 \
    PORT=8080 \
    LOG_LEVEL=info
EXPOSE 8080
# /livez: 200 while the process runs (restart it when not). Not /readyz or /healthz: those ask
# PostgreSQL too, and a database outage should give 503s, not a restarted server.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${PORT:-8080}/livez" || exit 1
CMD ["selfie", "serve", "--migrate"]

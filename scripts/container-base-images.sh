#!/usr/bin/env bash
# Builds the images that Dockerfile and compose.yaml start FROM, each only when it is missing
# locally. No image registry is reachable from these machines, so they are made here instead of
# pulled, under the names the official images have:
#   debian:bookworm-slim  debootstrap (minbase) from the Debian mirror apt uses, then `docker import`
#   swift:6.3-bookworm    that Debian plus this machine's Swift toolchain and SwiftPM package mirror
#   postgres:15           deploy/images/postgres (PostgreSQL 15, POSTGRES_USER/PASSWORD/DB honoured)
#   selfie-s3:local       deploy/images/s3 (nanio, a strict SigV4 S3 server, and s3ctl.py)
# Run as root with a running Docker engine (scripts/container-check.sh does both).
# FORCE=1 rebuilds every image even when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }
# Debian's client: it talks to any engine, and its `docker build` knows BuildKit.
docker() { /usr/bin/docker "$@"; }
missing() { [ "${FORCE:-0}" = 1 ] || ! docker image inspect "$1" >/dev/null 2>&1; }
build_image() { # TAG CONTEXT: the build's output is shown only when it fails
    docker build -t "$1" "$2" > "$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; echo "building $1 failed" >&2; exit 1; }
}

work=$(mktemp -d /tmp/selfie-base-images.XXXXXX)
builder_container=""
cleanup() {
    [ -z "$builder_container" ] || docker rm -f "$builder_container" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# --- The Debian mirror apt uses on this machine (deb822 .sources or one-line .list files) ------
apt_uris() {
    {
        grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | cut -d: -f2-
        grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
            grep -oE '(https?|file)://[^ ]+'
    } | tr ' ' '\n' | sed '/^$/d'
}
debian_mirror=$(apt_uris | grep -E '/debian/?$' | head -1 || true)
debian_mirror=${debian_mirror:-http://deb.debian.org/debian}
security_mirror=$(apt_uris | grep -E '/debian-security/?$' | head -1 || true)
security_mirror=${security_mirror:-http://deb.debian.org/debian-security}

# --- 1. debian:bookworm-slim ---------------------------------------------------------------------
if missing debian:bookworm-slim; then
    log "debian:bookworm-slim: debootstrap from $debian_mirror"
    rootfs=$work/rootfs
    debootstrap --variant=minbase bookworm "$rootfs" "$debian_mirror" > "$work/debootstrap.log" 2>&1 ||
        { tail -30 "$work/debootstrap.log" >&2; echo "debootstrap failed" >&2; exit 1; }
    rm -f "$rootfs/etc/apt/sources.list"
    cat > "$rootfs/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $debian_mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    # What the official slim image does: later installs leave docs, man pages and translations
    # out, and apt keeps no package lists or .debs in the layers.
    cat > "$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
DPKG
    cat > "$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$rootfs"/usr/share/{man,info,locale,groff,lintian}/* "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/var/cache/apt/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/tmp/*
    : > "$rootfs/etc/hostname"
    tar -C "$rootfs" -c . | docker import \
        -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'CMD ["bash"]' - debian:bookworm-slim > /dev/null
    rm -rf "$rootfs"
fi

# --- 2. swift:6.3-bookworm: this machine's toolchain, trimmed, and its package mirror ---------
if missing swift:6.3-bookworm; then
    # The toolchain root is three levels above the real swift binary (ROOT/usr/bin/swift-driver).
    swift_root=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
    log "swift:6.3-bookworm: toolchain from $swift_root"
    # SwiftPM clones https://github.com/… ; the machine's git rewrites that to a local mirror
    # ("url.<mirror>.insteadOf https://github.com/"). The image gets the same mirror at the same
    # path and the same rules, so `swift build` resolves packages offline inside a build.
    insteadof_rules=$(git config --system --get-regexp '^url\..*\.insteadof$' || true)
    package_mirror=$(printf '%s\n' "$insteadof_rules" | sed -n 's/^url\.\(.*\)\.insteadof .*/\1/p' | head -1)
    mirror_mount=()
    if [ -n "$package_mirror" ] && [ -d "$package_mirror" ]; then
        mirror_mount=(-v "$package_mirror:/mnt/packages:ro")
    fi
    printf '%s\n' "$insteadof_rules" > "$work/insteadof"
    builder_container=selfie-swift-image-$$
    # The toolchain's runtime needs (as in the official image), then the toolchain without the
    # debugger, editor and documentation tools and the embedded stdlib (3.3 GB → 1.8 GB).
    docker run --name "$builder_container" -v "$swift_root:/mnt/swift:ro" "${mirror_mount[@]}" \
        -v "$work/insteadof:/mnt/insteadof:ro" -e PACKAGE_MIRROR="$package_mirror" \
        debian:bookworm-slim bash -euo pipefail -c '
            export DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends binutils git ca-certificates libc6-dev \
                libcurl4-openssl-dev libedit2 libgcc-12-dev libncurses6 libpython3.11 libsqlite3-0 \
                libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata unzip zlib1g-dev libicu72 > /dev/null
            rm -rf /var/lib/apt/lists/*
            mkdir -p /opt/swift
            tar -C /mnt/swift -c \
                --exclude="./usr/bin/lldb*" --exclude="./usr/lib/liblldb*" \
                --exclude=./usr/bin/sourcekit-lsp --exclude="./usr/lib/libsourcekitd*" \
                --exclude="./usr/lib/libSwiftSourceKit*" --exclude=./usr/bin/clangd \
                --exclude=./usr/bin/docc --exclude=./usr/share/docc --exclude=./usr/bin/swift-format \
                --exclude=./usr/bin/wasmkit --exclude=./usr/lib/swift/embedded . | tar -C /opt/swift -x
            if [ -d /mnt/packages ]; then
                mkdir -p "$PACKAGE_MIRROR"
                cp -a /mnt/packages/. "$PACKAGE_MIRROR"
                while read -r key value; do
                    [ -n "$key" ] && git config --system --add "$key" "$value"
                done < /mnt/insteadof
            fi
            /opt/swift/usr/bin/swift --version'
    docker commit \
        -c 'ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'CMD ["bash"]' "$builder_container" swift:6.3-bookworm > /dev/null
    docker rm "$builder_container" > /dev/null
    builder_container=""
fi

# --- 3. postgres:15 --------------------------------------------------------------------------
if missing postgres:15; then
    log "postgres:15 from deploy/images/postgres"
    build_image postgres:15 deploy/images/postgres
fi

# --- 4. selfie-s3:local (nanio) ----------------------------------------------------------------
# The wheels are fetched here, with this machine's pip and its configured index, for Debian 12's
# Python (3.11, x86_64); the build installs them with no network, so it needs no trust in the
# machine's index or proxy set up inside the image.
if missing selfie-s3:local; then
    log "selfie-s3:local from deploy/images/s3 (nanio 0.1.7)"
    context=$work/s3
    cp -r deploy/images/s3 "$context"
    python3 -m pip download -q --disable-pip-version-check nanio==0.1.7 --only-binary=:all: \
        --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$context/wheels"
    build_image selfie-s3:local "$context"
fi

log "base images: $(docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' |
    grep -E '^(debian:bookworm-slim|swift:6.3-bookworm|postgres:15|selfie-s3:local) ' | tr '\n' ',' | sed 's/,$//; s/,/, /g')"

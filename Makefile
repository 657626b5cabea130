# The developer interface. Every target is safe to run again, from any state.
SHELL := /bin/bash
.DEFAULT_GOAL := help
SWIFT_BUILD_FLAGS ?=

.PHONY: help setup build release migrate run test e2e schemathesis clean container-check multi-instance-check pgbouncer-check

help:
	@echo "make run    install what is missing, start PostgreSQL, migrate, serve on http://127.0.0.1:8080"
	@echo "make test   the same set-up plus test peers, then schemathesis, the browser suite and swift test"
	@echo "make migrate | build | release | setup | e2e | schemathesis | clean"
	@echo "make container-check | multi-instance-check | pgbouncer-check   (not part of make test)"

## setup: system packages, local PostgreSQL, role + database, generated .env
setup:
	@bash scripts/bootstrap.sh

build: setup
	swift build $(SWIFT_BUILD_FLAGS)

## release: .build/release/selfie and its image worker (scripts/release-build.sh)
release: setup
	bash scripts/release-build.sh $(SWIFT_BUILD_FLAGS)

migrate: build
	.build/debug/selfie migrate

run: migrate
	.build/debug/selfie serve

## test: the set-up plus test peers, then schemathesis on the live API, the headless-Chromium
## browser suite, the fault checks (PostgreSQL stopped under load, SIGTERM mid-upload), and
## the mail outbox with two instances (scripts/mail-check.sh), the restore drill (backup, wipe, restore; the filesystem
## and S3 on nanio: scripts/restore_drill.py), and the Swift test suite (against real PostgreSQL, nanio and moto)
test:
	@EXTRA_APT_PACKAGES="chromium chromium-driver strace libheif-examples libimage-exiftool-perl libjpeg-turbo-progs unzip openssl librsvg2-bin zbar-tools nginx" bash scripts/bootstrap.sh
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r scripts/requirements-test.txt
	swift build $(SWIFT_BUILD_FLAGS)
	bash scripts/secrets-check.sh
	bash scripts/schemathesis.sh
	bash scripts/e2e.sh
	bash scripts/fault-check.sh
	bash scripts/mail-check.sh
	@bash scripts/test-peers.sh start
	@set -a && . .build/test-peers/env && set +a && python3 scripts/restore_drill.py && python3 scripts/tus-check.py && swift test --disable-xctest; \
		status=$$?; bash scripts/test-peers.sh stop; exit $$status

## e2e: a real headless Chromium through sign-up, sign-in, account, password change, sign-out
e2e: build
	@EXTRA_APT_PACKAGES="chromium chromium-driver libheif-examples zbar-tools" bash scripts/bootstrap.sh
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r scripts/requirements-test.txt
	bash scripts/e2e.sh

schemathesis: build
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r scripts/requirements-test.txt
	bash scripts/schemathesis.sh

clean:
	rm -rf .build

## container-check: builds the container image (Dockerfile) and tries it end to end with compose.yaml
## (sign up, upload, the photo's S3 URL, non-root, healthy); prints image size, build and start-up
## times. Not part of `make test`: the release build inside Docker takes ~20 min on 2 cores.
container-check:
	bash scripts/container-check.sh

## multi-instance-check: two instances behind nginx on one PostgreSQL and one S3 peer: shared
## sessions, photos and lockout; a rolling restart under load; kill -9 under uploads
multi-instance-check: build
	bash scripts/multi-instance-check.sh

## pgbouncer-check: Selfie through PgBouncer in transaction mode (docs/SCALING.md)
pgbouncer-check: build
	bash scripts/pgbouncer-check.sh

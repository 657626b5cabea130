# The developer interface. Every target is safe to run again, from any state.
SHELL := /bin/bash
.DEFAULT_GOAL := help
SWIFT_BUILD_FLAGS ?=

.PHONY: help setup build migrate run test e2e clean

help:
	@echo "make run    install what is missing, start PostgreSQL, migrate, serve on http://127.0.0.1:8080"
	@echo "make test   the same set-up, then the whole test suite (swift test)"
	@echo "make migrate | build | setup | e2e | clean"

## setup: system packages, local PostgreSQL, role + database, generated .env
setup:
	@bash scripts/bootstrap.sh

build: setup
	swift build $(SWIFT_BUILD_FLAGS)

migrate: build
	.build/debug/selfie migrate

run: migrate
	.build/debug/selfie serve

## test: also starts the S3 test peers (nanio, moto) on loopback and stops them afterwards
test: setup
	@bash scripts/test-peers.sh start
	@set -a && . .build/test-peers/env && set +a && swift test --disable-xctest; \
		status=$$?; bash scripts/test-peers.sh stop; exit $$status

## e2e: a real headless Chromium through sign-up, sign-in, account, password change, sign-out
e2e: build
	@EXTRA_APT_PACKAGES="chromium chromium-driver" bash scripts/bootstrap.sh
	bash scripts/e2e.sh

clean:
	rm -rf .build

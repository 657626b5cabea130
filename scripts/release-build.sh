#!/usr/bin/env bash
# The release build, as `make release` and the benches make it: every function, Swift's and C's, in
# a section of its own, linked by lld; the server with deploy/code-layout.ld, which puts the
# functions a server runs first, in the order it runs them (scripts/code-layout.sh writes it), so
# the code a running server touches lies together and its RSS holds fewer pages of code it never
# runs. Builds the server and its image worker, or the products RELEASE_PRODUCTS names (one set of
# flags, so no product's build recompiles another's modules). CODE_LAYOUT=0 links the server
# without the layout. Other arguments go to `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld)
for product in ${RELEASE_PRODUCTS:-selfie selfie-image-worker}; do
    layout=()
    [ "$product" != selfie ] || [ "${CODE_LAYOUT:-1}" = 0 ] || layout=(-Xlinker "--script=$PWD/deploy/code-layout.ld")
    # SwiftPM relinks when an object changes, not when a linker flag or the layout does: the server
    # is always linked anew (about 20 s).
    [ "$product" != selfie ] || rm -f .build/release/selfie
    swift build "${flags[@]}" "${layout[@]}" "$@" --product "$product"
done

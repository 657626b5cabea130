#!/usr/bin/env bash
# The release build, as `make release` and the benches make it: every function, Swift's and C's, in
# a section of its own, linked by lld; the server with deploy/code-layout.ld, the functions a server
# runs first (docs/ARCHITECTURE.md, "Release builds lay the code out by use"). Builds the server and
# its image worker, or the products RELEASE_PRODUCTS names (one set of compiler flags, so that no
# product's build recompiles another's modules). CODE_LAYOUT=0 links the server without the layout.
# Other arguments go to `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld)
for product in ${RELEASE_PRODUCTS:-selfie selfie-image-worker}; do
    layout=()
    [ "$product" != selfie ] || [ "${CODE_LAYOUT:-1}" = 0 ] || layout=(-Xlinker "--script=$PWD/deploy/code-layout.ld")
    # SwiftPM does not relink when only the layout file has changed: the server is always linked
    # anew (about 20 s).
    [ "$product" != selfie ] || rm -f .build/release/selfie
    swift build "${flags[@]}" "${layout[@]}" "$@" --product "$product"
done

#!/usr/bin/env bash
# examples/go/run.sh: the Go host test. Builds the release static library (the default,
# 6-argument ABI that the cgo package links), writes a fixture with examples/c_fixture.rs, checks
# formatting and vets the package, then runs `go test` on it (prove_test.go) with cgo's default
# pointer checks on. Prints `go host: N passed, M failed` last (N, M: top-level tests) and exits
# non-zero on any failure. Installs Debian's golang-go only where `go` is missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v go >/dev/null; then
    apt-get update && apt-get install -y golang-go
fi
# The package pins Go memory for the library with runtime.Pinner (Go 1.21). Debian 12's
# golang-go is 1.19: say so plainly rather than fail on a missing symbol.
go_version=$(go env GOVERSION)
if ! printf '%s\n' go1.21 "$go_version" | sort -V -C; then
    echo "go host: $go_version is too old (runtime.Pinner needs Go 1.21 or newer)"
    exit 1
fi
echo "using $go_version"

cargo run --quiet --release --features bellpepper --example c_fixture -- "$tmp"
# After the fixture writer, whose build left a bellpepper-featured library in target/release.
cargo build --quiet --release --lib

cd examples/go
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
    echo "gofmt: not formatted: $unformatted"
    exit 1
fi
# go's build cache does not hash headers outside the package, so the header's hash goes into
# the C flags: a changed header recompiles the cgo code instead of reusing a stale layout.
export CGO_CFLAGS="-O2 -g -DGROTH16_C2_HEADER_SHA=$(sha256sum "$root/include/groth16_c2.h" | cut -c1-16)"
go vet ./...

status=0
GROTH16_C2_FIXTURE="$tmp" go test -count=1 -v ./... 2>&1 | tee "$tmp/go-test.log" || status=$?
passed=$(grep -c '^--- PASS' "$tmp/go-test.log" || true)
failed=$(grep -c '^--- FAIL' "$tmp/go-test.log" || true)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1 # go test failed before any test ran (a build error, a panic in TestMain)
fi
echo "go host: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]

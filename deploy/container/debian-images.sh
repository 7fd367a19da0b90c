#!/usr/bin/env bash
# Builds the compose stack's HAProxy, Redis and Prometheus images from Debian bookworm's
# packages, on the base of debian-base.sh, where no container registry is reachable. Prints
# the variables deploy/compose.yaml takes their names from, one a line (HAPROXY_IMAGE=...),
# for `export $(deploy/container/debian-images.sh)` or a `.env` file. Builds each time:
# podman's layer cache makes a build with nothing changed quick.
#   deploy/container/debian-images.sh
set -euo pipefail
P=(podman --runtime runc --cgroup-manager cgroupfs)
LIM=(--ulimit nofile=16384:16384 --ulimit nproc=4096:4096)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEBIAN=$("$HERE/debian-base.sh")
# The images copy nothing in: an empty build context.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/debian-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

for service in haproxy redis prometheus; do
  image=localhost/rollup-router-$service:bookworm
  "${P[@]}" build --network=host "${LIM[@]}" --build-arg "DEBIAN_IMAGE=$DEBIAN" \
    -f "$HERE/debian-images.Containerfile" --target "$service" -t "$image" "$WORK" >&2
  echo "${service^^}_IMAGE=$image"
done

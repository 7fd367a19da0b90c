#!/usr/bin/env bash
# The Debian bookworm base of every image built here without a container registry: a root
# filesystem from Debian's packages (mmdebstrap), imported into podman. node-base.sh puts Node
# on it for the router's Dockerfile; debian-images.sh puts HAProxy, Redis and Prometheus on it
# for the compose stack. Prints the image's name; reuses the image once built.
#   deploy/container/debian-base.sh
set -euo pipefail
P=(podman --runtime runc --cgroup-manager cgroupfs)
DEBIAN=localhost/debian:bookworm

if ! "${P[@]}" image exists "$DEBIAN"; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/debian-base.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  mmdebstrap --variant=minbase --include=ca-certificates bookworm "$WORK/rootfs.tar" \
    http://deb.debian.org/debian >"$WORK/mmdebstrap.log" 2>&1 || { tail -20 "$WORK/mmdebstrap.log" >&2; exit 1; }
  "${P[@]}" import "$WORK/rootfs.tar" "$DEBIAN" >/dev/null
fi
echo "$DEBIAN"

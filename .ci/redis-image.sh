#!/usr/bin/env bash
# Builds a Redis container image from this machine's redis-server, for the Testcontainers tests
# (dev.distlock.testcontainers in distlock-spring-boot-tests) on machines that reach no image registry.
# The image is a root file system holding the redis-server binary, the libraries ldd lists for it, a passwd/group
# line for its user and /tmp, made with `docker import` (no Dockerfile build, so no base image is pulled).
# Its command starts Redis like the official image does: listening on every interface without protected mode (the
# tests reach it through a published port), no persistence. With a registry, use redis:7 instead
# (DISTLOCK_TEST_REDIS_IMAGE=redis:7); this image is only a stand-in for it.
#
# Usage: .ci/redis-image.sh [tag]   (default: distlock/redis-local:latest; needs redis-server and a Docker engine)
set -euo pipefail

tag="${1:-distlock/redis-local:latest}"
redis_server="${DISTLOCK_REDIS_SERVER:-$(command -v redis-server || true)}"
if [ -z "$redis_server" ] || [ ! -x "$redis_server" ]; then
    echo "redis-image: no redis-server binary (install Debian's redis-server or set DISTLOCK_REDIS_SERVER)" >&2
    exit 1
fi
if ! docker info >/dev/null 2>&1; then
    echo "redis-image: no Docker engine answers (docker info failed)" >&2
    exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/etc" "$root/tmp" "$root/data"
chmod 1777 "$root/tmp"
cp -L "$redis_server" "$root/usr/bin/redis-server"
# Every shared library the binary loads, at the path ldd names (the dynamic loader, /lib64/ld-linux-*.so.2, too).
ldd "$redis_server" | grep -o '/[^ ]*' | sort -u | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
echo 'redis:x:999:999:redis:/data:/usr/sbin/nologin' >"$root/etc/passwd"
echo 'redis:x:999:' >"$root/etc/group"
chown 999:999 "$root/data"

tar -C "$root" -c . | docker import \
    --change 'WORKDIR /data' \
    --change 'USER redis' \
    --change 'EXPOSE 6379' \
    --change 'CMD ["/usr/bin/redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]' \
    - "$tag" >/dev/null
echo "redis-image: $tag from $("$redis_server" --version | cut -d' ' -f3) ($redis_server)"

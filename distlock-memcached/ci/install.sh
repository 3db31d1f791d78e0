#!/usr/bin/env bash
# The Memcached store's server for CI, run by .ci/run (which runs every */ci/install.sh it finds) with apt_install
# defined: distlock-memcached's tests start their own memcached processes from Debian's binary (MemcachedTestServer,
# free loopback ports, `-M`) and skip, saying so, without it. The system service the package may start on 11211 is
# not used.
set -uo pipefail

installed() { [ -n "${DISTLOCK_MEMCACHED_BIN:-}" ] || command -v memcached >/dev/null 2>&1; }

installed || apt_install memcached
if installed; then
    echo "memcached found ($( ("${DISTLOCK_MEMCACHED_BIN:-memcached}" -V 2>/dev/null || true) | head -1)): the Memcached tests run"
else
    echo "memcached could not be installed: the Memcached tests will be skipped"
fi

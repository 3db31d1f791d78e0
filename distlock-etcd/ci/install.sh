#!/usr/bin/env bash
# The etcd store's server for CI, run by .ci/run (which runs every */ci/install.sh it finds) with apt_install
# defined: distlock-etcd's tests start their own etcd processes from Debian's binary (EtcdTestCluster, free loopback
# ports) and skip, saying so, without it. No system etcd is started for them (where the package starts its service,
# that one on 2379 is not used).
set -uo pipefail

installed() { [ -n "${DISTLOCK_ETCD_BIN:-}" ] || command -v etcd >/dev/null 2>&1; }

installed || apt_install etcd-server
if installed; then
    echo "etcd found ($( ("${DISTLOCK_ETCD_BIN:-etcd}" --version 2>/dev/null || true) | head -1)): the etcd tests run"
else
    echo "etcd could not be installed: the etcd tests will be skipped"
fi

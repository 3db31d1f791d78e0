#!/usr/bin/env bash
# The JDBC store's server for CI, run by .ci/run (which runs every */ci/install.sh it finds) with apt_install
# defined: distlock-jdbc's PostgreSQL tests start their own server from Debian's binaries (PostgresTestServer, in a
# temporary directory, on a free port) and skip, saying so, without them. H2 needs nothing.
set -uo pipefail

installed() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }

installed || apt_install postgresql
if installed; then
    echo "PostgreSQL binaries found: the distlock-jdbc PostgreSQL tests run"
else
    echo "PostgreSQL could not be installed: the distlock-jdbc PostgreSQL tests will be skipped"
fi

# The store's contract suite (fixture "mariadb"), its MariaDB tests and the fencing tests run on MariaDB too,
# started the same way from Debian's mariadb-server (MariaDbTestServer), and skip, saying so, without it.
mariadb_installed() { [ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null 2>&1; }

mariadb_installed || apt_install mariadb-server
if mariadb_installed; then
    echo "MariaDB binaries found: the distlock-jdbc store and fencing tests run on MariaDB"
else
    echo "MariaDB could not be installed: the distlock-jdbc store and fencing tests skip MariaDB"
fi

#!/usr/bin/env bash
# The fault campaign's clock faults for CI, run by .ci/run (which runs every */ci/install.sh it finds) with
# apt_install defined: the campaign steps and drifts the wall clock of the Redis (standalone-aof), PostgreSQL and
# MariaDB servers with Debian's libfaketime (FakedClock), and leaves those faults out, saying so, without it.
set -uo pipefail

installed() { [ -r /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]; }

installed || apt_install faketime
if installed; then
    echo "libfaketime found: the campaign injects clock faults (CLOCK_STEP, CLOCK_DRIFT)"
else
    echo "libfaketime could not be installed: the campaign skips its clock faults"
fi

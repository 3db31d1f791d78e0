#!/usr/bin/env bash
# One-command flash-sale demo: several sample-app instances, many concurrent buyers, one product with stock 100.
#
#   sample-app/flash-sale.sh [--store redis|jdbc|zookeeper|etcd] [--instances 3] [--buyers 1000] [--concurrency 24]
#                            [--no-lock | --lock-only]
#
# Runs two rounds by default: first with distlock (no overselling), then the same instances' code started with
# distlock.enabled=false (overselling). --no-lock runs only the second round, --lock-only only the first.
# --store picks the lock store (distlock.store, default redis): jdbc keeps the locks in the shared H2 database,
# zookeeper on an in-process ZooKeeper server, etcd on a local etcd process (needs Debian's etcd-server, or an etcd
# binary named by --sample.etcd-binary in the instances' arguments); none of them starts a Redis.
# Needs only a JDK 17+, bash and curl. Builds the sample if needed, runs everything on 127.0.0.1 (free ports, its
# own embedded Redis or ZooKeeper and H2 database in a temporary directory) and stops everything it started.
set -euo pipefail

INSTANCES=3
BUYERS=1000
CONCURRENCY=24
ROUNDS="lock no-lock"
STORE=redis
while [ $# -gt 0 ]; do
    case "$1" in
        --store) STORE="${2:-}"; shift 2 ;;
        --instances) INSTANCES="$2"; shift 2 ;;
        --buyers) BUYERS="$2"; shift 2 ;;
        --concurrency) CONCURRENCY="$2"; shift 2 ;;
        --no-lock) ROUNDS="no-lock"; shift ;;
        --lock-only) ROUNDS="lock"; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done
case "$STORE" in redis|jdbc|zookeeper|etcd) ;; *) echo "--store must be redis, jdbc, zookeeper or etcd" >&2; exit 2 ;; esac
case "$INSTANCES" in ''|*[!0-9]*) echo "--instances must be a number" >&2; exit 2 ;; esac
if [ "$INSTANCES" -lt 1 ] || [ "$INSTANCES" -gt 8 ]; then echo "--instances must be 1..8" >&2; exit 2; fi

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
command -v java >/dev/null || { echo "java not found: install a JDK 17+" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl not found" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/distlock-flash-sale.XXXXXX")"
PIDS=""
PORTS=""

stop_instances() {
    # Newest first: the first instance owns the embedded Redis, so it goes last.
    local pid
    for pid in $(echo $PIDS | tr ' ' '\n' | sed '1!G;h;$!d'); do
        kill "$pid" 2>/dev/null || true
        local waited=0
        while kill -0 "$pid" 2>/dev/null && [ $waited -lt 150 ]; do sleep 0.1; waited=$((waited + 1)); done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=""
    PORTS=""
}

cleanup() {
    stop_instances
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

is_listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() { # sets FREE_PORT (not echoed: a subshell would lose the list of ports already handed out)
    local port
    while :; do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        case " $PORTS " in *" $port "*) continue ;; esac
        if ! is_listening "$port"; then PORTS="$PORTS $port"; FREE_PORT="$port"; return; fi
    done
}

build_if_needed() {
    local jar
    jar="$(ls "$HERE"/target/sample-app-*.jar 2>/dev/null | grep -v -- '-original' | head -1 || true)"
    if [ -z "$jar" ] || [ -n "$(find "$HERE/src/main" "$HERE/pom.xml" "$ROOT/pom.xml" \
            "$ROOT/distlock-spring-boot-autoconfigure/src/main" "$ROOT/distlock-spring-boot-starter/pom.xml" \
            "$ROOT/distlock-core/src/main" "$ROOT/distlock-redis/src/main" "$ROOT/distlock-jdbc/src/main" \
            "$ROOT/distlock-spring-boot-starter-jdbc/pom.xml" "$ROOT/distlock-zookeeper/src/main" \
            "$ROOT/distlock-spring-boot-starter-zookeeper/pom.xml" \
            "$ROOT/distlock-embedded-redis/src/main" -newer "$jar" -print 2>/dev/null | head -1)" ]; then
        echo "Building the sample app (./mvnw -pl sample-app -am package -Dmaven.test.skip=true) ..."
        (cd "$ROOT" && ./mvnw -B -q -pl sample-app -am package -Dmaven.test.skip=true) \
            || { echo "build failed" >&2; exit 1; }
        jar="$(ls "$HERE"/target/sample-app-*.jar | grep -v -- '-original' | head -1)"
    fi
    JAR="$jar"
}

wait_ready() { # port pid log
    local deadline=$((SECONDS + 180))
    until curl -fsS -o /dev/null "http://127.0.0.1:$1/actuator/health" 2>/dev/null; do
        if ! kill -0 "$2" 2>/dev/null; then
            echo "instance on port $1 exited; last lines of its log:" >&2; tail -30 "$3" >&2; exit 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "instance on port $1 not ready after 180 s; last lines of its log:" >&2; tail -30 "$3" >&2; exit 1
        fi
        sleep 0.5
    done
}

start_instances() { # distlock.enabled
    local enabled="$1" redis_port zk_port etcd_port i port log pid urls="" pending=""
    free_port; redis_port="$FREE_PORT"
    free_port; zk_port="$FREE_PORT"
    free_port; etcd_port="$FREE_PORT"
    for i in $(seq 1 "$INSTANCES"); do
        free_port; port="$FREE_PORT"
        log="$WORK/instance-$i-lock-$enabled.log"
        java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$JAR" \
            --server.port="$port" --spring.data.redis.port="$redis_port" --sample.data-dir="$WORK/data" \
            --distlock.store="$STORE" --distlock.zookeeper.connect-string="127.0.0.1:$zk_port" \
            --distlock.etcd.endpoints="http://127.0.0.1:$etcd_port" \
            --distlock.enabled="$enabled" --sample.daily-report.cron=- >"$log" 2>&1 &
        pid=$!
        PIDS="$PIDS $pid"
        urls="$urls,http://127.0.0.1:$port"
        if [ "$i" -eq 1 ]; then
            # The first instance starts the embedded Redis (store redis), ZooKeeper (store zookeeper) or a local
            # etcd (store etcd, from Debian's etcd-server) and serves
            # the H2 database; the others join it.
            wait_ready "$port" "$pid" "$log"
        else
            pending="$pending $port:$pid:$log"
        fi
    done
    local entry
    for entry in $pending; do
        wait_ready "${entry%%:*}" "$(echo "$entry" | cut -d: -f2)" "${entry#*:*:}"
    done
    URLS="${urls#,}"
}

run_round() { # lock|no-lock
    local enabled=true label="WITH distlock on $STORE (distlock.enabled=true, distlock.store=$STORE)"
    local extra="--fail-on-oversell"
    if [ "$1" = "no-lock" ]; then
        enabled=false; label="WITHOUT the lock (distlock.enabled=false)"; extra=""
    fi
    echo "Starting $INSTANCES instances with distlock.store=$STORE distlock.enabled=$enabled ..."
    start_instances "$enabled"
    echo "Instances ready: $URLS. Resetting product 1 to stock 100 and sending $BUYERS buyers ..."
    java "$HERE/flash-sale/FlashSaleClient.java" --urls "$URLS" --buyers "$BUYERS" --concurrency "$CONCURRENCY" \
        --product 1 --quantity 1 --stock 100 --max-seconds 120 --label "$label" $extra || RESULT=1
    stop_instances
}

build_if_needed
RESULT=0
for round in $ROUNDS; do
    run_round "$round"
done
echo
if [ "$RESULT" -ne 0 ]; then
    echo "The locked round OVERSOLD: that is a bug." >&2
fi
exit $RESULT

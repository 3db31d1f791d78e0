#!/usr/bin/env bash
# Follows the README's quick start as a new user would, against the distlock artifacts in the local Maven repository
# (run `./mvnw install` first), and checks that it ends where the README says:
#   1. a new Maven project: what start.spring.io generates for a Spring Boot application (the parent POM, Java 17,
#      the @SpringBootApplication class, the spring-boot-maven-plugin), plus EXACTLY the README's snippets, taken from
#      README.md by their markers: its <dependencyManagement>/<dependencies>, application.yml and every Java file it
#      shows. Nothing else is added: a README snippet this script does not know, or one it expects and the README
#      lacks, fails the run;
#   2. a Redis as the README says to get one without Docker: its `redis-server --port 6379 --save ''` with the
#      redis-server on the PATH (Debian's package), or else the README's route for a machine without a package
#      manager (the Redis 6.2 binary from the embedded-redis jar in the Maven repository);
#   3. the application started twice (java -jar of the jar `./mvnw spring-boot:run` would run; the second with the
#      README's --server.port argument), and the README's curl calls, comparing each answer with the JSON the README
#      shows after it (.../docs/ExpectedJson.java: same fields and values; fencing tokens and timer values only numbers).
# The README's ports (6379, 8080, 8081) are replaced by free ones: the machine may run a Redis or an application.
# The Maven repository is the one Maven uses: -Dmaven.repo.local from MAVEN_ARGS or MAVEN_OPTS, else ~/.m2/repository
# (for example: MAVEN_ARGS=-Dmaven.repo.local=/path/to/repo bash .ci/generated-app.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
README="$ROOT/README.md"
WORK="$(mktemp -d)"
APP="$WORK/demo"
PKG="$APP/src/main/java/com/example/demo"
mkdir -p "$PKG" "$APP/src/main/resources"
PIDS=()
cleanup() { # the processes this script started, by id: the instances, the Redis and the subshell that started it
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do kill "$child" 2>/dev/null || true; done
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT

# The code block after the line "<!-- <kind>: <name> -->" in the README, without its fences.
block() {
    awk -v marker="<!-- $1: $2 -->" '
        $0 == marker { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }
    ' "$README"
}
# What the README's snippet markers name, in order.
snippets() { sed -n 's/^<!-- snippet: \(.*\) -->$/\1/p' "$README"; }

repo="$(printf '%s %s\n' "${MAVEN_ARGS:-}" "${MAVEN_OPTS:-}" | grep -o -- '-Dmaven.repo.local=[^ ]*' | head -1 | cut -d= -f2- || true)"
repo="${repo:-$HOME/.m2/repository}"
echo "Maven repository: $repo"

# ---- 1. The project ------------------------------------------------------------------------------------------------
BOOT_VERSION="$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
dependencies="" yml="" java_files=0
while read -r ref; do
    file="${ref%%#*}"
    text="$(block snippet "$ref")"
    [ -n "$text" ] || { echo "README.md: the snippet $ref has no code block" >&2; exit 1; }
    case "$file" in
        */pom-dependencies.xml) dependencies="$text" ;;
        */application.yml) yml="$text" ;;
        *.java)
            name="$(basename "$file")"
            { echo "package com.example.demo;"; echo; printf '%s\n' "$text"; } > "$PKG/$name"
            java_files=$((java_files + 1)) ;;
        *) echo "README.md shows a snippet this script does not know where to put: $ref" >&2; exit 1 ;;
    esac
done < <(snippets)
[ -n "$dependencies" ] || { echo "README.md has no Maven dependencies snippet" >&2; exit 1; }
[ -n "$yml" ] || { echo "README.md has no application.yml snippet" >&2; exit 1; }
[ "$java_files" -ge 2 ] || { echo "README.md shows $java_files Java files, expected the service and its caller" >&2; exit 1; }

cat > "$APP/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
    <modelVersion>4.0.0</modelVersion>
    <parent>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-starter-parent</artifactId>
        <version>$BOOT_VERSION</version>
    </parent>
    <groupId>com.example</groupId>
    <artifactId>demo</artifactId>
    <version>0.0.1-SNAPSHOT</version>
    <properties>
        <java.version>17</java.version>
    </properties>
$dependencies
    <build>
        <plugins>
            <plugin>
                <groupId>org.springframework.boot</groupId>
                <artifactId>spring-boot-maven-plugin</artifactId>
            </plugin>
        </plugins>
    </build>
</project>
POM
printf '%s\n' "$yml" > "$APP/src/main/resources/application.yml"
cat > "$PKG/DemoApplication.java" <<'JAVA'
package com.example.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class DemoApplication {

    public static void main(String[] args) {
        SpringApplication.run(DemoApplication.class, args);
    }
}
JAVA

echo "Building a new application from the README's quick start in $APP (Spring Boot $BOOT_VERSION)"
(cd "$APP" && "$ROOT/mvnw" -B -q package)
JAR="$APP/target/demo-0.0.1-SNAPSHOT.jar"
ls "$JAR" >/dev/null

free_port() {
    java "$ROOT/.ci/FreePort.java"
}

# ---- 2. Redis, without Docker, as the README says ------------------------------------------------------------------
REDIS_PORT="$(free_port)"
if command -v redis-server >/dev/null 2>&1; then
    command="$(block run redis-without-docker)"
    echo "Redis as the README says without Docker ($(redis-server --version | cut -d' ' -f3)): $command"
    (cd "$WORK" && eval "${command//6379/$REDIS_PORT}") >"$WORK/redis.log" 2>&1 &
else
    command="$(block run redis-from-the-maven-repository)"
    command="${command//\~\/.m2\/repository/$repo}"
    echo "No redis-server on the PATH: the README's route without a package manager: $command"
    (cd "$WORK" && eval "${command//6379/$REDIS_PORT}") >"$WORK/redis.log" 2>&1 &
fi
PIDS+=("$!")
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null; then break; fi
    sleep 0.1
done
(exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null || { cat "$WORK/redis.log" >&2; echo "Redis did not start" >&2; exit 1; }

# ---- 3. Two instances and the README's calls -----------------------------------------------------------------------
PORT_8080="$(free_port)"
PORT_8081="$(free_port)"
start_instance() { # <port> <log> [README arguments...]
    local port="$1" log="$2"
    shift 2
    java -jar "$JAR" "$@" --server.port="$port" --spring.data.redis.port="$REDIS_PORT" >"$log" 2>&1 &
    PIDS+=("$!")
}
wait_for() { # <port> <log>
    for _ in $(seq 1 120); do
        if curl -s -o /dev/null "localhost:$1/actuator/health"; then return 0; fi
        sleep 0.5
    done
    tail -50 "$2" >&2
    echo "The application on port $1 did not start" >&2
    exit 1
}
# A README call with the README's ports replaced by this run's.
local_ports() { local c="${1//localhost:8080/localhost:$PORT_8080}"; printf '%s' "${c//localhost:8081/localhost:$PORT_8081}"; }

# Runs the calls of a README run block: each "curl ..." line, compared with the "# {...}" lines after it.
check_calls() { # <run block name>
    local calls="$1" line="" command="" expected actual
    expected="$WORK/expected" actual="$WORK/actual"
    flush() {
        [ -n "$command" ] || return 0
        echo "\$ $command"
        (eval "$(local_ports "$command")") > "$actual" # a subshell: its `wait` waits for its own calls only
        echo >> "$actual"
        local order=""
        case "$command" in *" & "*) order="--any-order" ;; esac
        java "$ROOT/distlock-spring-boot-tests/src/test/java/dev/distlock/docs/ExpectedJson.java" \
            "$expected" "$actual" $order
        command=""
    }
    while IFS= read -r line; do
        case "$line" in
            curl\ *) flush; command="$line"; : > "$expected" ;;
            "# "*) printf '%s\n' "${line#\# }" >> "$expected" ;;
            ./mvnw\ spring-boot:run*)
                flush
                args="${line#*-Dspring-boot.run.arguments=}"
                port="${args#--server.port=}"
                [ "$port" = 8081 ] || { echo "README.md starts an instance this script does not know: $line" >&2; exit 1; }
                echo "\$ $line   (here: java -jar, port $PORT_8081)"
                start_instance "$PORT_8081" "$WORK/app-8081.log"
                wait_for "$PORT_8081" "$WORK/app-8081.log" ;;
            "") ;;
            *) echo "README.md block $calls has a line this script does not know: $line" >&2; exit 1 ;;
        esac
    done < <(block run "$calls")
    flush
}

echo "Starting the application (port $PORT_8080 for the README's 8080, Redis on $REDIS_PORT)"
start_instance "$PORT_8080" "$WORK/app-8080.log"
wait_for "$PORT_8080" "$WORK/app-8080.log"
check_calls one-instance
check_calls two-instances
echo "The README's quick start builds, runs on two instances and answers as the README shows"

#!/usr/bin/env bash
# Builds a new Spring Boot application from the README's "Getting started" snippets, as a developer who has never
# seen the project would, against the distlock artifacts in the local Maven repository (run `./mvnw install` first),
# and runs it: its test starts the application on a random port with a real Redis (@DistlockTest), calls the
# locked method from many threads and reads the actuator endpoint and metric the README shows.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
APP="$(mktemp -d)/demo"
PKG="$APP/src/main/java/com/example/demo"
TEST="$APP/src/test/java/com/example/demo"
mkdir -p "$PKG" "$TEST" "$APP/src/main/resources"

# The code block after the line "<!-- snippet: <id> -->" in the README, without its fences.
snippet() {
    awk -v id="$1" '
        $0 == "<!-- snippet: " id " -->" { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }
    ' "$ROOT/README.md"
}
for id in getting-started-maven getting-started-yml getting-started-service; do
    [ -n "$(snippet "$id")" ] || { echo "README.md has no snippet $id" >&2; exit 1; }
done

BOOT_VERSION="$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
{
    cat <<POM
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
POM
    # The README's dependencies, then what a web application with actuator and tests adds.
    snippet getting-started-maven | sed '$d'
    cat <<POM
    <dependency>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
    <dependency>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-starter-actuator</artifactId>
    </dependency>
    <dependency>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-starter-test</artifactId>
        <scope>test</scope>
    </dependency>
    <dependency>
        <groupId>dev.distlock</groupId>
        <artifactId>distlock-test</artifactId>
        <scope>test</scope>
    </dependency>
</dependencies>
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
} > "$APP/pom.xml"

snippet getting-started-yml > "$APP/src/main/resources/application.yml"
{ echo "package com.example.demo;"; echo; snippet getting-started-service; } > "$PKG/StockService.java"
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
cat > "$TEST/DemoApplicationTests.java" <<'JAVA'
package com.example.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.test.DistlockTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DistlockTest
class DemoApplicationTests {

    @Autowired
    StockService stock;

    @Autowired
    LockService locks;

    @Value("${local.server.port}")
    int port;

    @Test
    void oneDeductionAtATime() throws Exception {
        List<Callable<Integer>> buyers = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            buyers.add(() -> stock.deduct(42, 1));
        }
        ExecutorService pool = Executors.newFixedThreadPool(12);
        int sold = 0;
        for (Future<Integer> buyer : pool.invokeAll(buyers)) {
            try {
                buyer.get();
                sold++;
            }
            catch (ExecutionException soldOut) {
                assertThat(soldOut.getCause()).hasMessageContaining("sold out");
            }
        }
        pool.shutdown();
        assertThat(sold).isEqualTo(100);
        // Every call took the lock "stock:42": the meter of the lock group "stock" counts 150 acquisitions.
        assertThat(get("/actuator/metrics/distlock.acquire?tag=lock:stock&tag=result:acquired"))
                .contains("\"value\":150.0");
    }

    @Test
    void theActuatorShowsTheLocks() throws Exception {
        try (LockHandle held = locks.lock("demo:7")) {
            assertThat(get("/actuator/distlock")).contains("\"demo:7\"");
        }
        assertThat(get("/actuator/metrics/distlock.acquire")).contains("\"COUNT\"");
    }

    private String get(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }
}
JAVA

echo "Building and testing a new application from the README snippets in $APP (Spring Boot $BOOT_VERSION)"
(cd "$APP" && "$ROOT/mvnw" -B -q verify)
ls "$APP"/target/demo-0.0.1-SNAPSHOT.jar >/dev/null
echo "The README's Getting started application builds, locks and shows its locks"

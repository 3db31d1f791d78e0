package dev.distlock.sample.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The load of the page's demos: POST requests spread round-robin over every live instance
 * ({@link InstanceRegistry}), counted by status. Bounded in time ({@link #MAX_RUN}, and {@link #REQUEST_TIMEOUT}
 * per request) and sent to loopback addresses only.
 */
@Component
public class DemoLoad {

    static final Duration MAX_RUN = Duration.ofSeconds(60);

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(DemoLoad.class);

    private final InstanceRegistry registry;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param registry the instances to send requests to
     */
    public DemoLoad(InstanceRegistry registry) {
        this.registry = registry;
    }

    /**
     * @return the live instances on loopback addresses
     * @throws IllegalStateException when there is none
     */
    List<Instance> targets() {
        List<Instance> targets = registry.live().stream().filter(DemoLoad::isLoopback).toList();
        if (targets.isEmpty()) {
            throw new IllegalStateException("No live sample instance has registered a loopback base URL yet");
        }
        return targets;
    }

    /**
     * @param targets the instances, taken in turn
     * @param requests how many to send
     * @param concurrency how many in flight at most
     * @param path the path and query of the i-th request
     * @return how many answered with each status ("io-error" for none), sorted
     */
    Map<String, Integer> post(List<Instance> targets, int requests, int concurrency, IntFunction<String> path) {
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            for (int i = 0; i < requests; i++) {
                URI uri = URI.create(targets.get(i % targets.size()).baseUrl() + path.apply(i));
                pool.execute(() -> answers.merge(send(uri), 1, Integer::sum));
            }
            pool.shutdown();
            if (!pool.awaitTermination(MAX_RUN.toSeconds(), TimeUnit.SECONDS)) {
                log.warn("Demo load stopped after {}: requests still waiting are not counted", MAX_RUN);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            pool.shutdownNow();
        }
        return new TreeMap<>(answers);
    }

    private String send(URI uri) {
        try {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            return String.valueOf(response.statusCode());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "io-error";
        }
        catch (java.io.IOException ex) {
            return "io-error";
        }
    }

    private static boolean isLoopback(Instance instance) {
        String host = URI.create(instance.baseUrl()).getHost();
        return "127.0.0.1".equals(host) || "localhost".equals(host) || "[::1]".equals(host);
    }
}

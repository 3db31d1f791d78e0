package dev.distlock.sample.demo;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * An instance of the sample app as it registered itself in the shared database.
 *
 * @param id random id chosen at start-up
 * @param baseUrl where its HTTP API answers, e.g. {@code http://127.0.0.1:8081}
 * @param pid its process id (instances started inside one JVM, as in the tests, share it)
 * @param lockEnabled whether it runs with {@code distlock.enabled=true}
 * @param startedAt when it registered, microseconds since the epoch
 * @param live whether it sent a heartbeat recently and has not stopped
 * @param leads whether it leads the order consumer's group ({@code sample.order-consumer.group}), as it last said
 */
public record Instance(String id, String baseUrl, long pid, boolean lockEnabled, long startedAt, boolean live,
        boolean leads) {

    /** @return a short name for a lane or a legend: the port, e.g. {@code :8081} (also in the JSON) */
    @JsonProperty("label")
    public String label() {
        int colon = baseUrl.lastIndexOf(':');
        return colon > "http://".length() ? baseUrl.substring(colon) : baseUrl;
    }
}

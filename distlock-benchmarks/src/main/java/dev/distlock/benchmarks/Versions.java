package dev.distlock.benchmarks;

import java.io.InputStream;
import java.util.Properties;

/** Finds the version of a library on the class path, for the report. */
final class Versions {

    private Versions() {
    }

    static String of(String groupId, String artifactId, Class<?> anyClass) {
        String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = anyClass.getResourceAsStream(resource)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty("version");
            }
        }
        catch (Exception ex) {
            // fall back to the manifest
        }
        String version = anyClass.getPackage().getImplementationVersion();
        return version == null ? "?" : version;
    }
}

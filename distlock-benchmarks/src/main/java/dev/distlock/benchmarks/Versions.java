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
        return version != null ? version : fromJarName(artifactId, anyClass);
    }

    /** The last resort, for jars with neither (jetcd's): {@code <artifactId>-<version>.jar}, as Maven names it. */
    private static String fromJarName(String artifactId, Class<?> anyClass) {
        try {
            String path = anyClass.getProtectionDomain().getCodeSource().getLocation().getPath();
            String file = path.substring(path.lastIndexOf('/') + 1);
            if (file.startsWith(artifactId + "-") && file.endsWith(".jar")) {
                return file.substring(artifactId.length() + 1, file.length() - ".jar".length());
            }
        }
        catch (RuntimeException ex) {
            // no code source: unknown
        }
        return "?";
    }
}

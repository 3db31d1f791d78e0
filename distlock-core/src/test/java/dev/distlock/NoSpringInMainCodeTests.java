package dev.distlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core is plain Java (DESIGN §1). The enforcer's bannedDependencies keeps Spring off its class path; this keeps
 * Spring names out of its sources too: a fully qualified name, a {@code Class.forName} string or a
 * {@code META-INF/spring*} resource would load Spring, or fail, only at run time.
 */
class NoSpringInMainCodeTests {

    @Test
    void noMainFileNamesSpring() throws IOException {
        // Surefire runs in the module's directory.
        Path main = Path.of("src", "main");
        assertThat(main.resolve(Path.of("java", "dev", "distlock", "LockService.java"))).isRegularFile();
        List<Path> naming;
        try (Stream<Path> files = Files.walk(main)) {
            naming = files.filter(Files::isRegularFile).filter(NoSpringInMainCodeTests::namesSpring).toList();
        }
        assertThat(naming).as("main files of distlock-core naming org.springframework").isEmpty();
    }

    private static boolean namesSpring(Path file) {
        try {
            return file.toString().contains("spring") || Files.readString(file).contains("org.springframework");
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot read " + file, ex);
        }
    }
}

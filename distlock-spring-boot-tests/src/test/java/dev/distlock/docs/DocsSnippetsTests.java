package dev.distlock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every code block of the documentation marked {@code <!-- snippet: path#tag -->} is exactly the tagged region of
 * that file, which the build compiles (Java) or a test loads (XML, YAML): so the README's quick start and the
 * migration guides show code that compiles against this version, and a change to either side fails here.
 */
class DocsSnippetsTests {

    @Test
    void everyMarkedSnippetIsItsTaggedRegion() {
        List<String> differ = new ArrayList<>();
        int checked = 0;
        for (Path file : DocFiles.markdown()) {
            for (DocFiles.Block block : DocFiles.blocks(file)) {
                if (!block.kind().equals("snippet")) {
                    continue;
                }
                checked++;
                String region;
                try {
                    region = DocFiles.region(block.name());
                }
                catch (IllegalStateException ex) {
                    differ.add(block + ": " + ex.getMessage());
                    continue;
                }
                if (!region.equals(block.text())) {
                    differ.add(block + " differs from " + block.name() + ":\n--- in the Markdown\n" + block.text()
                            + "--- in the source\n" + region);
                }
            }
        }
        assertThat(differ).as("snippets that differ from their source (copy the source into the Markdown)").isEmpty();
        assertThat(checked).as("marked snippets").isGreaterThanOrEqualTo(4 + 4);
    }

    @Test
    void theReadmeIsAFrontDoorThatOpensWithTheSampleAndTheTestCommand() {
        String readme = DocFiles.read(Path.of("README.md"));
        assertThat(readme.lines().count()).as("README.md lines (DESIGN: at most 300)").isLessThanOrEqualTo(300);
        List<String> firstBlocks = readme.lines().limit(25).filter(line -> line.startsWith("./mvnw")).toList();
        assertThat(firstBlocks).containsExactly("./mvnw -B -pl sample-app -am spring-boot:run", "./mvnw -B verify");
        assertThat(DocFiles.read(Path.of(".ci/run")).lines()).as(".ci/run runs the README's test command")
                .contains("./mvnw -B verify");
    }

    @Test
    void theReadmeQuickStartShowsTheCompiledSources() {
        List<String> named = DocFiles.blocks(Path.of("README.md")).stream()
                .filter(block -> block.kind().equals("snippet")).map(DocFiles.Block::name).toList();
        assertThat(named).containsExactly(
                "distlock-spring-boot-tests/src/test/resources/docs/quickstart/pom-dependencies.xml",
                "distlock-spring-boot-tests/src/test/resources/docs/quickstart/application.yml",
                "distlock-spring-boot-tests/src/test/java/dev/distlock/docs/quickstart/StockService.java#service",
                "distlock-spring-boot-tests/src/test/java/dev/distlock/docs/quickstart/StockController.java#controller");
    }
}

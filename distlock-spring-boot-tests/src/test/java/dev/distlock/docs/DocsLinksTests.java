package dev.distlock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link and anchor of the documentation resolves: the file or directory exists, and an anchor names a
 * heading of the target Markdown file, computed as GitHub computes heading ids. Links inside code are not links.
 */
class DocsLinksTests {

    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        Path root = DocFiles.project();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : DocFiles.markdown()) {
            String[] lines = prose(DocFiles.read(file)).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher m = LINK.matcher(lines[i]);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
                        continue; // https:, mailto: ...
                    }
                    checked++;
                    String problem = problem(root, file, target);
                    if (problem != null) {
                        broken.add(file + ":" + (i + 1) + ": " + target + " (" + problem + ")");
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(100);
    }

    @Test
    void anchorsAreComputedAsGitHubDoes() {
        assertThat(anchors("# `@DistributedLock`\n## 1. Dependencies\n## Always set `name`\n## A, b: c (d) 02:50\n"
                + "## Kotlin coroutines\n## Kotlin coroutines\n```\n# not a heading\n```\n## [Link](x.md) and *em*\n"))
                .containsExactlyInAnyOrder("distributedlock", "1-dependencies", "always-set-name", "a-b-c-d-0250",
                        "kotlin-coroutines", "kotlin-coroutines-1", "link-and-em");
    }

    private static String problem(Path root, Path file, String target) {
        int hash = target.indexOf('#');
        String path = (hash < 0) ? target : target.substring(0, hash);
        String anchor = (hash < 0) ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : root.relativize(root.resolve(file).getParent().resolve(path).normalize());
        if (resolved.startsWith("..") || !Files.exists(root.resolve(resolved))) {
            return "no such file: " + resolved;
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!resolved.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown: " + resolved;
        }
        if (!anchors(DocFiles.read(resolved)).contains(anchor)) {
            return "no heading with the anchor #" + anchor + " in " + resolved;
        }
        return null;
    }

    /** The heading ids GitHub gives a Markdown file's headings. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : withoutFencedCode(markdown).split("\n")) {
            Matcher m = HEADING.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String text = m.group(1)
                    .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link shows its text
                    .replaceAll("<[^>]+>", "") // HTML tags
                    .replaceAll("[*`]", ""); // emphasis and code marks
            String id = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{Mn} _-]", "").replace(' ', '-');
            int count = seen.merge(id, 1, Integer::sum);
            anchors.add(count == 1 ? id : id + "-" + (count - 1));
        }
        return anchors;
    }

    /** The text with fenced code blocks and inline code blanked (kept as empty lines, so line numbers hold). */
    private static String prose(String markdown) {
        return withoutFencedCode(markdown).replaceAll("``[^`]+``|`[^`\\n]+`", "``");
    }

    private static String withoutFencedCode(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                out.append('\n');
                continue;
            }
            out.append(fenced ? "" : line).append('\n');
        }
        return out.toString();
    }
}

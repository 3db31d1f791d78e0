package dev.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code blocks of the project's {@code README.md} that are marked with {@code <!-- snippet: id -->} on the line
 * before their opening fence. Tests read them from here, so a snippet that no longer compiles, binds or runs fails
 * the build; {@code .ci/generated-app.sh} reads the same markers to build an application from them.
 */
final class ReadmeSnippets {

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- snippet: ([\\w-]+) -->\\R```\\w*\\R(.*?)^```", Pattern.DOTALL | Pattern.MULTILINE);

    private ReadmeSnippets() {
    }

    /**
     * @param id the snippet's id
     * @return its text, ending with a line break
     * @throws IllegalStateException when the README has no snippet, or more than one, with that id
     */
    static String get(String id) {
        Matcher m = BLOCK.matcher(readme());
        String found = null;
        while (m.find()) {
            if (m.group(1).equals(id)) {
                if (found != null) {
                    throw new IllegalStateException("README.md has two snippets '" + id + "'");
                }
                found = m.group(2);
            }
        }
        if (found == null) {
            throw new IllegalStateException("README.md has no snippet '" + id + "' (<!-- snippet: " + id + " -->)");
        }
        return found;
    }

    /** @return the README of the project, found from the module's directory (surefire's working directory) */
    static String readme() {
        return read(project().resolve("README.md"));
    }

    /** @return the project's root directory */
    static Path project() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("README.md not found above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /**
     * @param file a text file
     * @return its content with {@code \n} line breaks
     */
    static String read(Path file) {
        try {
            return Files.readString(file).replace("\r\n", "\n");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}

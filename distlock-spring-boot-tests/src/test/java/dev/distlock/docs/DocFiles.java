package dev.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's documentation as the tests see it: the Markdown files (README, CONTRIBUTING, CHANGELOG, the sample's
 * README and everything under {@code docs/}), and the code blocks in them that a marker line names:
 * {@code <!-- snippet: path[#tag] -->} (the block is the file, or its tagged region, see {@link #region}) and
 * {@code <!-- run: id -->} (calls whose output the block shows; {@code .ci/generated-app.sh} reads the same markers).
 */
final class DocFiles {

    /** A marker line, then a fenced block: group 1 the kind, 2 what it names, 3 the block's text. */
    private static final Pattern MARKED_BLOCK = Pattern.compile(
            "^<!-- (snippet|run): (\\S+) -->\\n```[\\w-]*\\n(.*?)^```$", Pattern.DOTALL | Pattern.MULTILINE);

    private DocFiles() {
    }

    /** @return the project's root directory, found from the module's directory (surefire's working directory) */
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

    /** @return every Markdown file of the documentation, relative to the project, sorted */
    static List<Path> markdown() {
        Path root = project();
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md"),
                Path.of("CHANGELOG.md"), Path.of("sample-app/README.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).map(root::relativize).sorted().forEach(files::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return files;
    }

    /**
     * @param file a text file, relative to the project or absolute
     * @return its content with {@code \n} line breaks
     */
    static String read(Path file) {
        try {
            return Files.readString(project().resolve(file)).replace("\r\n", "\n");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A marked code block of a Markdown file. */
    record Block(Path file, int line, String kind, String name, String text) {

        @Override
        public String toString() {
            return file + ":" + line + " (" + kind + ": " + name + ")";
        }
    }

    /**
     * @param file a Markdown file, relative to the project
     * @return its marked blocks, in order
     */
    static List<Block> blocks(Path file) {
        String text = read(file);
        List<Block> blocks = new ArrayList<>();
        Matcher m = MARKED_BLOCK.matcher(text);
        while (m.find()) {
            int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
            blocks.add(new Block(file, line, m.group(1), m.group(2), m.group(3)));
        }
        return blocks;
    }

    /**
     * @param file a Markdown file, relative to the project
     * @param kind {@code snippet} or {@code run}
     * @param name what the marker names
     * @return the text of the only block so marked
     * @throws IllegalStateException when there is none, or more than one
     */
    static String block(Path file, String kind, String name) {
        List<Block> found = blocks(file).stream().filter(b -> b.kind().equals(kind) && b.name().equals(name)).toList();
        if (found.size() != 1) {
            throw new IllegalStateException(file + " has " + found.size() + " blocks marked <!-- " + kind + ": " + name
                    + " -->, expected one");
        }
        return found.get(0).text();
    }

    /**
     * The part of a source file a snippet shows: with {@code #tag}, the lines between the lines containing
     * {@code tag::tag[]} and {@code end::tag[]} (comment syntax of the file's language around them; other tag lines
     * inside are left out); without, the whole file.
     *
     * @param reference {@code path} or {@code path#tag}, the path relative to the project
     * @return the region, ending with a line break
     * @throws IllegalStateException when the file or the tag does not exist
     */
    static String region(String reference) {
        int hash = reference.indexOf('#');
        Path path = Path.of(hash < 0 ? reference : reference.substring(0, hash));
        if (!Files.isRegularFile(project().resolve(path))) {
            throw new IllegalStateException("No file " + path + " (snippet " + reference + ")");
        }
        String text = read(path);
        if (hash < 0) {
            return text;
        }
        String tag = reference.substring(hash + 1);
        StringBuilder region = new StringBuilder();
        boolean inside = false;
        boolean seen = false;
        for (String line : text.split("\n", -1)) {
            if (line.contains("tag::" + tag + "[]")) {
                inside = true;
                seen = true;
            }
            else if (line.contains("end::" + tag + "[]")) {
                inside = false;
            }
            else if (inside && !line.matches(".*\\b(tag|end)::[\\w-]+\\[\\].*")) {
                region.append(line).append('\n');
            }
        }
        if (!seen) {
            throw new IllegalStateException("No tag::" + tag + "[] in " + path);
        }
        return dedent(region.toString());
    }

    private static String dedent(String text) {
        int indent = text.lines().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        text.lines().forEach(line -> out.append(line.length() >= indent ? line.substring(indent) : line.strip())
                .append('\n'));
        return out.toString();
    }
}

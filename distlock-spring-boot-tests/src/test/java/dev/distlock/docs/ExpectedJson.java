package dev.distlock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares the JSON a documented call returns with the output the documentation shows for it, as a reader would:
 * the same fields with the same values, except the values that differ on every run (fencing tokens, and timer
 * totals and maxima in a metric's measurements), which must only be numbers. Arrays match in any order (the actuator
 * lists tag values from a set). Plain JDK, with a small JSON parser of its own, so that {@code .ci/generated-app.sh}
 * runs this very file ({@code java ExpectedJson.java expected actual [--any-order]}) on the README's calls, and
 * {@code GettingStartedTests} calls {@link #mismatch} on the same calls.
 */
public final class ExpectedJson {

    private ExpectedJson() {
    }

    /**
     * Command line: two files of one JSON document per line; with {@code --any-order} the lines of the second may
     * come in any order (calls sent at the same moment). Exits 1 naming the first mismatch.
     *
     * @param args expected file, actual file, optionally {@code --any-order}
     * @throws IOException when a file cannot be read
     */
    public static void main(String[] args) throws IOException {
        List<String> expected = nonBlank(Files.readAllLines(Path.of(args[0])));
        List<String> actual = nonBlank(Files.readAllLines(Path.of(args[1])));
        String mismatch = mismatch(expected, actual, args.length > 2 && "--any-order".equals(args[2]));
        if (mismatch != null) {
            System.err.println(mismatch);
            System.exit(1);
        }
        System.out.println("as documented: " + String.join(" | ", actual));
    }

    /**
     * @param expected the documented outputs, one JSON document each
     * @param actual what the calls answered
     * @param anyOrder whether the answers may come in another order
     * @return what differs, or {@code null} when the answers are as documented
     */
    public static String mismatch(List<String> expected, List<String> actual, boolean anyOrder) {
        if (expected.size() != actual.size()) {
            return "expected " + expected.size() + " answers " + expected + " but got " + actual.size() + ": " + actual;
        }
        List<String> left = new ArrayList<>(actual);
        for (int i = 0; i < expected.size(); i++) {
            Object documented = parse(expected.get(i));
            String found = null;
            String why = null;
            for (String candidate : anyOrder ? left : List.of(left.get(0))) {
                why = difference("$", documented, parseOrText(candidate));
                if (why == null) {
                    found = candidate;
                    break;
                }
            }
            if (found == null) {
                return "documented " + expected.get(i) + "\nbut got    " + (anyOrder ? left : left.get(0)) + "\n(" + why + ")";
            }
            left.remove(found);
        }
        return null;
    }

    private static List<String> nonBlank(List<String> lines) {
        return lines.stream().filter(line -> !line.isBlank()).toList();
    }

    private static Object parseOrText(String text) {
        try {
            return parse(text);
        }
        catch (IllegalArgumentException notJson) {
            return text;
        }
    }

    private static String difference(String path, Object expected, Object actual) {
        if (expected instanceof Map<?, ?> fields) {
            if (!(actual instanceof Map<?, ?> got)) {
                return path + " is not an object";
            }
            if (!fields.keySet().equals(got.keySet())) {
                return path + " has the fields " + got.keySet() + ", documented " + fields.keySet();
            }
            for (Map.Entry<?, ?> field : fields.entrySet()) {
                Object value = field.getValue();
                Object answered = got.get(field.getKey());
                if (varies(fields, String.valueOf(field.getKey()))) {
                    if (!(answered instanceof Double)) {
                        return path + "." + field.getKey() + " is not a number";
                    }
                    continue;
                }
                String why = difference(path + "." + field.getKey(), value, answered);
                if (why != null) {
                    return why;
                }
            }
            return null;
        }
        if (expected instanceof List<?> elements) {
            if (!(actual instanceof List<?> got) || got.size() != elements.size()) {
                return path + " has not the " + elements.size() + " documented elements";
            }
            List<Object> left = new ArrayList<>(got);
            for (Object element : elements) {
                Object match = left.stream().filter(candidate -> difference(path, element, candidate) == null)
                        .findFirst().orElse(null);
                if (match == null) {
                    return path + " has no element like " + element;
                }
                left.remove(match);
            }
            return null;
        }
        return Objects.equals(expected, actual) ? null : path + " is " + actual + ", documented " + expected;
    }

    /** The values that differ on every run: fencing tokens, and a timer's total time and maximum. */
    private static boolean varies(Map<?, ?> object, String field) {
        return "fencingToken".equals(field)
                || ("value".equals(field) && object.containsKey("statistic") && !"COUNT".equals(object.get("statistic")));
    }

    /**
     * @param json one JSON document
     * @return maps, lists, strings, doubles, booleans and {@code null}
     * @throws IllegalArgumentException when it is not JSON
     */
    public static Object parse(String json) {
        Parser parser = new Parser(json);
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at < json.length()) {
            throw new IllegalArgumentException("Not JSON after position " + parser.at + ": " + json);
        }
        return value;
    }

    private static final class Parser {

        private final String text;

        private int at;

        Parser(String text) {
            this.text = text;
        }

        Object value() {
            skipSpace();
            if (at >= text.length()) {
                throw new IllegalArgumentException("Not JSON: " + text);
            }
            char c = text.charAt(at);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                default:
                    return literal();
            }
        }

        private Map<String, Object> object() {
            Map<String, Object> fields = new LinkedHashMap<>();
            at++;
            skipSpace();
            if (peek() == '}') {
                at++;
                return fields;
            }
            while (true) {
                skipSpace();
                String name = string();
                skipSpace();
                expect(':');
                fields.put(name, value());
                skipSpace();
                if (peek() == ',') {
                    at++;
                    continue;
                }
                expect('}');
                return fields;
            }
        }

        private List<Object> array() {
            List<Object> elements = new ArrayList<>();
            at++;
            skipSpace();
            if (peek() == ']') {
                at++;
                return elements;
            }
            while (true) {
                elements.add(value());
                skipSpace();
                if (peek() == ',') {
                    at++;
                    continue;
                }
                expect(']');
                return elements;
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (peek() != '"') {
                char c = text.charAt(at++);
                if (c == '\\') {
                    char escaped = text.charAt(at++);
                    switch (escaped) {
                        case 'n' -> out.append('\n');
                        case 't' -> out.append('\t');
                        case 'r' -> out.append('\r');
                        case 'b' -> out.append('\b');
                        case 'f' -> out.append('\f');
                        case 'u' -> {
                            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                            at += 4;
                        }
                        default -> out.append(escaped);
                    }
                }
                else {
                    out.append(c);
                }
            }
            at++;
            return out.toString();
        }

        private Object literal() {
            int start = at;
            while (at < text.length() && ",]} \t\r\n".indexOf(text.charAt(at)) < 0) {
                at++;
            }
            String word = text.substring(start, at);
            switch (word) {
                case "true":
                    return Boolean.TRUE;
                case "false":
                    return Boolean.FALSE;
                case "null":
                    return null;
                default:
                    try {
                        return Double.valueOf(word);
                    }
                    catch (NumberFormatException ex) {
                        throw new IllegalArgumentException("Not JSON at position " + start + ": " + text);
                    }
            }
        }

        private char peek() {
            if (at >= text.length()) {
                throw new IllegalArgumentException("Unexpected end of JSON: " + text);
            }
            return text.charAt(at);
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("Expected '" + c + "' at position " + at + ": " + text);
            }
            at++;
        }

        void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }
    }
}

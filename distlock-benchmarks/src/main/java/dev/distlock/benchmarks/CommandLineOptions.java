package dev.distlock.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/** The benchmark's command line: {@code --name value}, {@code --name=value} and the flag {@code --quick}. */
final class CommandLineOptions {

    private CommandLineOptions() {
    }

    /**
     * @param args the command line
     * @return the options by name, in the order given
     * @throws IllegalArgumentException for an argument that is not an option, or an option without its value
     */
    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            if (name.equals("quick")) {
                options.put(name, "true");
            }
            else if (name.contains("=")) {
                options.put(name.substring(0, name.indexOf('=')), name.substring(name.indexOf('=') + 1));
            }
            else if (i + 1 < args.length) {
                options.put(name, args[++i]);
            }
            else {
                throw new IllegalArgumentException("Option --" + name + " needs a value");
            }
        }
        return options;
    }
}

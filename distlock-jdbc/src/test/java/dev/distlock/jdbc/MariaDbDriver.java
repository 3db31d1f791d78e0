package dev.distlock.jdbc;

/**
 * The JDBC drivers tested on the {@link MariaDbTestServer}, by the scheme of their URLs ({@code jdbc:mysql:} is MySQL
 * Connector/J's only: MariaDB Connector/J 3 takes it only with {@code permitMysqlScheme}).
 */
enum MariaDbDriver {

    /** MariaDB Connector/J ({@code org.mariadb.jdbc:mariadb-java-client}); reports the product "MariaDB". */
    MARIADB("mariadb", "MariaDB Connector/J"),

    /** MySQL Connector/J ({@code com.mysql:mysql-connector-j}); reports the product "MySQL". */
    MYSQL("mysql", "MySQL Connector/J");

    private final String scheme;

    private final String label;

    MariaDbDriver(String scheme, String label) {
        this.scheme = scheme;
        this.label = label;
    }

    /** @return the scheme of its URLs, after {@code jdbc:} */
    String scheme() {
        return scheme;
    }

    /** @return the driver's name, for reports */
    String label() {
        return label;
    }
}

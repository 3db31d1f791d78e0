package dev.distlock.redis;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.lettuce.core.ClientOptions;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories for the masters of {@code distlock.redlock.nodes}, from URIs of the form
 * {@code redis://[[user]:password@]host:port[/database]} ({@code rediss://} for TLS), as Redis clients write them.
 */
final class RedlockNodes {

    private RedlockNodes() {
    }

    /**
     * @param node the master's URI (validated by {@link RedlockConfig})
     * @param commandTimeout the lock path's command timeout; the client's own is longer, so that distlock's bound
     *        applies
     * @return a started factory
     */
    static LettuceConnectionFactory connectionFactory(String node, Duration commandTimeout) {
        URI uri = URI.create(node);
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? "" : decode(userInfo.substring(0, colon));
            String password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            if (!user.isEmpty()) {
                server.setUsername(user);
            }
            server.setPassword(password);
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            server.setDatabase(Integer.parseInt(path.substring(1)));
        }
        // A master that is down must answer at once (a failed vote), not queue commands until it is back.
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                .commandTimeout(commandTimeout.multipliedBy(2))
                .clientOptions(ClientOptions.builder()
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        if ("rediss".equals(uri.getScheme())) {
            client.useSsl();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(server, client.build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    private static String decode(String value) {
        return URLDecoder.decode(value, StandardCharsets.UTF_8);
    }
}

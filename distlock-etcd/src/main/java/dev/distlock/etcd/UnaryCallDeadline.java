package dev.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;

/**
 * Gives every unary gRPC call of the store's own client (transactions, lease grants and revokes) a deadline of
 * {@code distlock.command-timeout}. The client waits for a connection rather than failing a call at once
 * ({@code waitForReady}), so a call made during a reconnection goes through; the deadline keeps a call made while
 * etcd is away from waiting, and being sent, long after the engine gave up on it. Streams (watches, keep-alives)
 * get none: they live as long as they are needed.
 */
final class UnaryCallDeadline implements ClientInterceptor {

    private final long millis;

    UnaryCallDeadline(Duration timeout) {
        this.millis = timeout.toMillis();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        boolean bounded = method.getType() == MethodDescriptor.MethodType.UNARY && options.getDeadline() == null;
        return next.newCall(method, bounded ? options.withDeadlineAfter(millis, TimeUnit.MILLISECONDS) : options);
    }
}

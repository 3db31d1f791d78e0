package dev.distlock.benchmarks;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Two counters shared by the processes of workloads B2 and G through a memory-mapped file: how many callers are
 * inside the lock (the mutual-exclusion check of workload B, across JVMs) and the last owner (to count owner
 * changes in grant order). Atomic read-modify-writes on a direct buffer are atomic across processes on the same
 * machine, as they use the CPU's locked instructions on the shared page; no Redis command is added to the run.
 */
final class SharedSlots implements AutoCloseable {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    private static final int INSIDE = 0;

    private static final int LAST_OWNER = 8;

    private static final int SIZE = 64;

    private final FileChannel channel;

    private final MappedByteBuffer buffer;

    private SharedSlots(Path file) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
    }

    /** Creates the file with nobody inside and no owner yet (the parent, before it starts the children). */
    static SharedSlots create(Path file) throws IOException {
        SharedSlots slots = new SharedSlots(file);
        LONGS.setVolatile(slots.buffer, INSIDE, 0L);
        LONGS.setVolatile(slots.buffer, LAST_OWNER, -1L);
        slots.buffer.force();
        return slots;
    }

    /** Maps the parent's file (a child). */
    static SharedSlots open(Path file) throws IOException {
        return new SharedSlots(file);
    }

    /** @return how many were inside before this caller entered (0 unless exclusion is broken) */
    long enter() {
        return (long) LONGS.getAndAdd(buffer, INSIDE, 1L);
    }

    /** @return how many are inside now (1 while the caller is, unless exclusion is broken) */
    long inside() {
        return (long) LONGS.getVolatile(buffer, INSIDE);
    }

    void leave() {
        LONGS.getAndAdd(buffer, INSIDE, -1L);
    }

    /** @return the previous owner; {@code owner} is the owner now */
    long swapOwner(long owner) {
        return (long) LONGS.getAndSet(buffer, LAST_OWNER, owner);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

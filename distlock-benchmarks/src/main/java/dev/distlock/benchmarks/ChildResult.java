package dev.distlock.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What one child JVM of workloads B2 and G measured inside the window, written to a file the parent reads.
 *
 * @param acquisitions grants per thread of the child
 * @param ownerChanges grants to a different thread (of any JVM) than the previous grant
 * @param jvmChanges grants to a thread of this JVM after a grant to another JVM
 * @param violations times someone else was inside while this child held the lock
 * @param errors failed lock calls
 * @param firstError the first failure, or ""
 * @param waits every wait (asking to holding) in nanoseconds
 */
record ChildResult(long[] acquisitions, long ownerChanges, long jvmChanges, long violations, long errors,
        String firstError, LatencyRecorder waits) {

    long totalAcquisitions() {
        long total = 0;
        for (long a : acquisitions) {
            total += a;
        }
        return total;
    }

    void write(Path file) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(acquisitions.length);
            for (long a : acquisitions) {
                out.writeLong(a);
            }
            out.writeLong(ownerChanges);
            out.writeLong(jvmChanges);
            out.writeLong(violations);
            out.writeLong(errors);
            out.writeUTF(firstError.length() > 500 ? firstError.substring(0, 500) : firstError);
            long[] samples = waits.samples();
            out.writeInt(samples.length);
            for (long s : samples) {
                out.writeLong(s);
            }
        }
    }

    static ChildResult read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            long[] acquisitions = new long[in.readInt()];
            for (int i = 0; i < acquisitions.length; i++) {
                acquisitions[i] = in.readLong();
            }
            long ownerChanges = in.readLong();
            long jvmChanges = in.readLong();
            long violations = in.readLong();
            long errors = in.readLong();
            String firstError = in.readUTF();
            LatencyRecorder waits = new LatencyRecorder();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                waits.record(in.readLong());
            }
            return new ChildResult(acquisitions, ownerChanges, jvmChanges, violations, errors, firstError, waits);
        }
    }

    /** @return the wait samples of several children, merged */
    static LatencyRecorder.Percentiles waits(List<ChildResult> children) {
        return new LatencyRecorder.Percentiles(children.stream().map(ChildResult::waits).toList());
    }
}

/**
 * The line: the one implementation of a lock store whose waiters queue in a line the server orders (ZooKeeper's
 * sequential nodes, etcd's create revisions). Each request puts one <em>entry</em> (a node, a key) in its name's
 * line; the entry at the head holds the name (for {@code n} permits the first {@code n}, for readers every reader
 * ahead of the first writer), and every other entry watches the deletion of the entry it waits for, so that a
 * release wakes the next waiter rather than every waiter.
 * <p>
 * A store writes only what is its own: a {@link dev.distlock.spi.line.LineDriver} (the client calls that join,
 * list, watch and leave the line), its {@link dev.distlock.spi.line.LineEntry} and a
 * {@link dev.distlock.spi.line.LineRegistry} that turns its server's news (deletions, sessions) into engine events.
 * {@link dev.distlock.spi.line.LineAttempts} runs the rounds of an attempt on them and
 * {@link dev.distlock.spi.line.LinePosition} says where an entry stands; neither knows a store.
 * {@link dev.distlock.spi.line.LineHolders} answers a forced release and a renewal the same way for every store.
 *
 * <h2>What a driver must guarantee</h2>
 * <ul>
 * <li><b>Order.</b> The server gives every entry of a name a number when it is created (a sequence, a revision),
 * strictly increasing in creation order, the same for every client: the line is the entries sorted by it. An entry
 * never moves; a waiter keeps its place across the retries of its request.</li>
 * <li><b>Tokens.</b> A granted entry's fencing token is a number the server gives its creation that rises across the
 * whole server and outlives the name (ZooKeeper's zxid, etcd's revision): an entry holds no earlier than every entry
 * created before it, so tokens increase in grant order, and a name deleted and made again keeps counting up.</li>
 * <li><b>Threads.</b> A driver completes its futures on any thread (its client's I/O thread is fine) and never
 * blocks: the template only chains continuations on them.</li>
 * <li><b>Sessions.</b> Entries live as long as a session or lease of the server. When that ends the server deletes
 * them; the driver's registry then reports every held entry of it lost ({@code StoreEvents.leaseLost}) and wakes its
 * waiters ({@link dev.distlock.spi.line.LineRegistry#loseWhere}), which join the line again with a new entry.</li>
 * </ul>
 */
@NullMarked
package dev.distlock.spi.line;

import org.jspecify.annotations.NullMarked;

-- Acquires a lock atomically with its lease and a fencing token, exclusively (REENTRANT, FAIR, WRITE) or shared
-- with other readers (READ).
-- KEYS[1] lock key      "<prefix>:{<name>}", expiring with the holder's lease:
--                       "<owner token>:<fencing token>"   an exclusive holder; a trailing "+" means someone waits,
--                                                          so its release must hand the lock over
--                       "r"                               readers hold it (until the latest reader lease ends)
--                       "=<owner token>:<fencing token>"  a release handed it to that waiter with its fencing token
--                                                          (see release.lua): the waiter's next attempt is granted
--                                                          with exactly that token
--                       "~<owner token>:<fencing token>"  the same, written by an older version's release.lua with
--                                                          the last holder's token: the next token is above it
--                       "#<permits>:<last fencing token>" permit holders hold it (a semaphore, see below)
--                       "!<fencing token>"                free, a Redlock master's kept token: the next is above it
--                       absent                            free
-- KEYS[2] waiters key   "<prefix>:{<name>}:waiters" sorted set: owner token -> arrival (server µs)
-- KEYS[3] readers key   "<prefix>:{<name>}:readers" sorted set: owner token -> end of its lease (server ms)
-- KEYS[4] writer key    "<prefix>:{<name>}:writer"  the owner token of an exclusive request waiting for readers
--                                                  to leave; new readers queue behind it (expires in 1 s unless
--                                                  that request keeps asking)
-- ARGV[1] owner token (unguessable, one per acquisition)
-- ARGV[2] lease in ms
-- ARGV[3] ms the caller is still prepared to wait (0 = last attempt, not recorded as a waiter)
-- ARGV[4] '1' when the caller was refused before, '0' on its first attempt, 'h' to confirm a hand-over to the
--         caller (HandsOver#confirm): granted only while the lock is handed to the caller or held by it, never anew
-- KEYS[5] permits key   "<prefix>:{<name>}:permits"  hash: owner token -> fencing token of each permit holder
--                       (passed with a request of permits only)
-- ARGV[5] 'w' exclusive, 'r' shared, 'p' one of several permits
-- ARGV[6] for 'p': the number of permits of the name (every caller of a name must ask with the same number)
-- ARGV[7] '1' on a Redlock master: a refusal flags the holder, unqueued (the quorum polls): its release wakes them
-- Returns the fencing token (> 0) when acquired, else -(server ms * 1024 + ms after which trying again makes sense,
-- from 1 to 1023): the server's clock at the refusal tells the caller whether a hand-over it hears of later was
-- issued after this refusal (RedisLockStore decodes it); an error reply "DISTLOCK_PERMITS <n>" when the name is held
-- with another number of permits (n; 1 for a lock).
--
-- Permits: the holders are the readers key's members (owner token -> lease end), their tokens in the permits key.
-- Granted while fewer than <permits> hold the name and fewer waiters came first than permits are free (arrival
-- order); a release reserves the freed permit for the longest waiter (release.lua) for the hand-off window.
-- All keys share the {<name>} hash tag, so the script runs on one Redis Cluster slot.

-- The marker bytes of the arguments (ScriptMarker on the Java side) and of the lock key's value. They are part of
-- the wire format that nodes of different versions share: never change them.
local FIRST, RETRY, CONFIRM = '0', '1', 'h' -- ARGV[4]
local EXCLUSIVE, SHARED, PERMIT = 'w', 'r', 'p' -- ARGV[5]
local READERS = 'r'                  -- the lock key's value while readers hold it
local PERMITS = 35                   -- string.byte('#'): the value starts with it while permit holders hold it
                                     -- (owner tokens are base64url: none starts with '#', '=', '~', '!' or is 'r')
local FLOOR = 33                     -- string.byte('!'): the value starts with it while free with a released token
local HANDED = 61                    -- string.byte('='): the value starts with it while handed to a waiter
local RESERVED = 126                 -- string.byte('~'): an older version's hand-over (the last holder's token)
local FLAGGED = 43                   -- string.byte('+'): the value ends with it while someone waits

-- The uncontended path first (Redis pays for every statement the script runs): a first exclusive attempt on a free
-- lock is TIME and SET NX. Its fencing token is the clock, as below.
if ARGV[4] == FIRST and ARGV[5] == EXCLUSIVE then
    local now = redis.call('TIME')
    local fence = now[1] .. string.format('%06d', now[2])
    if redis.call('SET', KEYS[1], ARGV[1] .. ':' .. fence, 'NX', 'PX', ARGV[2]) then
        return tonumber(fence)
    end
end

local token = ARGV[1]
local lease = tonumber(ARGV[2])
local wait = tonumber(ARGV[3])
local confirming = ARGV[4] == CONFIRM
local retry = ARGV[4] == RETRY or confirming
local shared = ARGV[5] == SHARED
local WRITER_INTENT_MS = 1000

local function now_us()
    local now = redis.call('TIME')
    return tonumber(now[1]) * 1000000 + tonumber(now[2])
end

-- A refusal's reply: the server clock in ms and the retry delay in one integer (exact: below 2^53 for centuries).
local function busy(retry_ms, now)
    return -(math.floor(now / 1000) * 1024 + math.max(1, math.min(retry_ms, 1023)))
end

-- Whether the value is a hand-over to a waiter (that waiter's own attempt takes it; nobody else's does).
local function handed(value)
    local first = string.byte(value, 1)
    return first == HANDED or first == RESERVED
end

-- Not acquired: record the caller as a waiter in arrival order (if it will wait), flag an exclusive holder so
-- that its release hands the lock over (or, on a Redlock master, wakes the pollers), and tell the caller when to try
-- again without a notification.
local function refuse(current)
    local now = now_us()
    if wait > 0 then
        redis.call('ZADD', KEYS[2], 'NX', now, token)
        if redis.call('PTTL', KEYS[2]) < wait then
            redis.call('PEXPIRE', KEYS[2], wait)
        end
        if current == READERS and not shared then
            redis.call('SET', KEYS[4], token, 'PX', WRITER_INTENT_MS)
        end
    end
    if (wait > 0 or ARGV[7]) and current and current ~= READERS and not handed(current)
            and string.byte(current, -1) ~= FLAGGED then
        redis.call('APPEND', KEYS[1], '+')
    end
    return busy(redis.call('PTTL', current and KEYS[1] or KEYS[4]), now)
end

-- "p3:1700000000000000" -> 3, 1700000000000000
local function permits_of(value)
    local colon = string.find(value, ':', 1, true)
    return tonumber(string.sub(value, 2, colon - 1)), tonumber(string.sub(value, colon + 1))
end

local function mismatch(held_with)
    return redis.error_reply('DISTLOCK_PERMITS ' .. held_with)
end

-- Holders whose lease ran out, and reservations nobody claimed in time, free their permits.
local function drop_ended_permits(now_ms)
    local ended = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now_ms)
    if #ended > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
        redis.call('HDEL', KEYS[5], unpack(ended))
    end
end

-- Longer than the engine's fallback re-check (500 ms), so that a waiter that was not woken still claims in time.
local UNANNOUNCED_RESERVATION_MS = 1000

local function acquire_permit(current, floor)
    local permits = tonumber(ARGV[6])
    local last_fence = floor
    if current then
        if string.byte(current, 1) ~= PERMITS then
            return mismatch(1) -- a lock, readers or a reservation for a lock's waiter
        end
        local held_with
        held_with, last_fence = permits_of(current)
        if held_with ~= permits then
            return mismatch(held_with)
        end
    end
    local now = now_us()
    local now_ms = math.floor(now / 1000)
    drop_ended_permits(now_ms)
    -- A holder asking again (its reply was lost), or a waiter claiming the permit a release reserved for it: the
    -- token it was given then.
    local fence = redis.call('HGET', KEYS[5], token)
    if fence then
        fence = tonumber(fence)
    else
        local free = permits - redis.call('ZCARD', KEYS[3])
        local before = redis.call('ZRANK', KEYS[2], token) or redis.call('ZCARD', KEYS[2])
        if free > 0 and before >= free then
            -- Free permits, yet waiters before this request: a release reserves a permit for each, but no release
            -- comes when the holders' leases ran out (or the waiters' instance died with them). Reserve them now,
            -- unannounced, for longer than a waiter's fallback re-check: a live waiter claims its permit, a dead
            -- one's reservation runs out and leaves the line.
            for _, waiter in ipairs(redis.call('ZRANGE', KEYS[2], 0, free - 1)) do
                last_fence = math.max(last_fence + 1, now)
                redis.call('ZREM', KEYS[2], waiter)
                redis.call('HSET', KEYS[5], waiter, string.format('%.0f', last_fence))
                redis.call('ZADD', KEYS[3], now_ms + UNANNOUNCED_RESERVATION_MS, waiter)
            end
            redis.call('SET', KEYS[1], '#' .. permits .. ':' .. string.format('%.0f', last_fence), 'PX',
                math.max(redis.call('PTTL', KEYS[1]), UNANNOUNCED_RESERVATION_MS))
            for _, key in ipairs({ KEYS[3], KEYS[5] }) do
                if redis.call('PTTL', key) < UNANNOUNCED_RESERVATION_MS then
                    redis.call('PEXPIRE', key, UNANNOUNCED_RESERVATION_MS)
                end
            end
            free = 0
        end
        if before >= free then
            if wait > 0 then
                redis.call('ZADD', KEYS[2], 'NX', now, token)
                if redis.call('PTTL', KEYS[2]) < wait then
                    redis.call('PEXPIRE', KEYS[2], wait)
                end
            end
            local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
            return busy(first[2] and (tonumber(first[2]) - now_ms) or 1, now)
        end
        fence = math.max(last_fence + 1, now)
        redis.call('HSET', KEYS[5], token, string.format('%.0f', fence))
        last_fence = fence
    end
    redis.call('ZADD', KEYS[3], now_ms + lease, token)
    redis.call('ZREM', KEYS[2], token)
    local ttl = math.max(redis.call('PTTL', KEYS[1]), lease)
    redis.call('SET', KEYS[1], '#' .. permits .. ':' .. string.format('%.0f', last_fence), 'PX', ttl)
    for _, key in ipairs({ KEYS[3], KEYS[5] }) do
        if redis.call('PTTL', key) < ttl then
            redis.call('PEXPIRE', key, ttl)
        end
    end
    return fence
end

local current = redis.call('GET', KEYS[1])
-- A kept token ("!<token>", release.lua; an older version's refusal may have flagged it "+"): free, served above it.
local floor = 0
if current and string.byte(current, 1) == FLOOR then
    floor = tonumber(string.match(current, '%d+'))
    current = nil
end
if ARGV[5] == PERMIT then
    return acquire_permit(current, floor)
end
if current and string.byte(current, 1) == PERMITS then
    return mismatch(permits_of(current)) -- held with permits: a lock or read/write lock of the name is refused
end
if confirming then
    -- Nothing orders the confirmation before the caller's release (the release does not wait for it): it may run
    -- after it, when the name is free or someone else's. It then takes nothing (a fresh grant would hold the name
    -- for a whole lease unless the engine's undo came).
    local mine = token .. ':'
    local handed_to_me = current and handed(current) and string.sub(current, 2, #mine + 1) == mine
    if not current or not (handed_to_me or string.sub(current, 1, #mine) == mine) then
        return refuse(current)
    end
end
local last_fence = floor
local handed_fence
if current then
    if handed(current) then
        local prefix = string.sub(current, 1, 1) .. token .. ':'
        if string.sub(current, 1, #prefix) ~= prefix then
            return refuse(current) -- handed to an earlier waiter
        end
        local fence = string.sub(current, #prefix + 1)
        if string.byte(fence, -1) == FLAGGED then
            fence = string.sub(fence, 1, -2) -- flagged by an older version's refusal
        end
        if string.byte(current, 1) == HANDED then
            handed_fence = tonumber(fence)
        else
            last_fence = tonumber(fence)
        end
    elseif current == READERS then
        -- Readers hold it: a writer waits; a reader joins unless a writer waits (or writers would starve).
        if not shared or redis.call('EXISTS', KEYS[4]) == 1 then
            return refuse(current)
        end
    else
        local mine = token .. ':'
        if string.sub(current, 1, #mine) == mine then
            -- A retry of an acquire whose reply was lost: same fencing token, lease refreshed (idempotent).
            redis.call('PEXPIRE', KEYS[1], lease)
            local fence = string.sub(current, #mine + 1)
            if string.byte(fence, -1) == FLAGGED then
                fence = string.sub(fence, 1, -2)
            end
            return tonumber(fence)
        end
        return refuse(current)
    end
elseif shared and redis.call('EXISTS', KEYS[4]) == 1 then
    return refuse(current)
end

-- Fencing: above the last token the key still carries and at least the server clock in microseconds. Every token
-- ever issued for the name was at most the clock when it was issued, so a token is above all earlier ones even
-- when Redis forgot them (a restart from an older snapshot, a failover to a replica that lagged, a released key that
-- was deleted): strictly increasing as long as the server clock does not go back by more than the time between two
-- holders; on a Redlock master, whose release keeps the released token for a second, as long as the masters'
-- clocks agree within a second (the next majority's token is above the kept one). A hand-over already issued the
-- token, by the same rule, when the release ran: the waiter may have started on it (StoreEvents.handedOver), and
-- this attempt confirms it.
local now = now_us()
local fence = handed_fence or math.max(last_fence + 1, now)
if retry then
    redis.call('ZREM', KEYS[2], token) -- no longer waiting
end
if shared then
    redis.call('ZADD', KEYS[3], math.floor(now / 1000) + lease, token)
    if redis.call('PTTL', KEYS[3]) < lease then
        redis.call('PEXPIRE', KEYS[3], lease)
    end
    if current ~= READERS then
        redis.call('SET', KEYS[1], READERS, 'PX', lease)
    elseif redis.call('PTTL', KEYS[1]) < lease then
        redis.call('PEXPIRE', KEYS[1], lease)
    end
    return fence
end
local value = token .. ':' .. string.format('%.0f', fence)
if retry then
    if redis.call('GET', KEYS[4]) == token then
        redis.call('DEL', KEYS[4]) -- its own intent; other waiting writers set theirs again when they retry
    end
    if redis.call('EXISTS', KEYS[2]) == 1 then
        value = value .. '+'
    end
end
redis.call('SET', KEYS[1], value, 'PX', lease)
return fence

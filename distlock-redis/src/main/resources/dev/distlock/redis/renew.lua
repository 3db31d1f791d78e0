-- Renews many watchdog leases in one call, each only if its owner still holds it.
-- KEYS[2i - 1] the lock key and KEYS[2i] the readers key of lease i
-- ARGV[1] lease in ms; ARGV[2i] the owner token of lease i; ARGV[2i + 1] 'w' exclusive or 'r' shared
-- Returns a list with 1 (renewed) or 0 (lost: expired or owned by another) per lease.
-- The caller batches only keys of one Cluster slot (or any keys on a standalone/Sentinel master).

-- The marker bytes (ScriptMarker on the Java side; see acquire.lua), part of the shared wire format.
local SHARED = 'r'   -- ARGV[2i + 1]
local READERS = 'r'  -- the lock key's value while readers hold it

local lease = tonumber(ARGV[1])
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local result = {}
for i = 1, #KEYS / 2 do
    local lock, readers, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[2 * i]
    result[i] = 0
    if ARGV[2 * i + 1] == SHARED then
        local lease_end = redis.call('ZSCORE', readers, token)
        -- The "r" marker must still be there: without it (evicted, deleted) a writer may have come in.
        if lease_end and tonumber(lease_end) > now_ms and redis.call('GET', lock) == READERS then
            redis.call('ZADD', readers, now_ms + lease, token)
            if redis.call('PTTL', readers) < lease then
                redis.call('PEXPIRE', readers, lease)
            end
            if redis.call('PTTL', lock) < lease then
                redis.call('PEXPIRE', lock, lease) -- the "r" marker lives as long as the latest reader lease
            end
            result[i] = 1
        end
    else
        local owner = token .. ':'
        local current = redis.call('GET', lock)
        if current and string.sub(current, 1, #owner) == owner then
            redis.call('PEXPIRE', lock, lease)
            result[i] = 1
        end
    end
end
return result

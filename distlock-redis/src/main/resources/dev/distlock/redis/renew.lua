-- Renews many watchdog leases in one call, each only if its owner still holds it.
-- KEYS     per lease, in order: its lock key; for 'r' and 'p' then its readers key; for 'p' then its permits key
--          (an exclusive lease, nearly every one, sends only the key it renews: Redis parses every key of the call)
-- ARGV[1] lease in ms; ARGV[2i] the owner token of lease i; ARGV[2i + 1] 'w' exclusive, 'r' shared or 'p' a permit
-- Returns a list with 1 (renewed) or 0 (lost: expired or owned by another) per lease.
-- The caller batches only keys of one Cluster slot (or any keys on a standalone/Sentinel master).

-- The marker bytes (ScriptMarker on the Java side; see acquire.lua), part of the shared wire format.
local SHARED, PERMIT = 'r', 'p' -- ARGV[2i + 1]
local READERS = 'r'  -- the lock key's value while readers hold it
local PERMITS = 35   -- string.byte('#'): the lock key's value starts with it while permit holders hold it
local COLON = 58     -- string.byte(':'): ends the owner in an exclusive holder's value

local lease = tonumber(ARGV[1])
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local result = {}
local k = 0
for i = 1, (#ARGV - 1) / 2 do
    local token, mode = ARGV[2 * i], ARGV[2 * i + 1]
    local lock = KEYS[k + 1]
    result[i] = 0
    if mode == SHARED or mode == PERMIT then
        local readers, permits = KEYS[k + 2], KEYS[k + 3]
        k = k + (mode == PERMIT and 3 or 2)
        local lease_end = redis.call('ZSCORE', readers, token)
        -- The "r" (or "#...") marker must still be there: without it (evicted, deleted) a writer may have come in.
        local marker = redis.call('GET', lock)
        local marked = marker and (marker == READERS and mode == SHARED
            or string.byte(marker, 1) == PERMITS and mode == PERMIT)
        if lease_end and tonumber(lease_end) > now_ms and marked then
            redis.call('ZADD', readers, now_ms + lease, token)
            local keys = mode == PERMIT and { readers, lock, permits } or { readers, lock }
            for _, key in ipairs(keys) do
                if redis.call('PTTL', key) < lease then
                    redis.call('PEXPIRE', key, lease) -- the marker lives as long as the latest lease
                end
            end
            result[i] = 1
        end
    else
        k = k + 1
        -- "<owner>:<fencing token>", compared in place: no new string per lease (Redis pays for each one).
        local current = redis.call('GET', lock)
        if current and string.byte(current, #token + 1) == COLON and string.find(current, token, 1, true) == 1 then
            redis.call('PEXPIRE', lock, ARGV[1])
            result[i] = 1
        end
    end
end
return result

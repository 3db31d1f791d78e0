-- Renews many watchdog leases in one call, each only if its owner still holds it.
-- KEYS[i] the lock key (exclusive holders) or the readers key (shared holders) of lease i
-- ARGV[1] lease in ms; ARGV[2i] the owner token of lease i; ARGV[2i + 1] 'w' exclusive or 'r' shared
-- Returns a list with 1 (renewed) or 0 (lost: expired or owned by another) per lease.
-- The caller batches only keys of one Cluster slot (or any keys on a standalone/Sentinel master).

local lease = tonumber(ARGV[1])
local now = redis.call('TIME')
local now_ms = now[1] * 1000 + math.floor(now[2] / 1000)
local result = {}
for i, key in ipairs(KEYS) do
    local token = ARGV[2 * i]
    result[i] = 0
    if ARGV[2 * i + 1] == 'r' then
        local lease_end = redis.call('ZSCORE', key, token)
        if lease_end and tonumber(lease_end) > now_ms then
            redis.call('ZADD', key, now_ms + lease, token)
            if redis.call('PTTL', key) < lease then
                redis.call('PEXPIRE', key, lease)
            end
            result[i] = 1
        end
    else
        local owner = token .. ':'
        local current = redis.call('GET', key)
        if current and string.sub(current, 1, #owner) == owner then
            redis.call('PEXPIRE', key, lease)
            result[i] = 1
        end
    end
end
return result

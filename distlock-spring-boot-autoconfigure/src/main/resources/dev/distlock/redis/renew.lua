-- Renews many watchdog leases in one call, each only if its owner still holds it.
-- KEYS[i] lock key, ARGV[1] lease in ms, ARGV[i + 1] the owner token of KEYS[i]
-- Returns a list with 1 (renewed) or 0 (lost: expired or owned by another) per key.
-- The caller batches only keys of one Cluster slot (or any keys on a standalone/Sentinel master).

local result = {}
for i, key in ipairs(KEYS) do
    local owner = ARGV[i + 1] .. ':'
    local current = redis.call('GET', key)
    if current and string.sub(current, 1, #owner) == owner then
        redis.call('PEXPIRE', key, ARGV[1])
        result[i] = 1
    else
        result[i] = 0
    end
end
return result

/**
 * The Lua scripts of the Redis store (`redis.ts`): every write that touches several keys is one
 * script, so it is atomic. Key layout: `redis-layout.ts`.
 */
import { SEQ_DIGITS, seg } from "./redis-layout.ts";

/** Decodes a JSON-encoded string field (nil when absent or not a string). */
const luaStr = `local function str(raw)
  if not raw then return nil end
  local ok, v = pcall(cjson.decode, raw)
  if ok and type(v) == 'string' then return v end
  return nil
end
`;

/**
 * KEYS: account, session, token, account-sessions, account-open, unused-urls, session-seq.
 * ARGV: now, limit ('' = none), open score ('' = not open), createdAt, id, unused ('1'/'0'), field/value pairs…
 * Returns the new seq, 0 at the limit, -1 no account, -2 id taken, -3 token taken.
 */
export const CREATE_SESSION = `
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[1])
if ARGV[2] ~= '' and redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[2]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[3]) == 1 then return -3 end
local seq = redis.call('INCR', KEYS[7])
redis.call('HSET', KEYS[2], 'seq', tostring(seq), unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[4], string.format('%0${SEQ_DIGITS}d', seq) .. ':' .. ARGV[5])
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[5], ARGV[3], ARGV[5]) end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[6], ARGV[4], ARGV[5]) end
return seq
`;

/**
 * KEYS: session, unused-urls. ARGV: base, id, reindex ('1' when status or connectedAt changes),
 * token patched ('1'/'0'), the new token hash, field/value pairs…
 * Returns 1 applied, 0 no such session (nothing written), -1 token hash taken by another session.
 */
export const UPDATE_SESSION = `${luaStr}
local base, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[4] == '1' then
  local old = str(redis.call('HGET', KEYS[1], 'tokenHash'))
  if old ~= ARGV[5] then
    local newKey = base .. '${seg.token}' .. ARGV[5]
    local holder = redis.call('GET', newKey)
    if holder and holder ~= id then return -1 end
    if old then
      local oldKey = base .. '${seg.token}' .. old
      if redis.call('GET', oldKey) == id then redis.call('DEL', oldKey) end
    end
    redis.call('SET', newKey, id)
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
if ARGV[3] == '1' then
  local v = redis.call('HMGET', KEYS[1], 'status', 'connectedAt', 'accountId', 'createdAt')
  local status = v[1]
  local connected = v[2] and v[2] ~= 'null'
  local account = str(v[3])
  if account then
    local open = base .. '${seg.accountOpen}' .. account
    if status == '"done"' or status == '"error"' then
      redis.call('ZREM', open, id)
    elseif status == '"processing"' or connected then
      redis.call('ZADD', open, '+inf', id)
    end
  end
  if status == '"queued"' and not connected and tonumber(v[4]) then
    redis.call('ZADD', KEYS[2], v[4], id)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return 1
`;

/** KEYS: session, unused-urls. ARGV: base, id. */
export const DELETE_SESSION = `${luaStr}
local base, id = ARGV[1], ARGV[2]
local v = redis.call('HMGET', KEYS[1], 'accountId', 'tokenHash', 'seq')
if not v[1] then return 0 end
redis.call('DEL', KEYS[1])
local account, token, seq = str(v[1]), str(v[2]), tonumber(v[3])
if token then
  local tk = base .. '${seg.token}' .. token
  if redis.call('GET', tk) == id then redis.call('DEL', tk) end
end
if account then
  if seq then redis.call('ZREM', base .. '${seg.accountSessions}' .. account, string.format('%0${SEQ_DIGITS}d', seq) .. ':' .. id) end
  redis.call('ZREM', base .. '${seg.accountOpen}' .. account, id)
end
redis.call('ZREM', KEYS[2], id)
return 1
`;

/** KEYS: an index string key. ARGV: hash key prefix. The hash its value names, or nil. */
export const FOLLOW_INDEX = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('HGETALL', ARGV[1] .. id)
`;

/** KEYS: account, accounts. ARGV: createdAt, id, field/value pairs… Returns 0 when the id is taken. */
export const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: account. ARGV: number of fields to delete, those fields, field/value pairs… The hash after, or nil. */
export const UPDATE_PLAN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local d = tonumber(ARGV[1])
if d > 0 then redis.call('HDEL', KEYS[1], unpack(ARGV, 2, 1 + d)) end
if #ARGV > 1 + d then redis.call('HSET', KEYS[1], unpack(ARGV, 2 + d)) end
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: account. ARGV: seconds. Written with 17 significant digits so the double survives exactly. */
export const CONSUME_CREDITS = `
local raw = redis.call('HGET', KEYS[1], 'plan.creditsSeconds')
if not raw or raw == 'null' then return 0 end
local n = tonumber(raw)
if not n then return 0 end
redis.call('HSET', KEYS[1], 'plan.creditsSeconds', string.format('%.17g', n - tonumber(ARGV[1])))
return 1
`;

/**
 * KEYS: account, key, key-hash, account-keys. ARGV: createdAt, key id, field/value pairs…
 * Returns 1, -1 no account, -2 secret already stored, -3 id taken.
 */
export const CREATE_KEY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[3]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -3 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('SET', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: key. ARGV: revokedAt (JSON). Returns 1 when it revoked the key. */
export const REVOKE_KEY = `
local r = redis.call('HGET', KEYS[1], 'revokedAt')
if r ~= 'null' then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
return 1
`;

/** KEYS: account, callbacks list. ARGV: entry, cap. Returns 0 without the account. */
export const STORE_CALLBACK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return 1
`;

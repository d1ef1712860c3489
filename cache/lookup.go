package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	fastjson "github.com/segmentio/encoding/json"
)

// lookupScript reads the generations of the namespaces and the cached
// result their key names, in one round trip: a cached search would
// otherwise wait on Redis twice in sequence. KEYS are each
// namespace's generation counters, per of them apiece; ARGV are per, the
// key's prefix (up to the namespaces), and its tail (tool and args hash).
// The cache key itself is computed here, so the script reads a key not in
// KEYS: fine on one Redis or a Sentinel pair, which is what ragd runs on.
var lookupScript = redis.NewScript(`
local per = tonumber(ARGV[1])
local gens = {}
for i = 0, #KEYS / per - 1 do
	local sum = 0
	for j = 1, per do
		local v = redis.call('GET', KEYS[i * per + j])
		if v then
			local n = tonumber(v)
			if not n then return redis.error_reply('not a counter: ' .. KEYS[i * per + j]) end
			sum = sum + n
		end
	end
	gens[#gens + 1] = string.format('%d', sum)
end
local key = ARGV[2] .. ':' .. table.concat(gens, '+') .. ':' .. ARGV[3]
return {table.concat(gens, ','), redis.call('GET', key) or false}
`)

// Lookup is Key and Get in one Redis round trip: it returns the cache key
// of tool called with args over namespaces and whether the result was
// there (decoded into dst). The generations read are remembered in a
// WithGenerationMemo context, as Get remembers them. key is "" when Redis
// cannot be read (then nothing is cached). A nil *Results misses.
//
// The round trip is a plain MGET of the counters and of the key the
// generations this process last saw for these namespaces would name; it
// counts only if the counters still sum to those generations (MGET reads
// them all at once). Otherwise, and the first time, lookupScript reads both
// in one step. A Lua call costs about 50 µs more than an MGET here, a
// sixth of a cached MCP call.
func (c *Results) Lookup(ctx context.Context, namespaces []string, tool string, args any, dst any) (key string, hit bool) {
	if c == nil {
		return "", false
	}
	canonical, err := json.Marshal(args)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(canonical)
	head := c.prefix + ":cache:" + strings.Join(namespaces, "+")
	tail := tool + ":" + hex.EncodeToString(sum[:])
	per := 1 + len(c.gens.also)
	keys := make([]string, 0, per*len(namespaces)+1)
	for _, ns := range namespaces {
		keys = append(keys, c.gens.counters(ns)...)
	}
	gens, joined, raw, ok := c.lookupSeen(ctx, keys, per, head, tail)
	if !ok {
		res, err := lookupScript.Run(ctx, c.rdb, keys, per, head, tail).Slice()
		if err != nil || len(res) != 2 {
			c.log.Warn("cache disabled for this call: cannot read generations", "tool", tool, "error", err)
			return "", false
		}
		listed, _ := res[0].(string)
		gens, joined, raw = strings.Split(listed, ","), strings.ReplaceAll(listed, ",", "+"), res[1]
		c.seen.Add(head, joined)
	}
	c.gens.remember(ctx, namespaces, gens)
	key = head + ":" + joined + ":" + tail
	text, found := raw.(string)
	// segmentio's decoder (the go-sdk's) reads what encoding/json wrote in
	// half the time: 6 µs against 14 for a cached search.
	hit = found && fastjson.Unmarshal([]byte(text), dst) == nil
	c.observe(tool, hit)
	return key, hit
}

// lookupSeen reads the counters and the result under the generations last
// seen for head with one MGET; joined is gens as the key writes them. ok
// is false when none were seen, Redis failed, or the generations have
// moved since (then they are forgotten).
func (c *Results) lookupSeen(ctx context.Context, keys []string, per int, head, tail string) (gens []string, joined string, raw any, ok bool) {
	seen, known := c.seen.Get(head)
	if !known {
		return nil, "", nil, false
	}
	vals, err := c.rdb.MGet(ctx, append(keys, head+":"+seen+":"+tail)...).Result()
	if err != nil || len(vals) != len(keys)+1 {
		return nil, "", nil, false
	}
	gens = make([]string, 0, len(keys)/per)
	for i := 0; i < len(keys); i += per {
		n, err := sumCounters(keys[i:i+per], vals[i:i+per])
		if err != nil {
			return nil, "", nil, false
		}
		gens = append(gens, strconv.FormatInt(n, 10))
	}
	if strings.Join(gens, "+") != seen {
		c.seen.Remove(head)
		return nil, "", nil, false
	}
	return gens, seen, vals[len(keys)], true
}

// remember puts generations just read into ctx's memo.
func (g *Generations) remember(ctx context.Context, namespaces, gens []string) {
	memo, _ := ctx.Value(memoKey{}).(*generationMemo)
	if memo == nil || len(gens) != len(namespaces) {
		return
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	for i, ns := range namespaces {
		if n, err := strconv.ParseInt(gens[i], 10, 64); err == nil {
			memo.m[ns] = n
		}
	}
}

// counters are the keys whose sum is a namespace's generation.
func (g *Generations) counters(namespace string) []string {
	keys := []string{g.key(namespace)}
	for _, k := range g.also {
		keys = append(keys, k(namespace))
	}
	return keys
}

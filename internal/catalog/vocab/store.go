package vocab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// Store keeps per-namespace term statistics in Redis: the namespace's
// totals (word → chunks holding it), which a search reads as one hash
// however many documents the namespace holds, and per document only which
// version the totals count. A version's own counts are not kept: they are
// a function of its chunks, which the chunk store holds, so the caller
// recounts them (Previous) when that version is replaced or forgotten.
// Keeping them cost half of all Redis memory (about 3.4 KB a document).
type Store struct {
	rdb  redis.UniversalClient
	keys keyspace.Keys
}

// New returns a store keeping each namespace's records and totals where
// keys names them (one hash slot per namespace, as the scripts need).
func New(rdb redis.UniversalClient, keys keyspace.Keys) *Store {
	return &Store{rdb: rdb, keys: keys}
}

// key is the namespace's records: one field per document, the content
// hash of the version the totals count. A ragd before 0.x kept the
// version's counts there too, as JSON (an entry); such an entry still
// works, and is replaced by the hash alone at its document's next change.
// Clear deletes it, and totalsKey.
func (s *Store) key(namespace string) string { return s.keys.Vocabulary(namespace) }

// totalsKey is the namespace's totals: word → chunks holding it, plus the
// fields below, which no word can equal (Terms yields letters and digits).
func (s *Store) totalsKey(namespace string) string { return s.keys.VocabularyTotals(namespace) }

const (
	chunksField = " chunks" // chunks counted
	markerField = " v"      // the totals cover every document recorded
)

// Counts are one version's words: how many chunks it has and in how many
// of them each word occurs.
type Counts struct {
	Chunks int            `json:"n"`
	DF     map[string]int `json:"df"`

	seen map[string]struct{} // Add's scratch: the words of one chunk
}

// CountTexts counts the words of a version's chunks as BM25 sees them
// (heading trail and body: ragd.Chunk.EmbeddingText).
func CountTexts(texts []string) Counts {
	c := Counts{DF: map[string]int{}}
	for _, t := range texts {
		c.Add(t)
	}
	return c
}

// Add counts one more chunk.
func (c *Counts) Add(text string) {
	if c.DF == nil {
		c.DF = map[string]int{}
	}
	if c.seen == nil {
		c.seen = map[string]struct{}{}
	}
	clear(c.seen)
	c.Chunks++
	for _, w := range Terms(text) {
		if _, ok := c.seen[w]; !ok {
			c.seen[w] = struct{}{}
			c.DF[w]++
		}
	}
}

// MarshalJSON writes {"n":…,"df":{…}} as encoding/json would, but for the
// words' order (the scripts that read it need none): an ingest writes one
// per document, and sorting the keys was most of its cost.
func (c Counts) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 16+len(c.DF)*12)
	b = append(b, `{"n":`...)
	b = strconv.AppendInt(b, int64(c.Chunks), 10)
	b = append(b, `,"df":{`...)
	first := true
	for w, n := range c.DF {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, w)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, "}}"...), nil
}

// appendJSONString appends s as a JSON string. Terms yields letters and
// digits, but any string is written validly.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"' || ch == '\\':
			b = append(b, '\\', ch)
		case ch < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[ch>>4], hex[ch&0xf])
		default:
			b = append(b, ch)
		}
	}
	return append(b, '"')
}

// Previous recounts the version hash of a document from the chunks the
// store holds, for the totals to drop: what Learn and Forget call when
// the version they replace was recorded. A version whose chunks are gone
// counts nothing (its words then stay in the totals: expansion may add a
// word that matches nothing).
type Previous func(ctx context.Context, hash string) (Counts, error)

// entry is a record written by an earlier ragd: the version and its counts.
type entry struct {
	Hash   string         `json:"h"`
	Chunks int            `json:"n"`
	DF     map[string]int `json:"df"`
}

// applyScript records in KEYS[1] that document ARGV[1] is counted at
// version ARGV[4] (forgets it when ARGV[4] is empty) and moves the totals
// in KEYS[2] by the difference: minus the counts of the version recorded
// (an earlier ragd's entry carries them; otherwise ARGV[3], which the
// caller recounted for the version it read, ARGV[2]), plus ARGV[5]. It
// returns -1, changing nothing, when the record is no longer ARGV[2]
// (callers hold the document's lock, so only a writer that lost it can
// meet that). Totals that do not cover every record yet (kept by a ragd
// from before totals existed: no marker) are left for Load to rebuild, and
// the record is then written as an entry with its counts, which the
// rebuild sums; a namespace without records starts them.
var applyScript = redis.NewScript(`
local rec = redis.call("HGET", KEYS[1], ARGV[1])
local old = nil
if rec and string.sub(rec, 1, 1) == "{" then
  old = rec
elseif (rec or "") ~= ARGV[2] then
  return -1
elseif rec then
  old = ARGV[3]
end
local fresh = redis.call("HLEN", KEYS[1]) == 0
if not fresh and redis.call("HEXISTS", KEYS[2], ARGV[7]) == 0 then
  if ARGV[4] == "" then
    redis.call("HDEL", KEYS[1], ARGV[1])
  else
    redis.call("HSET", KEYS[1], ARGV[1], '{"h":"' .. ARGV[4] .. '",' .. string.sub(ARGV[5], 2))
  end
  return 0
end
if ARGV[4] == "" then
  redis.call("HDEL", KEYS[1], ARGV[1])
else
  redis.call("HSET", KEYS[1], ARGV[1], ARGV[4])
end
if fresh then
  redis.call("DEL", KEYS[2])
  redis.call("HSET", KEYS[2], ARGV[7], 1)
end
local function move(raw, sign)
  if raw == nil or raw == "" then return end
  local ok, e = pcall(cjson.decode, raw)
  if not ok or type(e) ~= "table" then return end
  if type(e.df) == "table" then
    for w, n in pairs(e.df) do
      if redis.call("HINCRBY", KEYS[2], w, sign * n) <= 0 then redis.call("HDEL", KEYS[2], w) end
    end
  end
  if type(e.n) == "number" then redis.call("HINCRBY", KEYS[2], ARGV[6], sign * e.n) end
end
move(old, -1)
move(ARGV[5], 1)
return 1
`)

// errRecordMoved is applyScript's -1.
var errRecordMoved = errors.New("the document's vocabulary record changed meanwhile")

// Learn records the words of one version of a document: counts are its
// chunks' (CountTexts). It replaces whatever version was recorded, in the
// totals too, recounting that one with previous. Learning the version
// already recorded changes nothing. Callers hold the document's lock.
func (s *Store) Learn(ctx context.Context, namespace, documentID, contentHash string, counts Counts, previous Previous) error {
	if err := s.record(ctx, namespace, documentID, contentHash, counts, previous); err != nil {
		return fmt.Errorf("vocab: record %s: %w", documentID, err)
	}
	return nil
}

// Forget removes a deleted document's words from the namespace's
// statistics, recounting them with previous; it is called before the
// document's chunks go. Forgetting an unknown document is not an error.
func (s *Store) Forget(ctx context.Context, namespace, documentID string, previous Previous) error {
	if err := s.record(ctx, namespace, documentID, "", Counts{}, previous); err != nil {
		return fmt.Errorf("vocab: forget %s: %w", documentID, err)
	}
	return nil
}

// record moves the document's record to version hash ("" forgets it)
// with counts.
func (s *Store) record(ctx context.Context, namespace, documentID, hash string, counts Counts, previous Previous) error {
	var after []byte
	if hash != "" {
		if counts.DF == nil {
			counts.DF = map[string]int{}
		}
		var err error
		if after, err = json.Marshal(counts); err != nil {
			return err
		}
		// Most documents learned are new: try as if none were recorded
		// (the script refuses if one is), saving the read of the record.
		if n, err := s.apply(ctx, namespace, documentID, "", nil, hash, after); err != nil || n >= 0 {
			return err
		}
	}
	learned, legacy, err := s.learned(ctx, namespace, documentID)
	if err != nil {
		return err
	}
	if learned == hash && !legacy {
		return nil
	}
	var before []byte
	if learned != "" && !legacy && previous != nil {
		old, err := previous(ctx, learned)
		if err != nil {
			return err
		}
		if before, err = json.Marshal(old); err != nil {
			return err
		}
	}
	expect := learned
	if legacy {
		expect = "" // the script reads an entry's counts itself
	}
	n, err := s.apply(ctx, namespace, documentID, expect, before, hash, after)
	if err != nil {
		return err
	}
	if n < 0 {
		return errRecordMoved
	}
	return nil
}

// apply runs applyScript: -1 when the record is not expect.
func (s *Store) apply(ctx context.Context, namespace, documentID, expect string, before []byte, hash string, after []byte) (int, error) {
	keys := []string{s.key(namespace), s.totalsKey(namespace)}
	return applyScript.Run(ctx, s.rdb, keys, documentID, expect, before, hash, after, chunksField, markerField).Int()
}

// Learned returns the content hash of the version whose words are
// recorded for a document, or "" when none is (or the record is
// unreadable, so that it is learned again).
func (s *Store) Learned(ctx context.Context, namespace, documentID string) (string, error) {
	hash, _, err := s.learned(ctx, namespace, documentID)
	if err != nil {
		return "", fmt.Errorf("vocab: %w", err)
	}
	return hash, nil
}

// learned reads a document's record: the version, and whether it is an
// earlier ragd's entry. Only an entry's head crosses the network, not its
// word counts.
func (s *Store) learned(ctx context.Context, namespace, documentID string) (string, bool, error) {
	head, err := recordHeadScript.Run(ctx, s.rdb, []string{s.key(namespace)}, documentID, entryHeadBytes).Text()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if strings.HasPrefix(head, "{") {
		return hashOfHead(head), true, nil
	}
	return head, false, nil
}

// entryHeadBytes is enough of an entry for its hash: json.Marshal writes
// entry's fields in order, so it starts {"h":"<64 hex digits>". A record
// of ours is the hash alone.
const entryHeadBytes = 96

// recordHeadScript returns the first ARGV[2] bytes of document ARGV[1]'s
// record in KEYS[1], or nil.
var recordHeadScript = redis.NewScript(`
local v = redis.call("HGET", KEYS[1], ARGV[1])
if not v then return false end
return string.sub(v, 1, tonumber(ARGV[2]))
`)

// hashOfHead reads the hash from the head of an entry, "" if it is not there.
func hashOfHead(head string) string {
	const open = `{"h":"`
	rest, ok := strings.CutPrefix(head, open)
	if !ok {
		return ""
	}
	hash, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return ""
	}
	return hash
}

// Versions reports the current content hash of each document ("" when the
// namespace no longer holds it): the registry's CurrentHashes.
type Versions func(ctx context.Context, namespace string, ids []string) (map[string]string, error)

// Load returns the namespace's statistics from its totals. Totals written
// by a ragd from before they existed are rebuilt once from the entries,
// counting only documents current says the namespace holds and deleting
// the others' entries.
func (s *Store) Load(ctx context.Context, namespace string, current Versions) (*Stats, error) {
	for range 3 {
		totals, err := s.rdb.HGetAll(ctx, s.totalsKey(namespace)).Result()
		if err != nil {
			return nil, fmt.Errorf("vocab: %w", err)
		}
		if totals[markerField] != "" {
			return statsOf(totals), nil
		}
		st, err := s.rebuild(ctx, namespace, current)
		if errors.Is(err, redis.TxFailedErr) {
			continue // a document was learned meanwhile: again
		}
		if err != nil {
			return nil, fmt.Errorf("vocab: rebuild totals of %s: %w", namespace, err)
		}
		return st, nil
	}
	return nil, fmt.Errorf("vocab: totals of %s changed during every rebuild; try again", namespace)
}

// statsOf parses the totals hash.
func statsOf(totals map[string]string) *Stats {
	chunks, _ := strconv.Atoi(totals[chunksField])
	df := make(map[string]int, len(totals))
	for w, v := range totals {
		if w == chunksField || w == markerField {
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			df[w] = n
		}
	}
	return NewStats(chunks, df)
}

// rebuild sums the entries of the namespace's current documents into its
// totals, deleting the entries of documents it no longer holds, and
// returns them. A record without counts (ours) cannot be summed: it is
// deleted, which says the totals do not count that document, so its next
// index learns it again. A namespace without entries gets no totals (any name may
// be searched; Learn starts them). It fails with redis.TxFailedErr when an
// entry changed meanwhile.
func (s *Store) rebuild(ctx context.Context, namespace string, current Versions) (*Stats, error) {
	key, totalsKey := s.key(namespace), s.totalsKey(namespace)
	var st *Stats
	err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		all, err := tx.HGetAll(ctx, key).Result()
		if err != nil || len(all) == 0 {
			st = NewStats(0, map[string]int{})
			return err
		}
		ids := make([]string, 0, len(all))
		for id := range all {
			ids = append(ids, id)
		}
		hashes, err := current(ctx, namespace, ids)
		if err != nil {
			return err
		}
		chunks, df := 0, map[string]int{}
		var gone []string
		for id, raw := range all {
			var e entry
			if err := json.Unmarshal([]byte(raw), &e); err != nil || hashes[id] == "" {
				gone = append(gone, id) // unreadable, without counts, or the document is gone
				continue
			}
			chunks += e.Chunks
			for w, n := range e.DF {
				df[w] += n
			}
		}
		fields := make([]any, 0, 2*len(df)+4)
		fields = append(fields, markerField, 1, chunksField, chunks)
		for w, n := range df {
			fields = append(fields, w, n)
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if len(gone) > 0 {
				p.HDel(ctx, key, gone...)
			}
			p.Del(ctx, totalsKey)
			p.HSet(ctx, totalsKey, fields...)
			return nil
		})
		st = NewStats(chunks, df)
		return err
	}, key)
	return st, err
}

// Clear forgets the namespace's statistics.
func (s *Store) Clear(ctx context.Context, namespace string) error {
	return s.rdb.Del(ctx, s.key(namespace), s.totalsKey(namespace)).Err()
}

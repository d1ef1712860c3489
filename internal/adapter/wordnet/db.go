package wordnet

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"ragd/internal/adapter/wordindex"
)

// The parts of speech, as WordNet's files name and letter them.
var partsOfSpeech = []struct {
	letter byte
	name   string
}{{'n', "noun"}, {'v', "verb"}, {'a', "adj"}, {'r', "adv"}}

// DB is a loaded WordNet database; it is read-only and safe for concurrent
// use. It is laid out flat — lemmas in one string, synsets and senses as
// runs of int32 — because a struct and a slice per synset and a map entry
// per lemma and part of speech took 47 MB; this takes about a third.
type DB struct {
	// text holds every lemma, back to back; lemma i is
	// text[lemmaOff[i]:lemmaOff[i+1]].
	text     string
	lemmaOff []uint32
	ids      *wordindex.Index // lemma → its number, over text and lemmaOff
	// senses of lemma i as part of speech p (index into partsOfSpeech),
	// most frequent first: sense[p][senseOff[p][i]:senseOff[p][i+1]].
	senseOff [4][]uint32
	sense    [4][]int32
	// words of synset s (lemma numbers): synWords[synOff[s]:synOff[s+1]].
	synOff   []uint32
	synWords []int32
	// derivation links of synset s: links[linkOff[s]:linkOff[s+1]].
	linkOff []uint32
	links   []link
	// exceptions maps an irregular inflection to its base forms (mice →
	// mouse), per part of speech.
	exceptions map[lemmaKey][]string
}

type lemmaKey struct {
	pos   byte
	lemma string
}

// link is a derivation pointer from word number from of its synset to word
// number to of synset target (-1: a target the files lack).
type link struct {
	target   int32
	from, to uint8
}

// lemma returns lemma number i.
func (db *DB) lemma(i int32) string { return db.text[db.lemmaOff[i]:db.lemmaOff[i+1]] }

// synsetWords returns the lemma numbers of synset s.
func (db *DB) synsetWords(s int32) []int32 { return db.synWords[db.synOff[s]:db.synOff[s+1]] }

// synsetLinks returns the derivation links of synset s.
func (db *DB) synsetLinks(s int32) []link { return db.links[db.linkOff[s]:db.linkOff[s+1]] }

// synsetCount is how many synsets the database holds.
func (db *DB) synsetCount() int { return len(db.synOff) - 1 }

// senses returns the synsets of lemma as part of speech pos (a letter of
// partsOfSpeech), most frequent first, and whether the index lists it.
func (db *DB) senses(pos byte, lemma string) ([]int32, bool) {
	i, ok := db.ids.Lookup(lemma)
	if !ok {
		return nil, false
	}
	p := posIndex(pos)
	if p < 0 || int(i)+1 >= len(db.senseOff[p]) {
		return nil, false
	}
	from, to := db.senseOff[p][i], db.senseOff[p][i+1]
	return db.sense[p][from:to], to > from
}

// posIndex is pos's place in partsOfSpeech, -1 for none.
func posIndex(pos byte) int {
	for i, p := range partsOfSpeech {
		if p.letter == pos {
			return i
		}
	}
	return -1
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*DB{}
)

// Load returns the database in dir, reading it once per process: it takes
// a few hundred milliseconds and ~15 MB, so every user of one directory
// shares one copy.
func Load(dir string) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if db := loaded[abs]; db != nil {
		return db, nil
	}
	db, err := read(abs)
	if err != nil {
		return nil, err
	}
	loaded[abs] = db
	// Parsing 28 MB of text leaves about twice the database's size in
	// garbage; hand it back to the OS now rather than keep it resident.
	debug.FreeOSMemory()
	return db, nil
}

// Check reports, without reading them, whether the files Load needs are in
// dir: a cheap start-up test.
func Check(dir string) error {
	for _, p := range partsOfSpeech {
		for _, name := range []string{"data." + p.name, "index." + p.name, p.name + ".exc"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				return missing(err)
			}
		}
	}
	return nil
}

// read parses the data, index and exception files of every part of speech.
func read(dir string) (*DB, error) {
	b := newBuilder()
	// Pointers name their target by part of speech and byte offset; they
	// are resolved to synset numbers once every data file is read.
	offsets := map[byte]map[uint32]int32{}
	type pending struct {
		pos    byte
		offset uint32
	}
	var targets []pending // one per link, in order
	b.db.synOff = append(b.db.synOff, 0)
	b.db.linkOff = append(b.db.linkOff, 0)
	for _, p := range partsOfSpeech {
		offsets[p.letter] = map[uint32]int32{}
		err := eachLine(filepath.Join(dir, "data."+p.name), func(line string) error {
			rec, err := parseData(line)
			if err != nil {
				return err
			}
			offsets[p.letter][rec.offset] = int32(b.db.synsetCount())
			for _, w := range rec.words {
				b.db.synWords = append(b.db.synWords, b.id(w))
			}
			b.db.synOff = append(b.db.synOff, uint32(len(b.db.synWords)))
			for _, d := range rec.derived {
				b.db.links = append(b.db.links, link{target: -1, from: d.from, to: d.to})
				targets = append(targets, pending{d.pos, d.offset})
			}
			b.db.linkOff = append(b.db.linkOff, uint32(len(b.db.links)))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for i, t := range targets {
		if id, ok := offsets[t.pos][t.offset]; ok {
			b.db.links[i].target = id
		}
	}
	for pi, p := range partsOfSpeech {
		senses := map[int32][]int32{}
		err := eachLine(filepath.Join(dir, "index."+p.name), func(line string) error {
			lemma, offs, err := parseIndex(line)
			if err != nil {
				return err
			}
			ids := make([]int32, 0, len(offs))
			for _, o := range offs {
				if id, ok := offsets[p.letter][o]; ok {
					ids = append(ids, id)
				}
			}
			senses[b.id(lemma)] = ids
			return nil
		})
		if err != nil {
			return nil, err
		}
		b.flattenSenses(pi, senses)
		err = eachLine(filepath.Join(dir, p.name+".exc"), func(line string) error {
			f := strings.Fields(line)
			if len(f) >= 2 {
				// A form may be listed on several lines (involucra →
				// involucre, involucrum): keep every base.
				k := lemmaKey{p.letter, f[0]}
				b.db.exceptions[k] = append(b.db.exceptions[k], f[1:]...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if b.db.synsetCount() == 0 {
		return nil, fmt.Errorf("wordnet: %s holds no synsets", dir)
	}
	return b.finish(), nil
}

// builder numbers lemmas while the files are read.
type builder struct {
	db    *DB
	text  strings.Builder
	ids   map[string]int32
	order []string
}

func newBuilder() *builder {
	return &builder{db: &DB{exceptions: map[lemmaKey][]string{}}, ids: map[string]int32{}}
}

// id returns lemma's number, giving it the next one if new.
func (b *builder) id(lemma string) int32 {
	if i, ok := b.ids[lemma]; ok {
		return i
	}
	i := int32(len(b.order))
	b.ids[lemma] = i
	b.order = append(b.order, lemma)
	return i
}

// flattenSenses lays out part of speech pi's senses by lemma number. Index
// files name every lemma of their data file, so numbering is complete
// after all data files; index-only lemmas got numbers as they came.
func (b *builder) flattenSenses(pi int, senses map[int32][]int32) {
	n := len(b.order)
	off := make([]uint32, 0, n+1)
	var flat []int32
	off = append(off, 0)
	for i := range int32(n) {
		flat = append(flat, senses[i]...)
		off = append(off, uint32(len(flat)))
	}
	b.db.senseOff[pi], b.db.sense[pi] = off, flat
}

// finish writes the lemma text and its index, and pads every part of
// speech's sense offsets to the final number of lemmas (lemmas numbered
// by a later index file have no senses in an earlier one).
func (b *builder) finish() *DB {
	db := b.db
	db.lemmaOff = make([]uint32, 0, len(b.order)+1)
	for _, l := range b.order {
		db.lemmaOff = append(db.lemmaOff, uint32(b.text.Len()))
		b.text.WriteString(l)
	}
	db.lemmaOff = append(db.lemmaOff, uint32(b.text.Len()))
	db.text = b.text.String()
	db.ids = wordindex.New(db.text, db.lemmaOff)
	for p := range db.senseOff {
		for len(db.senseOff[p]) < len(b.order)+1 {
			db.senseOff[p] = append(db.senseOff[p], db.senseOff[p][len(db.senseOff[p])-1])
		}
	}
	return db
}

// missing is the error for a database file that cannot be opened: it says
// how to get one.
func missing(err error) error {
	return fmt.Errorf("wordnet: %w (install Debian's wordnet-base, or set search.wordnet_dir)", err)
}

// eachLine calls fn for every line of path that is not part of the
// license header (header lines start with a space).
func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return missing(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("wordnet: %s line %d: %w", filepath.Base(path), n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("wordnet: %s: %w", filepath.Base(path), err)
	}
	return nil
}

// dataRecord is the part of a data file line expansion uses.
type dataRecord struct {
	offset  uint32
	words   []string
	derived []pendingLink
}

type pendingLink struct {
	pos      byte
	offset   uint32
	from, to uint8
}

// parseData parses "offset lex_filenum ss_type w_cnt word lex_id ...
// p_cnt [ptr_symbol offset pos source/target]... | gloss" (wndb(5)).
func parseData(line string) (dataRecord, error) {
	var rec dataRecord
	if i := strings.Index(line, " | "); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) < 5 {
		return rec, fmt.Errorf("short synset record")
	}
	off, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return rec, fmt.Errorf("bad offset %q", f[0])
	}
	rec.offset = uint32(off)
	wc, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil {
		return rec, fmt.Errorf("bad word count %q", f[3])
	}
	k := 4
	for range wc {
		if k+1 >= len(f) {
			return rec, fmt.Errorf("synset %d: fewer words than its count", off)
		}
		rec.words = append(rec.words, lemmaForm(f[k]))
		k += 2
	}
	if k >= len(f) {
		return rec, fmt.Errorf("synset %d: no pointer count", off)
	}
	pc, err := strconv.Atoi(f[k])
	if err != nil {
		return rec, fmt.Errorf("synset %d: bad pointer count %q", off, f[k])
	}
	k++
	for range pc {
		if k+3 >= len(f) {
			return rec, fmt.Errorf("synset %d: fewer pointers than its count", off)
		}
		sym, target, pos, st := f[k], f[k+1], f[k+2], f[k+3]
		k += 4
		if sym != "+" || len(st) != 4 || len(pos) != 1 {
			continue
		}
		to, err1 := strconv.ParseUint(target, 10, 32)
		src, err2 := strconv.ParseUint(st[:2], 16, 8)
		dst, err3 := strconv.ParseUint(st[2:], 16, 8)
		if err1 != nil || err2 != nil || err3 != nil {
			return rec, fmt.Errorf("synset %d: bad pointer %s %s %s", off, target, pos, st)
		}
		p := pos[0]
		if p == 's' { // adjective satellites live in data.adj
			p = 'a'
		}
		rec.derived = append(rec.derived, pendingLink{pos: p, offset: uint32(to), from: uint8(src), to: uint8(dst)})
	}
	return rec, nil
}

// parseIndex parses "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt
// tagsense_cnt synset_offset..." (wndb(5)); offsets are in sense order.
func parseIndex(line string) (string, []uint32, error) {
	f := strings.Fields(line)
	if len(f) < 6 {
		return "", nil, fmt.Errorf("short index record")
	}
	pc, err := strconv.Atoi(f[3])
	if err != nil || 6+pc > len(f) {
		return "", nil, fmt.Errorf("bad pointer count in index record %q", f[0])
	}
	var offs []uint32
	for _, s := range f[6+pc:] {
		o, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return "", nil, fmt.Errorf("bad offset %q in index record %q", s, f[0])
		}
		offs = append(offs, uint32(o))
	}
	return f[0], offs, nil
}

// lemmaForm lowercases a data file word and drops an adjective marker
// such as "(a)" or "(p)".
func lemmaForm(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return strings.ToLower(w)
}

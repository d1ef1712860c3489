package wordnet

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The parts of speech, as WordNet's files name and letter them.
var partsOfSpeech = []struct {
	letter byte
	name   string
}{{'n', "noun"}, {'v', "verb"}, {'a', "adj"}, {'r', "adv"}}

// DB is a loaded WordNet database; it is read-only and safe for concurrent
// use.
type DB struct {
	synsets []synset
	// senses maps a lemma of one part of speech to its synsets, most
	// frequent sense first.
	senses map[lemmaKey][]int32
	// exceptions maps an irregular inflection to its base forms (mice →
	// mouse), per part of speech.
	exceptions map[lemmaKey][]string
}

type lemmaKey struct {
	pos   byte
	lemma string
}

// synset is one sense: the lemmas that express it and its lexical
// derivation links.
type synset struct {
	words   []string
	derived []link
}

// link is a derivation pointer from word number from of its synset to word
// number to of synset target.
type link struct {
	target   int32
	from, to uint8
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*DB{}
)

// Load returns the database in dir, reading it once per process: it takes
// a few hundred milliseconds and ~40 MB, so every user of one directory
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
	return db, nil
}

// Check reports, without reading them, whether the files Load needs are in
// dir: a cheap start-up test.
func Check(dir string) error {
	for _, p := range partsOfSpeech {
		for _, name := range []string{"data." + p.name, "index." + p.name, p.name + ".exc"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("wordnet: %w (install Debian's wordnet-base, or set search.wordnet_dir)", err)
			}
		}
	}
	return nil
}

// read parses the data, index and exception files of every part of speech.
func read(dir string) (*DB, error) {
	db := &DB{senses: map[lemmaKey][]int32{}, exceptions: map[lemmaKey][]string{}}
	intern := map[string]string{}
	// Pointers name their target by part of speech and byte offset; they
	// are resolved to synset numbers once every data file is read.
	offsets := map[byte]map[uint32]int32{}
	type pending struct {
		synset int32
		pos    byte
		offset uint32
		from   uint8
		to     uint8
	}
	var links []pending
	for _, p := range partsOfSpeech {
		offsets[p.letter] = map[uint32]int32{}
		err := eachLine(filepath.Join(dir, "data."+p.name), func(line string) error {
			rec, err := parseData(line)
			if err != nil {
				return err
			}
			id := int32(len(db.synsets))
			offsets[p.letter][rec.offset] = id
			words := make([]string, len(rec.words))
			for i, w := range rec.words {
				if s, ok := intern[w]; ok {
					words[i] = s
				} else {
					intern[w] = w
					words[i] = w
				}
			}
			db.synsets = append(db.synsets, synset{words: words})
			for _, d := range rec.derived {
				links = append(links, pending{id, d.pos, d.offset, d.from, d.to})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, l := range links {
		if t, ok := offsets[l.pos][l.offset]; ok {
			s := &db.synsets[l.synset]
			s.derived = append(s.derived, link{target: t, from: l.from, to: l.to})
		}
	}
	for _, p := range partsOfSpeech {
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
			db.senses[lemmaKey{p.letter, lemma}] = ids
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = eachLine(filepath.Join(dir, p.name+".exc"), func(line string) error {
			f := strings.Fields(line)
			if len(f) >= 2 {
				// An inflection may have several lines (noun.exc: "aurar
				// eyir", "aurar eyrir"): keep the bases of all of them.
				k := lemmaKey{p.letter, f[0]}
				db.exceptions[k] = append(db.exceptions[k], f[1:]...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(db.synsets) == 0 {
		return nil, fmt.Errorf("wordnet: %s holds no synsets", dir)
	}
	return db, nil
}

// eachLine calls fn for every line of path that is not part of the
// license header (header lines start with a space).
func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("wordnet: %w (install Debian's wordnet-base, or set search.wordnet_dir)", err)
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

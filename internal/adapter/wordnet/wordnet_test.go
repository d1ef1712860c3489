package wordnet

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ragd/internal/testkit/testenv"
)

// tinyDir is a hand-written database in the real wndb(5) format; its
// words and links are chosen to exercise one rule each (see the tests).
const tinyDir = "testdata/tiny"

// loadTiny loads the fixture database.
func loadTiny(t testing.TB) *DB {
	t.Helper()
	db, err := Load(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestFixtureOffsets checks the fixture itself: a synset line's first field
// must be its byte offset, and every pointer and index entry must name one
// of those offsets, or the tests below would test a broken database.
func TestFixtureOffsets(t *testing.T) {
	offsets := map[byte]map[string]bool{}
	for _, p := range partsOfSpeech {
		offsets[p.letter] = map[string]bool{}
		b, err := os.ReadFile(filepath.Join(tinyDir, "data."+p.name))
		if err != nil {
			t.Fatal(err)
		}
		for off, n := 0, 1; off < len(b); n++ {
			end := bytes.IndexByte(b[off:], '\n')
			if end < 0 {
				t.Fatalf("data.%s line %d: no final newline", p.name, n)
			}
			line := string(b[off : off+end])
			if !strings.HasPrefix(line, " ") {
				first, _, _ := strings.Cut(line, " ")
				if v, err := strconv.Atoi(first); err != nil || v != off {
					t.Errorf("data.%s line %d: offset field %s, byte offset %d", p.name, n, first, off)
				}
				if len(first) != 8 {
					t.Errorf("data.%s line %d: offset field %q is not 8 digits", p.name, n, first)
				}
				offsets[p.letter][first] = true
			}
			off += end + 1
		}
	}
	targetPOS := func(pos string) byte {
		if pos == "s" {
			return 'a'
		}
		return pos[0]
	}
	for _, p := range partsOfSpeech {
		eachFixtureLine(t, "data."+p.name, func(n int, line string) {
			rec, err := parseData(line)
			if err != nil {
				t.Fatalf("data.%s line %d: %v", p.name, n, err)
			}
			// Every pointer, derivation or not: "sym offset pos st".
			f := strings.Fields(line[:strings.Index(line, " | ")])
			k := 4 + 2*len(rec.words)
			pc, _ := strconv.Atoi(f[k])
			for i := range pc {
				off, pos := f[k+2+4*i], f[k+3+4*i]
				if !offsets[targetPOS(pos)][off] {
					t.Errorf("data.%s line %d: pointer to %s %s, no such synset", p.name, n, off, pos)
				}
			}
		})
		eachFixtureLine(t, "index."+p.name, func(n int, line string) {
			f := strings.Fields(line)
			_, offs, err := parseIndex(line)
			if err != nil {
				t.Fatalf("index.%s line %d: %v", p.name, n, err)
			}
			if cnt, _ := strconv.Atoi(f[2]); cnt != len(offs) {
				t.Errorf("index.%s line %d: synset_cnt %d, %d offsets", p.name, n, cnt, len(offs))
			}
			for _, o := range f[len(f)-len(offs):] {
				if !offsets[p.letter][o] {
					t.Errorf("index.%s line %d: offset %s, no such synset", p.name, n, o)
				}
			}
		})
	}
}

// eachFixtureLine calls fn with every non-header line of a fixture file and
// its line number.
func eachFixtureLine(t *testing.T, name string, fn func(n int, line string)) {
	t.Helper()
	f, err := os.Open(filepath.Join(tinyDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); line != "" && line[0] != ' ' {
			fn(n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestRelated(t *testing.T) {
	db := loadTiny(t)
	for _, c := range []struct {
		word   string
		senses int
		want   []string
	}{
		// Synonyms and a derivation; "00000000 a" and "00000000 v" are
		// different synsets: offsets are per part of speech.
		{"urgent", 1, []string{"pressing", "urgency"}},
		{"urgency", 1, []string{"urgent"}},
		// Only "+" pointers are followed, not the pertainym "\".
		{"urgently", 1, []string{"pressingly"}},
		// verify's synset also links confirm → confirmation: that link is
		// confirm's, not verify's.
		{"verify", 1, []string{"confirm", "verification"}},
		// The link names its target word: confirmation, not affirmation.
		{"confirm", 1, []string{"verify", "confirmation"}},
		{"confirmation", 1, []string{"affirmation", "confirm"}},
		// Inflections: suffix rule ies → y, and the case is folded.
		{"verifies", 1, []string{"confirm", "verification"}},
		{"Verify", 1, []string{"confirm", "verification"}},
		// Each word of one synset has its own links.
		{"conceal", 1, []string{"hide", "concealment", "concealed"}},
		{"hide", 1, []string{"conceal", "hiding", "hidden"}},
		// "hidden(a)" is the lemma hidden; verb.exc makes it hide too,
		// so hide is skipped, while hide's link to hiding is followed.
		{"hidden", 1, []string{"conceal", "hiding", "concealed"}},
		// Suffix rule ed → "" (verb conceal) and the adjective itself.
		{"concealed", 1, []string{"hide", "concealment", "hidden"}},
		// A link to an adjective satellite, pointer pos "s".
		{"concealment", 1, []string{"hiding", "conceal", "hidden"}},
		// hiding → hide (ing → e) is a base form: never returned, even
		// though the noun hiding's link points at it.
		{"hiding", 1, []string{"concealment", "conceal", "hidden"}},
		// Frequency order comes from the index, not the data file (the
		// priority_queue synset comes first there).
		{"heap", 1, []string{"pile", "mound"}},
		{"heap", 2, []string{"pile", "mound", "priority", "queue"}},
		{"heap", 9, []string{"pile", "mound", "priority", "queue"}},
		// Multi-word lemmas are split, the parts of the word itself too.
		{"priority_queue", 1, []string{"priority", "queue", "heap"}},
		// noun.exc mice → mouse; "computer_mouse" gives computer, not the
		// skipped mouse.
		{"mice", 1, []string{"computer"}},
		{"mice", 2, []string{"computer", "shiner", "black", "eye"}},
		{"mouse", 2, []string{"computer", "shiner", "black", "eye"}},
		// verb.exc running → run (morphy's rules do not undouble "nn").
		{"running", 1, []string{"sprint"}},
		{"runs", 1, []string{"sprint"}},
		// noun.exc has two lines for axes, and the rule s → "" gives axe.
		{"axes", 1, []string{"pivot"}},
		{"heap", 0, nil},
		{"heap", -1, nil},
		{"unknown", 1, nil},
		{"", 1, nil},
	} {
		got := db.Related(c.word, c.senses)
		if !slices.Equal(got, c.want) {
			t.Errorf("Related(%q, %d) = %q, want %q", c.word, c.senses, got, c.want)
		}
	}
}

// TestRelatedNeverReturnsBaseForms checks, for every lemma of the fixture
// and some inflections, that neither the word nor a base form of it comes
// back, and that nothing comes back twice.
func TestRelatedNeverReturnsBaseForms(t *testing.T) {
	db := loadTiny(t)
	words := []string{"mice", "axes", "running", "runs", "verifies", "concealed", "hiding", "hidden"}
	for i := range int32(len(db.lemmaOff) - 1) {
		words = append(words, db.lemma(i))
	}
	for _, w := range words {
		got := db.Related(w, 2)
		bad := map[string]bool{w: true}
		for _, p := range partsOfSpeech {
			for _, b := range db.baseForms(w, p.letter) {
				bad[b] = true
			}
		}
		seen := map[string]bool{}
		for _, r := range got {
			if bad[r] {
				t.Errorf("Related(%q) = %q: holds the word or its base form %q", w, got, r)
			}
			if seen[r] {
				t.Errorf("Related(%q) = %q: %q twice", w, got, r)
			}
			if r == "" || strings.ContainsAny(r, "_-'. ") {
				t.Errorf("Related(%q) = %q: %q is not a single word", w, got, r)
			}
			seen[r] = true
		}
	}
}

// TestRelatedStable checks that the order does not depend on map iteration
// and that concurrent callers (the DB is shared) see the same answers.
func TestRelatedStable(t *testing.T) {
	db := loadTiny(t)
	words := []string{"heap", "mice", "hidden", "concealed", "verify", "urgent"}
	want := map[string][]string{}
	for _, w := range words {
		want[w] = db.Related(w, 2)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				for _, w := range words {
					if got := db.Related(w, 2); !slices.Equal(got, want[w]) {
						t.Errorf("Related(%q) = %q, earlier %q", w, got, want[w])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestBaseForms(t *testing.T) {
	db := loadTiny(t)
	for _, c := range []struct {
		word string
		pos  byte
		want []string
	}{
		{"mouse", 'n', []string{"mouse"}},
		{"mice", 'n', []string{"mouse"}},
		// Both noun.exc lines, then the rule s → "" (xes → x gives ax
		// again, not twice).
		{"axes", 'n', []string{"ax", "axis", "axe"}},
		{"heaps", 'n', []string{"heap"}},
		{"verifies", 'v', []string{"verify"}},
		{"concealed", 'v', []string{"conceal"}},
		{"concealed", 'a', []string{"concealed"}},
		{"hiding", 'v', []string{"hide"}},
		{"hiding", 'n', []string{"hiding"}},
		{"running", 'v', []string{"run"}},
		{"hidden", 'v', []string{"hide"}},
		// adj.exc says worse → bad, but bad is no adjective here.
		{"worse", 'a', nil},
		// Rules are per part of speech: no verb rules for nouns.
		{"verifies", 'n', nil},
		{"running", 'r', nil},
	} {
		if got := db.baseForms(c.word, c.pos); !slices.Equal(got, c.want) {
			t.Errorf("baseForms(%q, %c) = %q, want %q", c.word, c.pos, got, c.want)
		}
	}
}

func TestLoadMemoized(t *testing.T) {
	a := loadTiny(t)
	abs, err := filepath.Abs(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	// The same directory by another name is the same database.
	for _, dir := range []string{tinyDir, abs, "./" + tinyDir + "/", filepath.Join(tinyDir, "..", "tiny")} {
		b, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("Load(%q) read the database again", dir)
		}
	}
	// read itself does not memoize.
	c, err := read(abs)
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Error("read returned the memoized database")
	}
	if c.synsetCount() != a.synsetCount() {
		t.Errorf("read: %d synsets, Load %d", c.synsetCount(), a.synsetCount())
	}
}

func TestLoadContents(t *testing.T) {
	db := loadTiny(t)
	// 10 nouns, 3 verbs, 3 adjectives, 1 adverb: the header lines are
	// no synsets.
	if db.synsetCount() != 17 {
		t.Errorf("%d synsets, want 17", db.synsetCount())
	}
	ids, _ := db.senses('a', "hidden")
	if len(ids) != 1 {
		t.Fatalf("hidden: senses %v", ids)
	}
	// The adjective marker is dropped; links are resolved to synsets.
	var words []string
	for _, w := range db.synsetWords(ids[0]) {
		words = append(words, db.lemma(w))
	}
	if !slices.Equal(words, []string{"hidden", "concealed"}) {
		t.Errorf("hidden's synset words %q", words)
	}
	links := db.synsetLinks(ids[0])
	if len(links) != 2 {
		t.Errorf("hidden's synset: %d derivation links, want 2 (the & pointer is not one)", len(links))
	}
	concealIDs, _ := db.senses('v', "conceal")
	conceal := concealIDs[0]
	for _, l := range links {
		if l.target != conceal {
			t.Errorf("link %+v: target is not conceal's synset %d", l, conceal)
		}
	}
	// The exception lists are per part of speech.
	if _, ok := db.exceptions[lemmaKey{'v', "mice"}]; ok {
		t.Error("mice is a verb exception")
	}
	if got := db.exceptions[lemmaKey{'n', "axes"}]; !slices.Equal(got, []string{"ax", "axis"}) {
		t.Errorf("axes: exceptions %q", got)
	}
}

func TestLoadMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	for range 2 { // a failure is not memoized as a database
		db, err := Load(dir)
		if err == nil || db != nil {
			t.Fatalf("Load of a missing directory = %v, %v", db, err)
		}
		if !strings.Contains(err.Error(), "wordnet-base") || !strings.Contains(err.Error(), "data.noun") {
			t.Errorf("error %q does not name data.noun and wordnet-base", err)
		}
	}
}

// copyTiny copies the fixture into a temporary directory for a test to
// break.
func copyTiny(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(tinyDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadMalformed(t *testing.T) {
	for _, c := range []struct {
		name, file, line, want string
	}{
		{"word count", "data.noun", "00001200 06 n zz heap 0 000 | bad", `bad word count "zz"`},
		{"few words", "data.noun", "00001200 06 n 03 heap 0 000 | bad", "fewer words than its count"},
		{"few pointers", "data.noun", "00001200 06 n 01 heap 0 002 + 00000311 n 0101 | bad", "fewer pointers than its count"},
		{"pointer count", "data.verb", "00000500 38 v 01 run 0 x01 | bad", `bad pointer count "x01"`},
		{"no pointer count", "data.adj", "00000400 00 a 01 urgent 0 | bad", "no pointer count"},
		{"offset", "data.adv", "0000011x 02 r 01 urgently 0 000 | bad", `bad offset "0000011x"`},
		{"short", "data.noun", "00001200 06 n | bad", "short synset record"},
		{"pointer", "data.noun", "00001200 06 n 01 heap 0 001 + 0000031x n 0101 | bad", "bad pointer 0000031x n 0101"},
		{"index short", "index.noun", "zebra n 1 0", "short index record"},
		{"index pointer count", "index.verb", "zoom v 1 5 + 1 0 00000324", `bad pointer count in index record "zoom"`},
		{"index offset", "index.adj", "zany a 1 0 1 0 0000000x", `bad offset "0000000x" in index record "zany"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTiny(t)
			path := filepath.Join(dir, c.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The broken line is appended: its number is one past the file's.
			n := bytes.Count(b, []byte("\n")) + 1
			b = append(b, c.line+"  \n"...)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = read(dir)
			if err == nil {
				t.Fatalf("no error for %q in %s", c.line, c.file)
			}
			for _, want := range []string{c.file + " line " + strconv.Itoa(n) + ":", c.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	for _, name := range []string{"data.adv", "index.verb", "adj.exc"} {
		dir := copyTiny(t)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		_, err := read(dir)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "wordnet-base") {
			t.Errorf("without %s: error %v", name, err)
		}
	}
}

func TestLoadEmpty(t *testing.T) {
	dir := t.TempDir()
	for _, p := range partsOfSpeech {
		for _, name := range []string{"data." + p.name, "index." + p.name, p.name + ".exc"} {
			// A license header alone holds no synsets.
			if err := os.WriteFile(filepath.Join(dir, name), []byte("  1 header  \n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := read(dir); err == nil || !strings.Contains(err.Error(), "no synsets") {
		t.Errorf("empty database: error %v", err)
	}
}

// TestLoadDanglingPointer checks that a link to an offset no synset has is
// dropped rather than resolved to some other synset.
func TestLoadDanglingPointer(t *testing.T) {
	dir := copyTiny(t)
	path := filepath.Join(dir, "data.noun")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// urgency's link to urgent: offset 0 of data.adj becomes 1.
	old := []byte("urgency 0 001 + 00000000 a 0101")
	if !bytes.Contains(b, old) {
		t.Fatal("fixture changed: no urgency line")
	}
	b = bytes.Replace(b, old, []byte("urgency 0 001 + 00000001 a 0101"), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := db.Related("urgency", 1); len(got) != 0 {
		t.Errorf("Related(urgency) = %q, want nothing", got)
	}
}

func TestParseData(t *testing.T) {
	// A verb line: frames follow the pointers, and the gloss may hold
	// anything, "|" included.
	rec, err := parseData(`00000153 39 v 02 Conceal 0 hide 0 002 + 00001034 n 0101 @ 00000001 v 0000 02 + 08 00 + 09 00 | hide | or "keep" 0101  `)
	if err != nil {
		t.Fatal(err)
	}
	if rec.offset != 153 || !slices.Equal(rec.words, []string{"conceal", "hide"}) {
		t.Errorf("record %+v", rec)
	}
	want := []pendingLink{{pos: 'n', offset: 1034, from: 1, to: 1}}
	if !slices.Equal(rec.derived, want) {
		t.Errorf("links %+v, want %+v", rec.derived, want)
	}
	// Word counts are hex, source/target numbers too; "s" is data.adj.
	words := strings.Repeat("w 0 ", 17)
	rec, err = parseData("00000007 00 a 11 " + words + "001 + 00000042 s 110a | gloss")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.words) != 17 {
		t.Errorf("%d words, want 17", len(rec.words))
	}
	want = []pendingLink{{pos: 'a', offset: 42, from: 17, to: 10}}
	if !slices.Equal(rec.derived, want) {
		t.Errorf("links %+v, want %+v", rec.derived, want)
	}
}

func TestLemmaForm(t *testing.T) {
	for in, want := range map[string]string{
		"hidden(a)":      "hidden",
		"galore(ip)":     "galore",
		"Apple":          "apple",
		"priority_queue": "priority_queue",
		"(odd":           "(odd",
	} {
		if got := lemmaForm(in); got != want {
			t.Errorf("lemmaForm(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRealDatabase checks, on the installed WordNet, relations that query
// expansion relies on.
func TestRealDatabase(t *testing.T) {
	db, err := Load(testenv.WordNetDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word string
		want []string
	}{
		{"urgent", []string{"urgency", "pressing"}},
		{"verify", []string{"verification", "verifiable"}},
		{"verifies", []string{"verification"}},
		{"hidden", []string{"concealed", "conceal"}},
		{"search", []string{"hunt", "seek", "searcher"}},
		{"priority", []string{"precedence", "prioritize"}},
		// noun.exc mice → mouse.
		{"mice", []string{"mousy"}},
		// adj.exc has two lines for offer (off, offer).
		{"offer", []string{"offering"}},
	} {
		got := db.Related(c.word, 1)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Related(%q, 1) = %q, lacks %q", c.word, got, w)
			}
		}
		if slices.Contains(got, c.word) {
			t.Errorf("Related(%q, 1) = %q, holds the word", c.word, got)
		}
	}
	// Both lines of a repeated exception count: involucra → involucre
	// and involucrum, of which the index has involucre only.
	if got := db.baseForms("involucra", 'n'); !slices.Equal(got, []string{"involucre"}) {
		t.Errorf("baseForms(involucra) = %q", got)
	}
	if got := db.exceptions[lemmaKey{'a', "offer"}]; !slices.Equal(got, []string{"off", "offer"}) {
		t.Errorf("adj.exc offer: %q", got)
	}
}

func BenchmarkLoad(b *testing.B) {
	dir := testenv.WordNetDir(b)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var db *DB
	for b.Loop() {
		var err error
		// read, not Load: Load would read once and then only look up.
		if db, err = read(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	// What one loaded database keeps alive.
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "heap-MB")
	runtime.KeepAlive(db)
}

func BenchmarkRelated(b *testing.B) {
	db, err := Load(testenv.WordNetDir(b))
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"urgent", "verify", "hidden", "running", "mice", "search", "documents", "configuration"}
	for b.Loop() {
		for _, w := range words {
			db.Related(w, 1)
		}
	}
}

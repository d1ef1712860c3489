package answer

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage is a retrieved chunk an answer may draw on, in rank order.
type Passage struct {
	ChunkID, DocumentID, Source, Path, Text string
	Page                                    int
	Score                                   float64
}

// DefaultExtractSentences is how many sentences Extract picks when asked for
// none or fewer.
const DefaultExtractSentences = 3

// Tuning of the extractive scorer.
const (
	// rankBonus is added to a matching sentence of the top passage; the
	// passage at rank r gets rankBonus/(r+1). Small, so it mostly breaks ties.
	rankBonus = 0.3
	// shortWords and longWords bound a sentence's comfortable length; outside
	// them the score is scaled down.
	shortWords, longWords = 4, 60
	// nearDuplicate is the Jaccard similarity of word sets above which a
	// sentence repeats one already picked (chunk overlap, boilerplate).
	nearDuplicate = 0.7
	// minRelativeScore drops sentences far weaker than the best, which only
	// share an incidental word with the query.
	minRelativeScore = 0.35
	// codePenalty scales the score of a line of code (see codeLines): a
	// command or a JSON body quoting the question's words reads badly as an
	// answer, so prose saying as much comes first; but a command is still
	// the answer when no prose matches better ("how do I run the tests"
	// over a README whose answer is `make test`).
	codePenalty = 0.5
)

// candidate is one sentence of one passage.
type candidate struct {
	passage, pos int
	text         string
	words        map[string]bool // every word, for near-duplicate checks
	terms        map[string]bool // content words, for scoring
	nWords       int
	code         bool
	score        float64
}

// Extract picks up to maxSentences sentences from passages that best match
// query and returns them joined into an answer, each followed by its
// citation marker [n] where n is the 1-based index of its passage in
// passages; and the list of passage indexes (0-based) cited, in citation
// order. A sentence scores the sum of the IDF (over all candidate sentences)
// of the query terms it contains, scaled down when very short or very long
// and when it is a line of code, plus a small bonus for an early passage.
// The picks skip near-duplicates, and code when prose answers (see pick),
// and read in document order. The answer is empty when no sentence shares a
// term with the query.
func Extract(query string, passages []Passage, maxSentences int) (answer string, cited []int) {
	if maxSentences <= 0 {
		maxSentences = DefaultExtractSentences
	}
	qterms := queryTerms(query)
	if len(qterms) == 0 {
		return "", nil
	}
	var cands []*candidate
	for i, p := range passages {
		for j, s := range splitSentences(p.Text) {
			words := words(s.text)
			if len(words) == 0 {
				continue
			}
			c := &candidate{passage: i, pos: j, text: s.text, nWords: len(words), code: s.code, words: map[string]bool{}, terms: map[string]bool{}}
			for _, w := range words {
				c.words[w] = true
				if isTerm(w) {
					c.terms[w] = true
				}
			}
			cands = append(cands, c)
		}
	}
	matched := score(cands, qterms, definitionSubject(query))
	if len(matched) == 0 {
		return "", nil
	}
	picked := pick(matched, maxSentences)
	sort.Slice(picked, func(a, b int) bool { return docOrder(picked[a], picked[b]) })

	var sb strings.Builder
	seen := map[int]bool{}
	for i, c := range picked {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(c.text)
		sb.WriteString(" [" + strconv.Itoa(c.passage+1) + "]")
		if !seen[c.passage] {
			seen[c.passage] = true
			cited = append(cited, c.passage)
		}
	}
	return sb.String(), cited
}

// score sets the score of every candidate containing a query term and
// returns those, best first (ties in document order, for determinism).
//
// For a definitional question ("what is a data race?") a sentence that
// states the definition ("a data race is …", "… is defined as …") counts
// double: it is the answer, where other sentences only mention the subject.
func score(cands []*candidate, qterms []string, subject string) []*candidate {
	df := map[string]int{}
	for _, c := range cands {
		for _, t := range qterms {
			if c.terms[t] {
				df[t]++
			}
		}
	}
	n := float64(len(cands))
	var matched []*candidate
	for _, c := range cands {
		s := 0.0
		for _, t := range qterms {
			if c.terms[t] {
				s += math.Log(1 + n/float64(df[t]))
			}
		}
		if s == 0 {
			continue
		}
		switch {
		case c.nWords < shortWords && !c.code: // a command is whole in two words
			s *= 0.5
		case c.nWords > longWords:
			s *= math.Max(0.4, float64(longWords)/float64(c.nWords))
		}
		if c.code {
			s *= codePenalty
		}
		if subject != "" && defines(c.text, subject) {
			s *= 2
		}
		c.score = s + rankBonus/float64(c.passage+1)
		matched = append(matched, c)
	}
	sort.SliceStable(matched, func(a, b int) bool {
		if matched[a].score != matched[b].score {
			return matched[a].score > matched[b].score
		}
		return docOrder(matched[a], matched[b])
	})
	return matched
}

var definitionQuestion = regexp.MustCompile(`(?i)^\s*(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)|define|definition\s+of|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)[\s?.!]*$`)

// definitionSubject returns X of "what is X?", lowercased, or "".
func definitionSubject(query string) string {
	m := definitionQuestion.FindStringSubmatch(query)
	if m == nil {
		return ""
	}
	return strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
}

// defines reports whether sentence states what subject is.
func defines(sentence, subject string) bool {
	lower := strings.ToLower(strings.Join(strings.Fields(sentence), " "))
	for _, verb := range []string{" is ", " are ", " refers to ", " means ", " is defined as ", " are defined as "} {
		if strings.Contains(lower, subject+verb) || strings.Contains(lower, subject+"s"+verb) {
			return true
		}
	}
	return false
}

// pick takes the best-scoring sentences, skipping near-duplicates of those
// already taken and any far weaker than the best. Lines of code are taken
// only when no prose sentence passes that floor: a command after the prose
// that explains it repeats it badly, and filling the remaining places with
// the snippet's lines made answers of command lines.
func pick(ranked []*candidate, max int) []*candidate {
	var picked []*candidate
	floor := ranked[0].score * minRelativeScore
	prose := slices.ContainsFunc(ranked, func(c *candidate) bool { return !c.code && c.score >= floor })
	for _, c := range ranked {
		if len(picked) == max || c.score < floor {
			break
		}
		if prose && c.code {
			continue
		}
		dup := false
		for _, p := range picked {
			if jaccard(c.words, p.words) > nearDuplicate {
				dup = true
				break
			}
		}
		if !dup {
			picked = append(picked, c)
		}
	}
	return picked
}

func docOrder(a, b *candidate) bool {
	if a.passage != b.passage {
		return a.passage < b.passage
	}
	return a.pos < b.pos
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// NotFoundAnswer is the answer given when the indexed documents hold nothing
// that answers query.
func NotFoundAnswer(query string) string {
	q := strings.Join(strings.Fields(query), " ")
	if q == "" {
		return "The indexed documents do not contain an answer to this question."
	}
	if utf8.RuneCountInString(q) > 200 {
		q = string([]rune(q)[:200]) + "…"
	}
	return `The indexed documents do not contain an answer to "` + q + `".`
}

// queryTerms returns the distinct content words of query, in order.
func queryTerms(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(query) {
		if isTerm(w) && !queryFiller[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// words splits s into lowercase, lightly stemmed words (runs of letters and
// digits).
func words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		fields[i] = stem(f)
	}
	return fields
}

// isTerm reports whether w carries meaning: not a stopword, and not a lone
// letter (variable names like x in technical prose).
func isTerm(w string) bool {
	if stopwords[w] {
		return false
	}
	r, n := utf8.DecodeRuneInString(w)
	return n < len(w) || unicode.IsDigit(r)
}

// stem folds plurals so "races" matches "race"; deliberately tiny, since a
// wrong stem costs more than a missed one.
func stem(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

// stopwords are common English words that say nothing about a topic.
// "once" is left out on purpose: it names things (sync.Once).
var stopwords = setOf(`a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing done down during each
either etc few for from further had has have having he her here hers herself him himself his how
i if in into is it its itself just may me might more most must my myself no nor not now of off
on only or other ought our ours ourselves out over own same shall she should so some such
than that the their theirs them themselves then there these they this those through to too under
until up upon us very was we were what when where whether which while who whom whose why will
with within without would yet you your yours yourself yourselves`)

// queryFiller are words that frame a question rather than name its topic.
var queryFiller = setOf(`answer define definition describe explain know meaning mean please show tell`)

// setOf builds a lookup set holding each word and its stem.
func setOf(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w], m[stem(w)] = true, true
	}
	return m
}

// sentence is one sentence of a passage, or one line of its code.
type sentence struct {
	text string
	code bool
}

// splitSentences splits passage text into sentences: each line is a unit
// (list items, table rows and headings stand alone) except that a line
// continuing a hard-wrapped sentence is joined to it; within a unit a
// sentence ends at '.', '!' or '?' followed by a space and a capital or
// digit, unless the word before is an abbreviation or an initial. A line of
// code (see codeLines) is a sentence of its own, never split or joined, and
// code fences are dropped.
func splitSentences(text string) []sentence {
	var out []sentence
	for _, unit := range lineUnits(text) {
		if unit.code {
			out = append(out, unit)
			continue
		}
		for _, s := range splitUnit(unit.text) {
			out = append(out, sentence{text: s})
		}
	}
	return out
}

// lineUnits groups the lines of text into units, stripping list markers.
func lineUnits(text string) []sentence {
	var units []sentence
	lines := strings.Split(text, "\n")
	code := codeLines(lines)
	prev := "" // the previous raw line, to decide whether the next continues it
	for i, line := range lines {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || isFence(line) {
			prev = ""
			continue
		}
		if code[i] || isCommandLine(line, prev) {
			units = append(units, sentence{text: line, code: true})
			prev = "" // nothing continues a line of code
			continue
		}
		structural := isStructural(line)
		if len(units) > 0 && prev != "" && !structural && !endsSentence(prev) && !isHeadingOrRow(prev) &&
			(startsLower(line) || utf8.RuneCountInString(prev) >= 40) {
			units[len(units)-1].text += " " + line
		} else {
			units = append(units, sentence{text: stripMarker(line)})
		}
		prev = line
	}
	return units
}

// isStructural reports a line that starts its own unit: a list item, table
// row or markdown heading.
func isStructural(line string) bool {
	if isHeadingOrRow(line) || stripMarker(line) != line {
		return true
	}
	return false
}

// isHeadingOrRow reports a markdown heading or a table row: "| a | b |" as
// written, or "a | b" as ingest renders a row's cells.
func isHeadingOrRow(line string) bool {
	return strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") || strings.Contains(line, " | ")
}

// stripMarker removes a leading list marker: "- ", "* ", "• ", "1. ", "2) ".
func stripMarker(line string) string {
	for _, m := range []string{"- ", "* ", "• ", "+ "} {
		if strings.HasPrefix(line, m) {
			return strings.TrimSpace(line[len(m):])
		}
	}
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return strings.TrimSpace(line[i+2:])
	}
	return line
}

func endsSentence(line string) bool {
	line = strings.TrimRight(line, `"')]”’»*_`)
	r, _ := utf8.DecodeLastRuneInString(line)
	return strings.ContainsRune(".!?:;", r)
}

func startsLower(line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	return unicode.IsLower(r)
}

// splitUnit splits one line unit at sentence ends.
func splitUnit(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '.' && s[i] != '!' && s[i] != '?' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte(`.!?`, s[j]) >= 0 {
			j++
		}
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(`"')]”’»`, r) {
				break
			}
			j += n
		}
		if j >= len(s) || s[j] != ' ' || !startsSentence(s[j+1:]) || insideSpan(s, i) {
			continue
		}
		if s[i] == '.' && isAbbreviation(s[start:i]) {
			continue
		}
		out = append(out, strings.TrimSpace(s[start:j]))
		start = j + 1
		i = j
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// startsSentence reports whether s opens with a capital or digit, perhaps
// behind an opening quote or bracket.
func startsSentence(s string) bool {
	s = strings.TrimLeft(s, `"'([“‘«`)
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.IsDigit(r)
}

// abbreviations end in a period without ending a sentence.
var abbreviations = setOf(`al approx cf ch co corp dept dr eq est fig figs inc jr ltd mr mrs ms no
nos p pp prof sec sr st vol vs`)

// isAbbreviation reports whether the text before a period ends with an
// abbreviation: a known one, a dotted one ("e.g", "U.S") or an initial
// ("J" in "Hans-J. Boehm").
func isAbbreviation(before string) bool {
	word := before[strings.LastIndexAny(before, " (\"'“‘-")+1:]
	if word == "" {
		return false
	}
	if abbreviations[strings.ToLower(word)] {
		return true
	}
	dotted := strings.Contains(word, ".")
	for _, part := range strings.Split(word, ".") {
		if utf8.RuneCountInString(part) != 1 {
			dotted = false
		}
	}
	if dotted {
		return true
	}
	r, n := utf8.DecodeRuneInString(word)
	return n == len(word) && unicode.IsUpper(r)
}

// insideSpan reports whether byte i of s lies inside a span a sentence does
// not end in: an inline code span (`…`), a formula ($…$) or brackets, each
// opened before i and closed after it. A mark left open for good ("a $5
// fee", "1) first") does not hold the rest of the unit together.
func insideSpan(s string, i int) bool {
	for _, q := range []string{"`", "$"} {
		if strings.Count(s[:i], q)%2 == 1 && strings.Contains(s[i:], q) {
			return true
		}
	}
	for _, p := range [][2]string{{"(", ")"}, {"[", "]"}} {
		if strings.Count(s[:i], p[0]) > strings.Count(s[:i], p[1]) && strings.Contains(s[i:], p[1]) {
			return true
		}
	}
	return false
}

// isCommandLine reports a line pasted from a shell into prose, not set off
// as a block of code ("Build it:" then "make build && export PATH=…" then
// prose): it does not end like a sentence, and either reads as code
// (looksLikeCode) or, after a finished sentence or a blank line (prev),
// opens with a lowercase word and holds a word of code ("go install
// example.com/x@latest"). Such a line is a unit of code of its own, never
// joined to the sentence after it.
func isCommandLine(line, prev string) bool {
	if endsSentence(line) || isStructural(line) {
		return false
	}
	if looksLikeCode(line) {
		return true
	}
	if !startsLower(line) || (prev != "" && !endsSentence(prev)) {
		return false
	}
	return slices.ContainsFunc(strings.Fields(line)[1:], isCodeToken)
}

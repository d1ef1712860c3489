package wordnet

import "sync"

// Lazy is a database read on first use: a process that never expands a
// query (an ingest worker) never pays the read (~0.4 s, ~15 MB). It
// implements ragd.Thesaurus; until the database is read, or if it cannot
// be, it relates no words.
type Lazy struct {
	dir   string
	onErr func(error)
	once  sync.Once
	db    *DB
}

// NewLazy returns a Lazy for the database in dir; onErr, if not nil, is
// told once if it cannot be read.
func NewLazy(dir string, onErr func(error)) *Lazy {
	return &Lazy{dir: dir, onErr: onErr}
}

// Load reads the database unless done already (Load is shared per
// directory) and returns it, or nil if it cannot be read.
func (l *Lazy) Load() *DB {
	l.once.Do(func() {
		db, err := Load(l.dir)
		if err != nil && l.onErr != nil {
			l.onErr(err)
		}
		l.db = db
	})
	return l.db
}

// Related is DB.Related, reading the database first if needed.
func (l *Lazy) Related(word string, senses int) []string {
	if db := l.Load(); db != nil {
		return db.Related(word, senses)
	}
	return nil
}

// BaseForms is DB.BaseForms, reading the database first if needed.
func (l *Lazy) BaseForms(word string) []string {
	if db := l.Load(); db != nil {
		return db.BaseForms(word)
	}
	return nil
}

package ragd

// Thesaurus relates words to others of like meaning (wordnet.DB): query
// expansion adds them to a search, and ingest stores them with a chunk so
// a question in other words still finds it. Implementations must be safe
// for concurrent use.
type Thesaurus interface {
	// Related returns the words related to word (lowercase, any
	// inflection) in its first senses senses: synonyms and derived forms,
	// as base forms.
	Related(word string, senses int) []string
	// BaseForms returns the base forms word may be an inflection of
	// (tasks → task, ran → run), word itself first if it is one.
	BaseForms(word string) []string
}

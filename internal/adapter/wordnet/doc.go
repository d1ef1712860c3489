// Package wordnet reads the Princeton WordNet 3.0 lexical database in the
// form Debian's wordnet-base package installs it (/usr/share/wordnet:
// data.*, index.* and *.exc for nouns, verbs, adjectives and adverbs), for
// query expansion with synonyms and derivationally related words: a user
// asks about "urgent" tasks, the documents say "urgency"; "verify" finds
// "verification".
//
// Only what expansion needs is kept in memory: each synset's words and its
// derivation links, and each lemma's senses in frequency order.
package wordnet

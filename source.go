package ragd

import (
	"time"
)

// A source is a place outside ragd's disk that a knowledge base keeps in
// sync: a Git repository today (SourceGit). Each document a source brings
// has a source URI of its own kind, built and taken apart here
// (GitURI, GitURIPrefix), so its id follows from it as every document's
// does (DocumentID).

// SourceKind names what a source reads.
type SourceKind string

// The kinds of source. A ragd syncs those it has a syncer for (package
// sourcesync); the others are refused by name.
const (
	SourceGit       SourceKind = "git"
	SourceWeb       SourceKind = "web"
	SourceS3        SourceKind = "s3"
	SourceDirectory SourceKind = "directory"
)

// Source is a source as ragd records it: what to read, into which
// namespace, how often, and how its last sync went.
type Source struct {
	ID        string     `json:"source_id" jsonschema:"the source's id"`
	Namespace string     `json:"kb_name" jsonschema:"the knowledge base its documents go to"`
	Kind      SourceKind `json:"kind" jsonschema:"what it reads: git, web, s3 or directory"`
	URL       string     `json:"url" jsonschema:"where it reads from: for git an https://, http://, git://, ssh:// (or user@host:path) or file:// URL; for web the start page; for s3 s3://<bucket>/<prefix>; for directory an absolute path inside the ingest roots"`
	Ref       string     `json:"ref,omitempty" jsonschema:"the branch or tag synced; absent: the remote's default branch"`
	Include   []string   `json:"include,omitempty" jsonschema:"globs of paths to index (** crosses directories); absent: every supported file"`
	Exclude   []string   `json:"exclude,omitempty" jsonschema:"globs of paths never indexed, on top of the repository's .gitignore"`
	Every     string     `json:"every,omitempty" jsonschema:"how often it is synced, a duration such as 1h; absent: only when asked"`
	// SSHKey names the environment variable holding an ssh deploy key,
	// as env:VAR; never the key itself.
	SSHKey string `json:"ssh_key,omitempty" jsonschema:"for an ssh URL, env:VAR naming the environment variable of the server that holds the deploy key (PEM)"`
	// Endpoint, Region, AccessKey and SecretKey are an s3 source's: the
	// keys named as env:VAR, never the keys themselves.
	Endpoint  string `json:"endpoint,omitempty" jsonschema:"for s3: the S3 endpoint, http(s)://host[:port]"`
	Region    string `json:"region,omitempty" jsonschema:"for s3: the bucket's region; absent: asked of the endpoint"`
	AccessKey string `json:"access_key,omitempty" jsonschema:"for s3: env:VAR naming the environment variable of the server that holds the access key id; absent with secret_key: anonymous"`
	SecretKey string `json:"secret_key,omitempty" jsonschema:"for s3: env:VAR naming the environment variable of the server that holds the secret key"`
	// MaxPages and MaxDepth bound a web source's crawl; 0: the server's
	// settings.
	MaxPages int      `json:"max_pages,omitempty" jsonschema:"for web: the most pages in scope (a site with more is refused); absent: sources.web_max_pages"`
	MaxDepth int      `json:"max_depth,omitempty" jsonschema:"for web: how many links deep from the start page the crawl goes; absent: sources.web_max_depth"`
	Access   []string `json:"access,omitempty" jsonschema:"groups every document of the source is shared with; absent: everyone who may use the namespace"`
	Tags     []string `json:"tags,omitempty" jsonschema:"tags every document of the source gets"`
	// Viewer is the audience of who created it (Audience groups), nil for
	// one who sees every document: its syncs touch only what that
	// audience sees.
	Viewer    *[]string   `json:"-"`
	CreatedAt time.Time   `json:"created_at" jsonschema:"when it was added"`
	LastSync  *SourceSync `json:"last_sync,omitempty" jsonschema:"the last sync that ran, absent before the first"`
	NextSync  *time.Time  `json:"next_sync,omitempty" jsonschema:"when the schedule syncs it next; absent without every"`
	// Commit is the commit the last successful sync brought in: the next
	// sync reads only the paths that changed since.
	Commit string `json:"commit,omitempty" jsonschema:"the commit of the last successful sync"`
	// Watch marks a directory of the config's watch: entries, listed as
	// a source: synced like one, changed and deleted only in the config.
	Watch bool `json:"watch,omitempty" jsonschema:"true for a directory of the server config's watch: entries: synced like any source (and by its watcher), changed or deleted only in the config"`
}

// MaxUnreadListed bounds the unread items a source's last sync lists.
const MaxUnreadListed = 20

// SourceSync is how one sync of a source went.
type SourceSync struct {
	JobID   string    `json:"job_id" jsonschema:"the sync's job (GET /jobs/{id})"`
	At      time.Time `json:"at" jsonschema:"when it ran"`
	Outcome string    `json:"outcome" jsonschema:"enqueued (its files being indexed), completed or failed"`
	Error   string    `json:"error,omitempty" jsonschema:"why it failed"`
	Commit  string    `json:"commit,omitempty" jsonschema:"the commit it synced"`
	Added   int       `json:"added" jsonschema:"files new since the last sync"`
	Changed int       `json:"changed" jsonschema:"files changed since the last sync"`
	// Unchanged counts the files left unread.
	Unchanged int `json:"unchanged" jsonschema:"files not read: unchanged since the last sync"`
	Deleted   int `json:"deleted" jsonschema:"documents deleted: their file is gone"`
	// Unread are items listed but not read, with why (up to
	// MaxUnreadListed of them): their documents are kept.
	Unread map[string]string `json:"unread,omitempty" jsonschema:"items listed but not read (too large, gone since the listing, unreadable), with why, up to 20: their documents are kept"`
	// Moved counts the renamed files (of Added).
	Moved  int `json:"moved,omitempty" jsonschema:"of the added files, those renamed: their document was carried over, not embedded again"`
	Failed int `json:"failed" jsonschema:"files whose indexing failed (read from the job)"`
}

package wire

import "ragd"

// SourceRequest adds a source (POST /sources): a place ragd keeps a
// knowledge base in sync with.
type SourceRequest struct {
	KBName  string          `json:"kb_name,omitempty" jsonschema:"namespace its documents go to (default: default)"`
	Kind    ragd.SourceKind `json:"kind" jsonschema:"what it reads: git, web, s3 or directory (a directory inside the ingest roots, synced as rag_index_directory with sync: true)"`
	URL     string          `json:"url" jsonschema:"git: the repository, https://, http://, git://, ssh:// (or user@host:path) or file:// inside the ingest roots; web: the start page, http(s)://; s3: s3://<bucket>/<prefix>; directory: an absolute path (or file:///path) inside the ingest roots"`
	Ref     string          `json:"ref,omitempty" jsonschema:"branch or tag to sync (default: the remote's default branch)"`
	Include []string        `json:"include,omitempty" jsonschema:"globs, in .gitignore syntax, of the paths to index (default: every supported file)"`
	Exclude []string        `json:"exclude,omitempty" jsonschema:"globs, in .gitignore syntax, of paths never indexed, on top of the repository's .gitignore files"`
	Every   string          `json:"every,omitempty" jsonschema:"sync on a schedule this often, a duration such as 1h (at least sources.min_every); absent: only when asked"`
	SSHKey  string          `json:"ssh_key,omitempty" jsonschema:"for ssh URLs: env:VAR, the server's environment variable holding the deploy key"`
	// The s3 kind's endpoint and credentials (env:VAR each), and the web
	// kind's crawl bounds.
	Endpoint  string   `json:"endpoint,omitempty" jsonschema:"s3: the S3 endpoint, http(s)://host[:port]"`
	Region    string   `json:"region,omitempty" jsonschema:"s3: the bucket's region (default: asked of the endpoint)"`
	AccessKey string   `json:"access_key,omitempty" jsonschema:"s3: env:VAR, the server's environment variable holding the access key id"`
	SecretKey string   `json:"secret_key,omitempty" jsonschema:"s3: env:VAR, the server's environment variable holding the secret key"`
	MaxPages  int      `json:"max_pages,omitempty" jsonschema:"web: the most pages in scope (default: sources.web_max_pages)"`
	MaxDepth  int      `json:"max_depth,omitempty" jsonschema:"web: how many links deep the crawl goes (default: sources.web_max_depth)"`
	Access    []string `json:"access,omitempty" jsonschema:"groups every document of the source is shared with (absent: everyone who may use the namespace)"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags every document of the source gets"`
}

// SourcePatch changes a source (PATCH /sources/{id}); an absent field is
// left as it is. A change of url, ref, include or exclude makes the next
// sync compare every file with the documents.
type SourcePatch struct {
	Ref     *string   `json:"ref,omitempty" jsonschema:"branch or tag to sync"`
	Include *[]string `json:"include,omitempty" jsonschema:"globs of the paths to index ([]: every supported file)"`
	Exclude *[]string `json:"exclude,omitempty" jsonschema:"globs of paths never indexed"`
	Every   *string   `json:"every,omitempty" jsonschema:"the schedule, a duration (\"\": only when asked)"`
	SSHKey  *string   `json:"ssh_key,omitempty" jsonschema:"env:VAR naming the deploy key"`
	// The s3 kind's credentials and the web kind's bounds.
	AccessKey *string   `json:"access_key,omitempty" jsonschema:"s3: env:VAR naming the access key id"`
	SecretKey *string   `json:"secret_key,omitempty" jsonschema:"s3: env:VAR naming the secret key"`
	Region    *string   `json:"region,omitempty" jsonschema:"s3: the bucket's region"`
	MaxPages  *int      `json:"max_pages,omitempty" jsonschema:"web: the most pages in scope (0: the server's default)"`
	MaxDepth  *int      `json:"max_depth,omitempty" jsonschema:"web: how many links deep the crawl goes (0: the server's default)"`
	Access    *[]string `json:"access,omitempty" jsonschema:"groups every document is shared with ([]: everyone); applies from the next sync"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"tags every document gets; applies from the next sync"`
}

// SourceList answers GET /sources: the sources of the namespaces the
// caller may use.
type SourceList struct {
	Sources []ragd.Source `json:"sources" jsonschema:"the sources, by id"`
}

// SyncSourceRequest asks for a sync now (POST /sources/{id}/sync).
type SyncSourceRequest struct {
	Force  bool `json:"force,omitempty" jsonschema:"sync even when the ref lost the last synced commit (force push) or more than half of the documents would be deleted; a forced sync compares every file with the documents"`
	DryRun bool `json:"dry_run,omitempty" jsonschema:"answer with the plan {commit, added, changed, unchanged, deleted} and change nothing"`
}

// SourceDeleted answers DELETE /sources/{id}.
type SourceDeleted struct {
	SourceID         string `json:"source_id" jsonschema:"the source deleted"`
	DocumentsDeleted int    `json:"documents_deleted" jsonschema:"its documents deleted (0 with keep_documents)"`
}

// Package crawl lists a web site for the web source kind: from a start URL
// it fetches the pages within the start's host and path prefix, obeying
// robots.txt for ragd's user agent, seeded by the site's sitemaps, following
// the links of HTML pages to MaxDepth, and hands each page to a callback:
// its URL (where it was fetched from after redirects, written as
// ingest.CanonicalURL with sorted query parameters and no tracking ones),
// content type, body, validators (ETag, Last-Modified) and content
// hash. Given the State of the previous crawl, each request is conditional
// (If-None-Match, If-Modified-Since), so an unchanged page costs a 304 and
// is handed over as Unchanged with the links it had; a page whose body
// hashes as before is Unchanged too. Duplicates are collapsed: a page
// whose <link rel=canonical> names another page in scope is not handed
// over, the page it names is crawled instead; a page with the content of
// one already handed over under the same path with another query is not
// handed over either (Result.Duplicates).
//
// Every request — robots.txt, sitemaps, pages, each redirect — is made
// with guard.Fetcher's client, so no connection reaches a non-public
// address unless ingest.allow_private_urls says so. The start page's
// redirects may change the origin (http to https, a bare domain to www):
// the scope is where it lands; any other redirect must stay in scope.
//
// Bounds, each an Options field with a default: the page count (a site
// with more pages in scope is refused, not cut short), the page size (a
// larger page is a failed page), the crawl time, the sitemap entries read,
// and a per-host concurrency and delay (robots.txt's Crawl-delay when
// longer). Parsing the pages is not this package's job: the crawler only
// reads the links of HTML.
//
// A crawl that cannot see the site — its start page or robots.txt
// answering 5xx, a 4xx start page, a network error, a refused address, a
// bound exceeded — returns an error and the caller must delete nothing.
// Otherwise Result says which pages were seen, which are gone (404, 410)
// and which could not be read, so that only pages neither seen nor failed
// are taken as deleted (Result.MayDelete).
package crawl

// Package s3list lists a bucket for the s3 source kind: the objects under
// a prefix of a bucket on any S3-compatible endpoint (AWS S3, MinIO, Ceph,
// Garage, R2 …), paged and bounded (MaxObjects, MaxObjectBytes), and, given
// the ETags of the last sync, which objects were added, changed, left
// unchanged or deleted; only added and changed objects are read
// (Lister.Read). Credentials come from the server's environment, named as
// env:VAR in the source (ragd.EnvSecret), never stored themselves.
//
// Every connection goes through guard.Fetcher's dial-time address check,
// so an endpoint on a private address is refused unless
// ingest.allow_private_urls allows it.
//
// A listing that fails — bad credentials, a missing bucket, an endpoint
// that does not answer, a bound exceeded — is an error, never an empty or
// partial listing: the caller then deletes nothing.
//
// The client is github.com/minio/minio-go/v7 rather than the AWS SDK
// (aws-sdk-go-v2/service/s3): it speaks S3 to any compatible endpoint
// out of the box (path-style addressing where the endpoint is not
// Amazon's, signature V4), pages ListObjectsV2 itself, and brings a
// handful of small modules where the SDK brings its config, credential
// chain and smithy runtime — ragd needs none of those, credentials being
// an access key pair from the environment.
package s3list

package store

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"ragd"
)

// clientSearch is a search through the Weaviate client's own request
// builder and reply decoding: what Search did before it read replies
// itself, kept as the reference the wire path must match.
func clientSearch(ctx context.Context, ref *weaviate.Client, s *Store, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	if q.Related {
		q.Mode = ragd.ModeKeyword
	}
	fusion := graphql.RelativeScore
	if q.RankedFusion {
		fusion = graphql.Ranked
	}
	req := ref.Experimental().Search().WithCollection(s.class).WithTenant(namespace).
		WithConsistencyLevel(s.consistency).WithLimit(q.Limit).WithProperties(chunkProperties...).
		WithMetadata(&graphql.Metadata{ID: true, Score: q.Mode != ragd.ModeVector, Distance: q.Mode == ragd.ModeVector, Vector: q.WithVectors})
	switch q.Mode {
	case ragd.ModeKeyword:
		req = req.WithBM25((&graphql.BM25ArgumentBuilder{}).WithQuery(q.Text).WithProperties(properties(q)...))
	case ragd.ModeVector:
		req = req.WithNearVector((&graphql.NearVectorArgumentBuilder{}).WithVector(q.Vector))
	default:
		req = req.WithHybrid((&graphql.HybridArgumentBuilder{}).WithQuery(q.Text).WithVector(q.Vector).
			WithAlpha(float32(q.Alpha)).WithProperties(properties(q)).WithFusionType(fusion))
	}
	if w := where(q, ragd.AudienceIn(ctx).StoreFilter()); w != nil {
		req = req.WithWhere(w)
	}
	results, err := req.Do(ctx)
	if err != nil {
		if isMissingTenant(err) {
			return nil, nil
		}
		return nil, err
	}
	hits := make([]ragd.Hit, 0, len(results))
	for _, r := range results {
		h := ragd.Hit{Chunk: chunkFrom(r.ID, namespace, r.Properties)}
		h.Vector = r.Vector
		if q.Mode == ragd.ModeVector {
			h.Score = 1 - float64(r.Metadata.Distance)
		} else {
			h.Score = float64(r.Metadata.Score)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// wireFixture is a namespace whose chunks use every property a search
// returns: OCR marks, pages, tags, access lists, summaries, levels.
func wireFixture(t *testing.T) *Store {
	t.Helper()
	s, _ := openTestStore(t, "m", 8)
	var cs []ragd.Chunk
	texts := []string{"the harbour ledger lists every ship by flag", "tide tables are posted at the quay",
		"the lighthouse flashes twice every ten seconds", "red buoys mark the port side of the channel",
		"pilots board ships at the outer mark", "cargo manifests go to the customs house",
		"the harbour master signs every ledger page", "mooring fees are paid by the day"}
	for i, text := range texts {
		doc := fmt.Sprintf("doc%d", i%3)
		c := chunks(doc, "h"+doc, text)[0]
		c.ID, c.Index, c.Vector = ragd.ChunkID(doc, "h"+doc, i), i, vec(8, i)
		c.Page, c.OCR, c.Level, c.Summary = i%4, i%2 == 0, i%3, fmt.Sprintf("summary %d", i)
		c.Timestamp = time.Date(2026, 3, i+1, 10, 0, 0, 123456000, time.UTC)
		c.Tags = [][]string{{"t1"}, {"t1", "t2"}, nil}[i%3]
		c.Access = [][]string{nil, {"eng"}, {"eng", "fin"}}[i%3]
		if i == 7 {
			c.Path, c.SourceType = "", ragd.SourcePDF
		}
		cs = append(cs, c)
	}
	if err := s.Upsert(context.Background(), "wire", cs); err != nil {
		t.Fatal(err)
	}
	return s
}

// Search, reading Weaviate's replies itself, returns exactly what the
// Weaviate client's path returns, in every mode, with vectors, filters,
// ranked fusion and a missing tenant.
func TestWireSearchMatchesTheClient(t *testing.T) {
	ctx := context.Background()
	s := wireFixture(t)
	ref := referenceClient(t)
	queries := map[string]ragd.ChunkQuery{
		"keyword":          {Text: "harbour ledger", Mode: ragd.ModeKeyword, Limit: 5},
		"keyword boosted":  {Text: "harbour part", Mode: ragd.ModeKeyword, Limit: 5, PathBoost: 3},
		"hybrid":           {Text: "ships at the mark", Vector: vec(8, 4), Mode: ragd.ModeHybrid, Alpha: 0.3, Limit: 8},
		"hybrid ranked":    {Text: "ships", Vector: vec(8, 1), Mode: ragd.ModeHybrid, Alpha: 0.5, Limit: 8, RankedFusion: true},
		"vector":           {Vector: vec(8, 2), Mode: ragd.ModeVector, Limit: 8},
		"vector + vectors": {Vector: vec(8, 3), Mode: ragd.ModeVector, Limit: 4, WithVectors: true},
		"hybrid + vectors": {Text: "ledger", Vector: vec(8, 6), Mode: ragd.ModeHybrid, Alpha: 0.7, Limit: 8, WithVectors: true},
		"filters":          {Text: "the", Vector: vec(8, 0), Mode: ragd.ModeHybrid, Alpha: 0.3, Limit: 8, Tags: []string{"t2"}, DocumentIDs: []string{"doc1", "doc2"}},
		"access":           {Text: "ledger tide lighthouse buoys pilots cargo mooring", Mode: ragd.ModeKeyword, Limit: 8},
		"open only":        {Text: "ledger tide lighthouse buoys pilots cargo mooring", Mode: ragd.ModeKeyword, Limit: 8},
		"source types":     {Vector: vec(8, 7), Mode: ragd.ModeVector, Limit: 8, SourceTypes: []string{string(ragd.SourcePDF)}},
		"no hits":          {Text: "zeppelin", Mode: ragd.ModeKeyword, Limit: 5},
	}
	// The store applies the context's audience.
	audiences := map[string]ragd.Audience{"access": ragd.GroupAudience([]string{"fin"}), "open only": ragd.GroupAudience(nil)}
	for name, q := range queries {
		ctx := ctx
		if a, ok := audiences[name]; ok {
			ctx = ragd.WithAudience(ctx, a)
		}
		for _, ns := range []string{"wire", "no-such-namespace"} {
			want, werr := clientSearch(ctx, ref, s, ns, q)
			got, gerr := s.Search(ctx, ns, q)
			if werr != nil || gerr != nil {
				t.Fatalf("%s in %s: client %v, wire %v", name, ns, werr, gerr)
			}
			if ns == "wire" && name != "no hits" && len(want) == 0 {
				t.Fatalf("%s: the reference found nothing; the fixture does not test it", name)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s in %s:\n wire   %+v\n client %+v", name, ns, got, want)
			}
		}
	}
}

// A reply cut short or corrupted anywhere is an error or fewer hits,
// never a panic.
func TestWireReplyCutShort(t *testing.T) {
	ctx := context.Background()
	s := wireFixture(t)
	req := s.searchRequest("wire", ragd.ChunkQuery{Text: "the", Vector: vec(8, 1), Mode: ragd.ModeHybrid, Alpha: 0.5, Limit: 8, WithVectors: true}, nil)
	var reply []byte
	if err := s.wire.conn.Invoke(ctx, searchMethod, req, &reply, grpc.ForceCodecV2(replyCodec{})); err != nil {
		t.Fatal(err)
	}
	var ref pb.SearchReply
	if err := proto.Unmarshal(reply, &ref); err != nil || len(ref.Results) == 0 {
		t.Fatalf("reference reply: %d results, %v", len(ref.Results), err)
	}
	for n := range reply {
		if hits, err := readHits(reply[:n], "wire", false, 8); err == nil && len(hits) > len(ref.Results) {
			t.Fatalf("cut at %d: %d hits from a reply of %d", n, len(hits), len(ref.Results))
		}
		flipped := append([]byte(nil), reply...)
		flipped[n] ^= 0xff
		_, _ = readHits(flipped, "wire", false, 8)
	}
}

// cloudStandIn is a stand-in for a Weaviate Cloud node's gRPC Search
// (which cannot be reached from here): it answers with no results and
// records the metadata each search came with.
type cloudStandIn struct {
	pb.UnimplementedWeaviateServer
	heard chan metadata.MD
}

func (c cloudStandIn) Search(ctx context.Context, _ *pb.SearchRequest) (*pb.SearchReply, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	c.heard <- md
	return &pb.SearchReply{}, nil
}

// Searches carry the API key as the Weaviate client sends it: a bearer
// token, and for Weaviate Cloud its key and cluster headers too.
func TestWireSearchAuthenticates(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	standIn := cloudStandIn{heard: make(chan metadata.MD, 1)}
	pb.RegisterWeaviateServer(srv, standIn)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	for _, tc := range []struct {
		host, key string
		want      map[string]string
	}{
		{"weaviate.internal:8080", "k-1", map[string]string{"authorization": "Bearer k-1"}},
		{"abc.c0.europe-west3.gcp.weaviate.cloud", "k-2", map[string]string{"authorization": "Bearer k-2",
			"x-weaviate-api-key": "k-2", "x-weaviate-cluster-url": "https://abc.c0.europe-west3.gcp.weaviate.cloud"}},
		{"weaviate.internal:8080", "", map[string]string{"authorization": ""}},
	} {
		w, err := newGRPCWire(l.Addr().String(), tc.host, nil, tc.key, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.search(context.Background(), &pb.SearchRequest{Collection: "C"}, "ns", false); err != nil {
			t.Fatalf("%s: %v", tc.host, err)
		}
		md := <-standIn.heard
		for k, v := range tc.want {
			if got := strings.Join(md.Get(k), ","); got != v {
				t.Errorf("%s with key %q: %s = %q, want %q", tc.host, tc.key, k, got, v)
			}
		}
	}
}

// A node serving gRPC over TLS with a certificate nobody vouches for is
// refused by every gRPC call the store makes — chunk searches, the other
// reads, image searches, batch writes of chunks and images — and none
// reaches the node. Before, all but chunk searches went over the Weaviate
// client's own connection, which skips verification.
func TestEveryGRPCCallVerifiesTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key})))
	standIn := cloudStandIn{heard: make(chan metadata.MD, 8)}
	pb.RegisterWeaviateServer(srv, standIn)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	conf, _ := tlsConfig("")
	w, err := newGRPCWire(l.Addr().String(), "127.0.0.1:8443", conf, "k", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{wire: w, class: "C", batchSize: 10, replication: 1, version: &nodeVersion{read: func() string { return "1.35.2" }}}
	ctx := context.Background()
	calls := map[string]func() error{
		"chunk search": func() error {
			_, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: "q", Mode: ragd.ModeKeyword, Limit: 5})
			return err
		},
		"document chunks": func() error { _, err := s.DocumentChunks(ctx, "ns", "d", "h", 0, 10); return err },
		"image search": func() error {
			_, err := s.SearchImages(ctx, "ns", ragd.ChunkQuery{Text: "q", Limit: 5})
			return err
		},
		"chunk batch": func() error { return s.Upsert(ctx, "ns", chunks("d", "h", "a chunk")) },
		"image batch": func() error {
			return s.UpsertImages(ctx, "ns", []ragd.Image{{ID: ragd.ChunkID("d", "h", 0), DocumentID: "d", ContentHash: "h", Vector: vec(8, 0)}})
		},
	}
	for name, call := range calls {
		if err := call(); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s against an untrusted certificate: %v, want a certificate error", name, err)
		}
	}
	select {
	case <-standIn.heard:
		t.Fatal("a call reached the node")
	default:
	}
}

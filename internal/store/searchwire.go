package store

import (
	"context"
	"fmt"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc/common"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"ragd"
)

// searchMethod is Weaviate's gRPC search.
const searchMethod = "/weaviate.v1.Weaviate/Search"

// search runs a chunk search and reads its reply straight into ragd's
// hits (reply.go). The client's path decodes every result's properties
// into a map of protobuf values and then into a map[string]any: under
// load that decoding was about half of a search's CPU in ragd, and ragd
// knows which properties it asked for. Requests are the ones the client
// builds for the same search (searchRequest).
func (w *grpcWire) search(ctx context.Context, req *pb.SearchRequest, namespace string, vectorMode bool) ([]ragd.Hit, error) {
	ctx, cancel := w.callContext(ctx)
	defer cancel()
	reply := searchReply{namespace: namespace, vectorMode: vectorMode, room: int(req.Limit)}
	if err := w.conn.Invoke(ctx, searchMethod, req, &reply, grpc.ForceCodecV2(replyCodec{})); err != nil {
		return nil, err
	}
	if reply.err != nil {
		return nil, fmt.Errorf("weaviate search reply: %w", reply.err)
	}
	return reply.hits, nil
}

// searchRequest is the request the Weaviate client sends for q, over the
// chunks access allows (where).
func (s *Store) searchRequest(namespace string, q ragd.ChunkQuery, access []string) *pb.SearchRequest {
	req := s.request(objectQuery{class: s.class, namespace: namespace, limit: q.Limit, properties: chunkProperties,
		where: where(q, access), consistent: true, withScore: q.Mode != ragd.ModeVector})
	req.Metadata.Distance, req.Metadata.Vector = q.Mode == ragd.ModeVector, q.WithVectors
	switch q.Mode {
	case ragd.ModeKeyword:
		req.Bm25Search = &pb.BM25{Query: q.Text, Properties: properties(q)}
	case ragd.ModeVector:
		req.NearVector = &pb.NearVector{Vectors: vectors(q.Vector)}
	default:
		req.HybridSearch = hybridSearch(q.Text, properties(q), q.Alpha, q.Vector, q.RankedFusion)
	}
	return req
}

// hybridSearch is a hybrid query as the client sends it: the vector's and
// BM25's scores fused by relative score, or by rank when ranked.
func hybridSearch(text string, properties []string, alpha float64, vector []float32, ranked bool) *pb.Hybrid {
	a := float32(alpha)
	h := &pb.Hybrid{Query: text, Properties: properties, Alpha: a, AlphaParam: &a, //nolint:staticcheck // both, as the client sends
		Vectors: vectors(vector), FusionType: pb.Hybrid_FUSION_TYPE_RELATIVE_SCORE}
	if ranked {
		h.FusionType = pb.Hybrid_FUSION_TYPE_RANKED
	}
	return h
}

// vectors is a query vector as the client sends it; none for an empty one.
func vectors(v []float32) []*pb.Vectors {
	if len(v) == 0 {
		return nil
	}
	return []*pb.Vectors{common.GetVector("", v)}
}

// searchReply is what a search's reply is read into (readHits), while
// gRPC still holds its buffers.
type searchReply struct {
	namespace  string
	vectorMode bool
	room       int
	hits       []ragd.Hit
	err        error
}

// replyCodec marshals requests as protobuf and reads search replies into
// hits.
type replyCodec struct{}

func (replyCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := proto.Marshal(v.(proto.Message))
	return mem.BufferSlice{mem.SliceBuffer(b)}, err
}

func (replyCodec) Unmarshal(data mem.BufferSlice, v any) error {
	var b []byte
	if len(data) == 1 {
		b = data[0].ReadOnlyData() // gRPC's buffer: read before it is reused
	} else {
		b = data.Materialize()
	}
	switch r := v.(type) {
	case *searchReply:
		r.hits, r.err = readHits(b, r.namespace, r.vectorMode, r.room)
		return nil
	case *[]byte: // the reply's bytes (tests)
		*r = append([]byte(nil), b...)
		return nil
	}
	return fmt.Errorf("replyCodec: cannot read into %T", v)
}

// Name is proto: the content type is the one Weaviate expects.
func (replyCodec) Name() string { return "proto" }

package store

import (
	"context"
	"encoding/binary"
	"math"
	"sync"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/db"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	grpcbatch "github.com/weaviate/weaviate-go-client/v5/weaviate/grpc/batch"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc/common"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// object is one object a read returns, as the Weaviate client's search
// gives it: its id, its score when asked, the properties asked for.
type object struct {
	ID         string
	Score      float32
	Properties map[string]any
	Vector     []float32 // with objectQuery.vectors
}

// objectQuery is a read of objects that is not a chunk search: a
// document's chunks, its stale versions, the objects whose access
// changes, an image search.
type objectQuery struct {
	class, namespace string
	limit            int
	properties       []string
	where            *filters.WhereBuilder
	sortBy           string // a property sorted ascending, "" for none
	consistent       bool   // at the store's consistency level
	withScore        bool
	vectors          bool // each object's vector too
	hybrid           *pb.Hybrid
}

// request is the request the Weaviate client sends for q.
func (s *Store) request(q objectQuery) *pb.SearchRequest {
	req := &pb.SearchRequest{
		Collection: q.class, Tenant: q.namespace, Limit: uint32(max(q.limit, 0)),
		Properties:   &pb.PropertiesRequest{NonRefProperties: q.properties},
		Metadata:     &pb.MetadataRequest{Uuid: true, Score: q.withScore, Vector: q.vectors},
		HybridSearch: q.hybrid,
		Uses_123Api:  true, Uses_125Api: true, Uses_127Api: true,
	}
	if q.consistent {
		req.ConsistencyLevel = common.GetConsistencyLevel(s.consistency)
	}
	if q.where != nil {
		req.Filters = q.where.ToGRPC()
	}
	if q.sortBy != "" {
		req.SortBy = []*pb.SortBy{{Path: []string{q.sortBy}, Ascending: true}}
	}
	return req
}

// objects runs q over ragd's gRPC connection.
func (s *Store) objects(ctx context.Context, q objectQuery) ([]object, error) {
	reply, err := s.wire.searchObjects(ctx, s.request(q))
	if err != nil {
		return nil, err
	}
	out := make([]object, len(reply.GetResults()))
	for i, r := range reply.GetResults() {
		out[i] = object{ID: r.GetMetadata().GetId(), Score: r.GetMetadata().GetScore(),
			Properties: make(map[string]any, len(q.properties))}
		if q.vectors {
			out[i].Vector = vectorOf(r.GetMetadata())
		}
		for name, v := range r.GetProperties().GetNonRefProps().GetFields() {
			out[i].Properties[name] = propertyValue(v)
		}
	}
	return out, nil
}

// propertyValue is a property's value as the Weaviate client gives it, for the
// kinds ragd stores.
func propertyValue(v *pb.Value) any {
	switch k := v.GetKind().(type) {
	case *pb.Value_TextValue:
		return k.TextValue
	case *pb.Value_NumberValue:
		return k.NumberValue
	case *pb.Value_IntValue:
		return k.IntValue
	case *pb.Value_BoolValue:
		return k.BoolValue
	case *pb.Value_DateValue:
		return k.DateValue
	case *pb.Value_UuidValue:
		return k.UuidValue
	case *pb.Value_ListValue:
		return k.ListValue
	}
	return nil
}

// batchObjects writes objects in one gRPC batch, as the client's
// ObjectsBatcher does.
func (s *Store) batchObjects(ctx context.Context, objects []*models.Object) ([]models.ObjectsGetResponse, error) {
	b := grpcbatch.New(db.NewGRPCVersionSupport(s.version))
	batch, err := b.GetBatchObjects(objects)
	if err != nil {
		return nil, err
	}
	reply, err := s.wire.batchObjects(ctx, &pb.BatchObjectsRequest{Objects: batch, ConsistencyLevel: b.GetConsistencyLevel(s.consistency)})
	if err != nil {
		return nil, err
	}
	return b.ParseReply(reply, objects), nil
}

// nodeVersion is a node's Weaviate version, which decides how a batch
// sends vectors; read from the node when first needed and until known.
type nodeVersion struct {
	mu   sync.Mutex
	read func() string
	v    string
}

// Version implements the client's version provider.
func (n *nodeVersion) Version() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.v == "" {
		n.v = n.read()
	}
	return n.v
}

// vectorOf is a result's vector: sent as little-endian float32 bytes by
// Weaviate since 1.22, as floats before.
func vectorOf(m *pb.MetadataResult) []float32 {
	b := m.GetVectorBytes()
	if len(b) == 0 {
		return m.GetVector()
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

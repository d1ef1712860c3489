package websearchapi

import (
	"context"
	"encoding/json"
)

// method runs one JSON-RPC method on its (possibly nil) params.
type method func(ctx context.Context, params json.RawMessage) (any, *rpcError)

// ProtocolVersion is what initialize reports: this endpoint's own protocol,
// JSON-RPC 2.0 with the methods below.
const ProtocolVersion = "2.0"

type initializeResult struct {
	ProtocolVersion string       `json:"protocolVersion"`
	ServerInfo      Info         `json:"serverInfo"`
	Capabilities    capabilities `json:"capabilities"`
}

type capabilities struct {
	Tools struct{} `json:"tools"`
}

func (s *Server) initialize(_ context.Context, params json.RawMessage) (any, *rpcError) {
	if _, rerr := objectParams(params); rerr != nil {
		return nil, rerr
	}
	return initializeResult{ProtocolVersion: ProtocolVersion, ServerInfo: s.info}, nil
}

func (s *Server) listTools(_ context.Context, params json.RawMessage) (any, *rpcError) {
	if _, rerr := objectParams(params); rerr != nil {
		return nil, rerr
	}
	return map[string][]tool{"tools": {searchTopicTool}}, nil
}

// shutdown only acknowledges: the server is shared by every client and
// replica, so no client may stop it.
func (s *Server) shutdown(_ context.Context, params json.RawMessage) (any, *rpcError) {
	if _, rerr := objectParams(params); rerr != nil {
		return nil, rerr
	}
	return map[string]bool{"acknowledged": true}, nil
}

package mcpserver

import (
	"encoding/json"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// sdkDecoding decodes as the SDK does (segmentio, keys matched exactly);
// strictDecoding refuses any key the target does not name as well.
const (
	sdkDecoding    = sjson.DontMatchCaseInsensitiveStructFields
	strictDecoding = sdkDecoding | sjson.DisallowUnknownFields
)

// callParams are the only params a fast call may carry, decoded as the SDK
// decodes them (a "Name" is no "name" to it).
type callParams struct {
	Meta      sdk.Meta        `json:"_meta"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func decodeCall(params json.RawMessage) (callParams, bool) {
	var p callParams
	_, err := sjson.Parse(params, &p, strictDecoding)
	return p, err == nil
}

// callID is the request's id as the SDK reads it (a number becomes an
// integer, a string is unescaped), which its answer carries; a null id is
// no call to the SDK.
func callID(raw json.RawMessage) (sdkjsonrpc.ID, bool) {
	var v any
	if _, err := sjson.Parse(raw, &v, sdkDecoding); err != nil {
		return sdkjsonrpc.ID{}, false
	}
	id, err := sdkjsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// plainMeta reports whether a 2026-07-28 call's _meta (SEP-2575) is one
// the SDK accepts and treats as fastCalls does: the protocol version,
// equal to the header's; the client's capabilities; its info, if any —
// each decoding as the SDK decodes it; and nothing else (a progress token
// asks for notifications, a log level for log messages, which need the
// SDK's session). A client that can be asked for input (sampling,
// elicitation) goes to the SDK too, where a tool may ask it (core_query
// has the client's model write the answer).
func plainMeta(meta sdk.Meta, version string) bool {
	for k := range meta {
		switch k {
		case sdk.MetaKeyProtocolVersion, sdk.MetaKeyClientInfo, sdk.MetaKeyClientCapabilities:
		default:
			return false
		}
	}
	if v, ok := meta[sdk.MetaKeyProtocolVersion].(string); !ok || v != version {
		return false
	}
	if info, present := meta[sdk.MetaKeyClientInfo]; present {
		if !redecodes(info, new(sdk.Implementation)) {
			return false
		}
	}
	var caps sdk.ClientCapabilities
	return redecodes(meta[sdk.MetaKeyClientCapabilities], &caps) && caps.Sampling == nil && caps.Elicitation == nil
}

// redecodes reports whether a _meta value (as decoded from the wire) is
// present and decodes into dst, as the SDK reads it: encoded again and
// decoded with keys matched exactly.
func redecodes(v, dst any) bool {
	if v == nil {
		return false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	_, err = sjson.Parse(raw, dst, sdkDecoding)
	return err == nil
}

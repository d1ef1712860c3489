// Command hopfloor is the least a server between a client and Weaviate can
// do for a search, the floor the benchmarks measure ragd's own cost
// against: it takes a Weaviate gRPC search request (protobuf) as the body
// of an HTTP POST, sends it to Weaviate over grpc-go and answers with the
// reply's bytes, decoding and encoding nothing. What it costs beyond a
// client's direct query is the network hop itself: one more process to
// wake, one more connection each way. Its transport is tuned as ragd's is,
// so that the floor is not slower for want of what ragd does: a fixed gRPC
// flow-control window (store/grpcwire.go) and each answer in one write
// (api/heldconn.go; here oneWriteConn).
//
//	hopfloor LISTEN_ADDR WEAVIATE_GRPC_ADDR
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hopfloor LISTEN_ADDR WEAVIATE_GRPC_ADDR")
		os.Exit(2)
	}
	conn, err := grpc.NewClient(os.Args[2], grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(4<<20), grpc.WithInitialConnWindowSize(4<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	http.HandleFunc("POST /search", func(w http.ResponseWriter, r *http.Request) {
		req, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var reply []byte
		if err := conn.Invoke(r.Context(), "/weaviate.v1.Weaviate/Search", req, &reply, grpc.ForceCodecV2(bytesCodec{})); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Header().Set("Content-Length", strconv.Itoa(len(reply))) // not chunked
		writeOnce(w, r, reply)
	})
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{ConnContext: withConn}
	fmt.Fprintln(os.Stderr, srv.Serve(oneWriteListener{ln}))
	os.Exit(1)
}

// bytesCodec passes a message's bytes through: the request as it came,
// the reply as it comes.
type bytesCodec struct{}

func (bytesCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (bytesCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// Name is proto, the content type Weaviate expects.
func (bytesCodec) Name() string { return "proto" }

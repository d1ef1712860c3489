package collector

import (
	"net"
	"testing"
)

// Unanswering is the address of a collector that accepts connections and
// never answers, for the tests that an unreachable collector fails and
// slows nothing; it closes when t ends.
func Unanswering(t testing.TB) string {
	t.Helper()
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hole.Close() })
	go func() {
		var held []net.Conn // kept open, unanswered, until the listener closes
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			conn, err := hole.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
		}
	}()
	return hole.Addr().String()
}

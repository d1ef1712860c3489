package ragdproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// StartHopFloor runs internal/hopfloor on a free loopback port, forwarding
// searches to the test Weaviate, its log in dir: the floor for what any
// server between a client and Weaviate costs a search.
func StartHopFloor(dir string) (*Process, error) {
	grpcAddr := os.Getenv("RAGD_TEST_WEAVIATE_GRPC_ADDR")
	if grpcAddr == "" {
		return nil, fmt.Errorf("RAGD_TEST_WEAVIATE_GRPC_ADDR is not set: run with `make test` or `make bench`, which start the services")
	}
	bin, err := build("./internal/hopfloor")
	if err != nil {
		return nil, err
	}
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	return run(exec.Command(bin, addr, grpcAddr), addr, filepath.Join(dir, "hopfloor.log"))
}

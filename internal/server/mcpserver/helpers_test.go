package mcpserver_test

import (
	"context"
	"testing"

	"ragd/internal/app"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

func appNew(t *testing.T, cfg config.Config) (*app.App, error) {
	a, err := app.New(context.Background(), cfg, stack.Logger(t))
	if err == nil {
		t.Cleanup(a.Close)
	}
	return a, err
}

package mcp_test

import (
	"context"
	"testing"

	"ragd/app"
	"ragd/config"
	"ragd/internal/stack"
)

func appNew(t *testing.T, cfg config.Config) (*app.App, error) {
	a, err := app.New(context.Background(), cfg, stack.Logger(t))
	if err == nil {
		t.Cleanup(a.Close)
	}
	return a, err
}

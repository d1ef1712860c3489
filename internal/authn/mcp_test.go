package authn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds a bearer token to every request of the MCP client.
type headerTransport struct{ token string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	return http.DefaultTransport.RoundTrip(r)
}

type whoami struct {
	FromContext string `json:"from_context"`
	FromExtra   string `json:"from_extra"`
	UserID      string `json:"user_id"`
}

// TestMCPHandlerSeesPrincipal runs the real SDK server and client through
// the middleware: tool handlers see the principal both from their context
// and from req.Extra.TokenInfo, in stateless and stateful mode.
func TestMCPHandlerSeesPrincipal(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "ragd-test", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoami, error) {
		var out whoami
		if p := FromContext(ctx); p != nil {
			out.FromContext = p.Name
		}
		if ti := req.Extra.TokenInfo; ti != nil {
			out.UserID = ti.UserID
			if p := FromTokenInfo(ti); p != nil {
				out.FromExtra = p.Name
			}
		}
		return nil, out, nil
	})
	a := mustNew(t, staticConfig())
	for _, stateless := range []bool{true, false} {
		mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
		srv := httptest.NewServer(a.Middleware(mcpHandler))
		client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
		ctx := context.Background()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint:             srv.URL + "/mcp", // "/" would be a public path
			HTTPClient:           &http.Client{Transport: headerTransport{"finance-secret-token-987654"}},
			DisableStandaloneSSE: true,
			MaxRetries:           -1,
		}, nil)
		if err != nil {
			t.Fatalf("stateless=%v: connect: %v", stateless, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
		if err != nil {
			t.Fatalf("stateless=%v: call: %v", stateless, err)
		}
		got, _ := res.StructuredContent.(map[string]any)
		if got["from_context"] != "finance-bot" || got["from_extra"] != "finance-bot" || got["user_id"] != "key:finance-bot" {
			t.Errorf("stateless=%v: handler saw %v", stateless, res.StructuredContent)
		}
		cs.Close()
		srv.Close()
	}
}

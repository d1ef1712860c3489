package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	lru "github.com/hashicorp/golang-lru/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a typed tool as sdk.AddTool does — the same input and
// output schemas, derived from In and Out once — but runs each call in one
// pass. sdk.AddTool decodes the arguments twice and, after each call,
// marshals the output, decodes it again into a generic value to validate it
// against the output schema and encodes it once more for the text mirror:
// on a cached search that was most of the tool's time. Here the
// arguments are still validated against the input schema (small), but the
// output, ragd's own struct and so its own schema, is encoded once and its
// bytes serve both structuredContent and the text mirror.
func addTool[In, Out any](s toolSet, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	tt := *t
	input, err := schemaOf[In](tt.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("addTool %q: input schema: %v", t.Name, err))
	}
	tt.InputSchema = input.Schema()
	if tt.OutputSchema == nil {
		out, err := schemaOf[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("addTool %q: output schema: %v", t.Name, err))
		}
		tt.OutputSchema = out.Schema()
	}
	valid := newValidArguments()
	s.AddTool(&tt, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		in, err := decodeArguments[In](req.Params.Arguments, input, valid)
		if err != nil {
			return errorResult(err), nil
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return errorResult(err), nil
		}
		if res != nil && res.InputRequests != nil {
			return res, nil // input required: no content until the client answers
		}
		return withOutput(res, out)
	})
}

// withOutput is res (a new result when nil) carrying out, encoded once, as
// its structured content and, unless res has content, its text mirror.
// Every typed tool's answer is made here, and so is a task's result
// (tasks.go).
func withOutput(res *sdk.CallToolResult, out any) (*sdk.CallToolResult, error) {
	if res == nil {
		res = &sdk.CallToolResult{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("marshaling output: %w", err)
	}
	res.StructuredContent = json.RawMessage(b)
	if res.Content == nil {
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
	}
	return res, nil
}

// schemaOf is a given schema resolved, or T's as the SDK derives it.
func schemaOf[T any](given any) (*jsonschema.Resolved, error) {
	s, ok := given.(*jsonschema.Schema)
	if !ok || s == nil {
		rt := reflect.TypeFor[T]()
		if rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		var err error
		if s, err = jsonschema.ForType(rt, &jsonschema.ForOptions{}); err != nil {
			return nil, err
		}
	}
	return s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

// decodeArguments validates the arguments against the input schema (in
// the SDK's words, so an agent reads the same errors), unless the same
// arguments passed before, and decodes them.
func decodeArguments[In any](args json.RawMessage, schema *jsonschema.Resolved, valid *validArguments) (In, error) {
	var in In
	if !valid.seen(args) {
		generic := map[string]any{}
		if len(args) > 0 {
			if err := json.Unmarshal(args, &generic); err != nil {
				return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
			}
		}
		if err := schema.Validate(generic); err != nil {
			return in, fmt.Errorf("validating \"arguments\": %v", err)
		}
		valid.add(args)
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return in, err
		}
	}
	return in, nil
}

// errorResult is a tool error the agent reads, as the SDK reports one.
func errorResult(err error) *sdk.CallToolResult {
	var res sdk.CallToolResult
	res.SetError(err)
	return &res
}

// validArguments remembers argument texts that passed validation: agents
// repeat their calls, and validating against the schema costs more than
// the decoding (a map, then a walk of the schema).
type validArguments struct{ c *lru.Cache[string, struct{}] }

// Bounds of the remembered arguments, per tool.
const (
	validArgumentsKept   = 1024
	validArgumentsMaxLen = 2048
)

func newValidArguments() *validArguments {
	c, _ := lru.New[string, struct{}](validArgumentsKept)
	return &validArguments{c: c}
}

func (v *validArguments) seen(args json.RawMessage) bool {
	return len(args) <= validArgumentsMaxLen && v.c.Contains(string(args))
}

func (v *validArguments) add(args json.RawMessage) {
	if len(args) <= validArgumentsMaxLen {
		v.c.Add(string(args), struct{}{})
	}
}

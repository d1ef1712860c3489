package mcpserver

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"ragd/internal/library"
)

// jobListSchema is core_list_jobs's output schema. Derived as the SDK
// would, but for a job's result: a json.RawMessage holds any JSON value,
// where the derivation would see a byte array.
var jobListSchema = func() *jsonschema.Schema {
	s, err := jsonschema.For[library.JobList](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		panic(err) // a struct the package defines: cannot fail at run time if it did not in tests
	}
	return s
}()

package store

import (
	"fmt"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

var graphqlMetaCount = []graphql.Field{{Name: "meta", Fields: []graphql.Field{{Name: "count"}}}}

// metaCount digs Aggregate{Class[{meta{count}}]} out of a GraphQL response.
func metaCount(data map[string]models.JSONObject, class string) (int, error) {
	agg, _ := data["Aggregate"].(map[string]any)
	rows, _ := agg[class].([]any)
	if len(rows) == 0 {
		return 0, nil
	}
	row, _ := rows[0].(map[string]any)
	meta, _ := row["meta"].(map[string]any)
	switch n := meta["count"].(type) {
	case float64:
		return int(n), nil
	case nil:
		return 0, nil
	default:
		return 0, fmt.Errorf("weaviate aggregate: unexpected count %v", n)
	}
}

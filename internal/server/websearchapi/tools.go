package websearchapi

import "ragd/internal/adapter/websearch"

// tool is a list_tools entry.
type tool struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	InputSchema inputSchema `json:"input_schema"`
}

type inputSchema struct {
	Type       string         `json:"type"`
	Properties toolProperties `json:"properties"`
	Required   []string       `json:"required"`
}

type toolProperties struct {
	Topic      property `json:"topic"`
	MaxResults property `json:"max_results"`
}

type property struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Default     *int   `json:"default,omitempty"`
	Minimum     *int   `json:"minimum,omitempty"`
	Maximum     *int   `json:"maximum,omitempty"`
}

func intp(n int) *int { return &n }

// searchTopicTool is the one tool this server offers; the search method
// runs it.
var searchTopicTool = tool{
	Name:        "search_topic",
	Description: "Search the web for a topic and return the top results (title, link, snippet).",
	InputSchema: inputSchema{
		Type: "object",
		Properties: toolProperties{
			Topic: property{Type: "string", Description: "What to search the web for."},
			MaxResults: property{Type: "integer", Description: "How many results to return.",
				Default: intp(websearch.DefaultMaxResults), Minimum: intp(1), Maximum: intp(websearch.MaxResultsLimit)},
		},
		Required: []string{"topic"},
	},
}

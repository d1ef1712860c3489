// Package wire holds the requests and answers of ragd's API: the one Go
// struct per message that the REST handlers bind, the MCP tools derive
// their schemas from (jsonschema tags), the OpenAPI document describes,
// and package client sends and reads. It imports only package ragd, so a
// program that talks to ragd over HTTP pulls in none of the server.
// The services name these types through aliases (library.IndexRequest is
// wire.IndexRequest).
package wire

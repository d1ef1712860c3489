package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/weaviate/weaviate/entities/models"
)

// Property names of a chunk object.
const (
	propText        = "text"
	propDocumentID  = "document_id"
	propSource      = "source"
	propSourceType  = "source_type"
	propContentHash = "content_hash"
	propChunkIndex  = "chunk_index"
	propPath        = "path"
	propLevel       = "level"
	propSummary     = "summary"
	propKBName      = "kb_name"
	propPage        = "page"
	propTimestamp   = "timestamp"
	propTags        = "tags"
)

// chunkProperties are the properties a search returns (kb_name is the
// tenant, known already).
var chunkProperties = []string{propText, propDocumentID, propSource, propSourceType, propContentHash,
	propChunkIndex, propPath, propLevel, propSummary, propPage, propTimestamp, propTags}

// searchableProperties are the ones BM25 scores: the body and the heading trail.
var searchableProperties = []string{propText, propPath}

func describe(embedder string, dim int) string {
	return fmt.Sprintf("ragd chunks; embedder=%s; dimension=%d", embedder, dim)
}

var descriptionPattern = regexp.MustCompile(`embedder=([^;]+); dimension=(\d+)`)

func (s *Store) ensureCollection(ctx context.Context, embedder string, dim int) error {
	exists, err := s.client.Schema().ClassExistenceChecker().WithClassName(s.class).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: check collection %s: %w", s.class, err)
	}
	if exists {
		return s.checkCollection(ctx, embedder, dim)
	}
	err = s.client.Schema().ClassCreator().WithClass(s.classDefinition(embedder, dim)).Do(ctx)
	if err != nil {
		// Another replica may have created it a moment ago.
		if again, _ := s.client.Schema().ClassExistenceChecker().WithClassName(s.class).Do(ctx); again {
			return s.checkCollection(ctx, embedder, dim)
		}
		return fmt.Errorf("weaviate: create collection %s: %w", s.class, err)
	}
	return nil
}

func (s *Store) checkCollection(ctx context.Context, embedder string, dim int) error {
	class, err := s.client.Schema().ClassGetter().WithClassName(s.class).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: read collection %s: %w", s.class, err)
	}
	m := descriptionPattern.FindStringSubmatch(class.Description)
	if m == nil {
		return fmt.Errorf("weaviate collection %s was not created by ragd (no embedder recorded); choose another weaviate.collection", s.class)
	}
	gotDim, _ := strconv.Atoi(m[2])
	if m[1] != embedder || gotDim != dim {
		return fmt.Errorf("weaviate collection %s holds vectors from embedder %s (dimension %d) but ragd is configured with %s (dimension %d); "+
			"use the same embedder, or set weaviate.collection to a new name and re-ingest", s.class, m[1], gotDim, embedder, dim)
	}
	if class.MultiTenancyConfig == nil || !class.MultiTenancyConfig.Enabled {
		return fmt.Errorf("weaviate collection %s is not multi-tenant; choose another weaviate.collection", s.class)
	}
	return nil
}

func (s *Store) classDefinition(embedder string, dim int) *models.Class {
	no, yes := false, true
	text := func(name, tokenization string, searchable bool) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: tokenization,
			IndexSearchable: &searchable, IndexFilterable: &yes}
	}
	integer := func(name string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"int"}, IndexFilterable: &yes}
	}
	return &models.Class{
		Class:       s.class,
		Description: describe(embedder, dim),
		Vectorizer:  "none",
		VectorIndexConfig: map[string]any{
			"distance": "cosine",
		},
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true, AutoTenantCreation: true, AutoTenantActivation: true},
		Properties: []*models.Property{
			text(propText, models.PropertyTokenizationWord, true),
			text(propPath, models.PropertyTokenizationWord, true),
			text(propSummary, models.PropertyTokenizationWord, false),
			text(propDocumentID, models.PropertyTokenizationField, false),
			text(propSource, models.PropertyTokenizationField, false),
			text(propSourceType, models.PropertyTokenizationField, false),
			text(propContentHash, models.PropertyTokenizationField, false),
			text(propKBName, models.PropertyTokenizationField, false),
			{Name: propTags, DataType: []string{"text[]"}, Tokenization: models.PropertyTokenizationField, IndexSearchable: &no, IndexFilterable: &yes},
			integer(propChunkIndex),
			integer(propLevel),
			integer(propPage),
			{Name: propTimestamp, DataType: []string{"date"}, IndexFilterable: &yes},
		},
	}
}

package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
	propRelated     = "related"
	propOCR         = "ocr"
	propAccess      = "access"
)

// chunkProperties are the properties a search returns (kb_name is the
// tenant, known already).
var chunkProperties = []string{propText, propDocumentID, propSource, propSourceType, propContentHash,
	propChunkIndex, propPath, propLevel, propSummary, propPage, propTimestamp, propTags, propOCR, propAccess}

func describe(embedder string, dim int) string {
	return fmt.Sprintf("ragd chunks; embedder=%s; dimension=%d", embedder, dim) + accessMark
}

var descriptionPattern = regexp.MustCompile(`embedder=([^;]+); dimension=(\d+)`)

func (s *Store) ensureCollection(ctx context.Context, embedder string, dim int) error {
	created, err := s.createIfAbsent(ctx, s.replicated(s.classDefinition(embedder, dim)))
	if err != nil || created {
		return err
	}
	return s.checkCollection(ctx, embedder, dim)
}

// createIfAbsent creates class unless it exists, and reports whether it did.
// Losing a creation race to another replica counts as "exists".
func (s *Store) createIfAbsent(ctx context.Context, class *models.Class) (bool, error) {
	exists, err := s.client.Schema().ClassExistenceChecker().WithClassName(class.Class).Do(ctx)
	if err != nil {
		return false, fmt.Errorf("weaviate: check collection %s: %w", class.Class, err)
	}
	if exists {
		return false, nil
	}
	if err := s.client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		if again, _ := s.client.Schema().ClassExistenceChecker().WithClassName(class.Class).Do(ctx); again {
			return false, nil
		}
		return false, fmt.Errorf("weaviate: create collection %s: %w", class.Class, err)
	}
	return true, nil
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
			"configure embed as it was and name the new embedder under embedders, then switch to it with `ragd embedder switch NAME` (POST /embedder/switch), which re-embeds the stored chunks without downtime", s.class, m[1], gotDim, embedder, dim)
	}
	if class.MultiTenancyConfig == nil || !class.MultiTenancyConfig.Enabled {
		return fmt.Errorf("weaviate collection %s is not multi-tenant; choose another weaviate.collection", s.class)
	}
	if err := s.checkReplication(class); err != nil {
		return err
	}
	for _, p := range []*models.Property{relatedProperty(), ocrProperty(), accessProperty()} {
		if err := s.addProperty(ctx, class, p); err != nil {
			return err
		}
	}
	return nil
}

// relatedProperty holds the words a thesaurus relates to a chunk's own
// (ragd.Chunk.Related): BM25-searchable, never filtered on.
func relatedProperty() *models.Property {
	return &models.Property{Name: propRelated, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWord,
		IndexSearchable: ptr(true), IndexFilterable: ptr(false)}
}

// ocrProperty marks chunks read by OCR from a scanned page
// (ragd.Chunk.OCR).
func ocrProperty() *models.Property {
	return &models.Property{Name: propOCR, DataType: []string{"boolean"}, IndexFilterable: ptr(true)}
}

// accessProperty holds the groups a chunk's (or image's) document is
// shared with, ragd.StoredAccess: filtered on, never searched.
func accessProperty() *models.Property {
	return &models.Property{Name: propAccess, DataType: []string{"text[]"}, Tokenization: models.PropertyTokenizationField,
		IndexSearchable: ptr(false), IndexFilterable: ptr(true)}
}

// addProperty adds a property (the related words, the OCR mark) to a
// collection created before ragd wrote it; its chunks simply have none
// until re-indexed.
func (s *Store) addProperty(ctx context.Context, class *models.Class, prop *models.Property) error {
	for _, p := range class.Properties {
		if p.Name == prop.Name {
			return nil
		}
	}
	err := s.client.Schema().PropertyCreator().WithClassName(class.Class).WithProperty(prop).Do(ctx)
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("weaviate: add property %s to collection %s: %w", prop.Name, s.class, err)
	}
	return nil
}

func (s *Store) classDefinition(embedder string, dim int) *models.Class {
	return newClass(s.class, embedder, dim,
		textProp(propText, models.PropertyTokenizationWord, true),
		textProp(propPath, models.PropertyTokenizationWord, true),
		relatedProperty(),
		textProp(propSummary, models.PropertyTokenizationWord, false),
		textProp(propDocumentID, models.PropertyTokenizationField, false),
		textProp(propSource, models.PropertyTokenizationField, false),
		textProp(propSourceType, models.PropertyTokenizationField, false),
		textProp(propContentHash, models.PropertyTokenizationField, false),
		textProp(propKBName, models.PropertyTokenizationField, false),
		&models.Property{Name: propTags, DataType: []string{"text[]"}, Tokenization: models.PropertyTokenizationField,
			IndexSearchable: ptr(false), IndexFilterable: ptr(true)},
		intProp(propChunkIndex),
		intProp(propLevel),
		intProp(propPage),
		ocrProperty(),
		accessProperty(),
		&models.Property{Name: propTimestamp, DataType: []string{"date"}, IndexFilterable: ptr(true)},
	)
}

// newClass is a multi-tenant collection of ragd's: vectors supplied by ragd,
// cosine distance, the embedder recorded in its description.
func newClass(name, embedder string, dim int, props ...*models.Property) *models.Class {
	return &models.Class{
		Class:              name,
		Description:        describe(embedder, dim),
		Vectorizer:         "none",
		VectorIndexConfig:  map[string]any{"distance": "cosine"},
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true, AutoTenantCreation: true, AutoTenantActivation: true},
		Properties:         props,
	}
}

// textProp is a filterable text property, BM25-searchable when searchable.
func textProp(name, tokenization string, searchable bool) *models.Property {
	return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: tokenization,
		IndexSearchable: ptr(searchable), IndexFilterable: ptr(true)}
}

// intProp is a filterable integer property.
func intProp(name string) *models.Property {
	return &models.Property{Name: name, DataType: []string{"int"}, IndexFilterable: ptr(true)}
}

func ptr[T any](v T) *T { return &v }

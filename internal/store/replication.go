package store

import (
	"fmt"

	"github.com/weaviate/weaviate/entities/models"
)

// replicated sets class's replication: the configured factor, and above 1
// Weaviate's async replication, so a node that was down catches up on the
// writes it missed, with time-based resolution of deletes: the later of a
// write and a delete wins. ragd rewrites the same chunk ids when a document
// comes back after a delete, so "delete always wins" would lose them, and
// no automated resolution would leave a returning node's deleted chunks in
// place.
func (s *Store) replicated(class *models.Class) *models.Class {
	class.ReplicationConfig = &models.ReplicationConfig{Factor: int64(s.replication)}
	if s.replication > 1 {
		class.ReplicationConfig.AsyncEnabled = true
		class.ReplicationConfig.DeletionStrategy = models.ReplicationConfigDeletionStrategyTimeBasedResolution
	}
	return class
}

// checkReplication fails when an existing collection was made with another
// replication factor than the one configured: Weaviate would go on with
// the collection's, and the setting would silently mean nothing.
func (s *Store) checkReplication(class *models.Class) error {
	got := int64(1)
	if class.ReplicationConfig != nil && class.ReplicationConfig.Factor > 0 {
		got = class.ReplicationConfig.Factor
	}
	if got != int64(s.replication) {
		return fmt.Errorf("weaviate collection %s has replication factor %d but weaviate.replication_factor is %d; "+
			"set weaviate.replication_factor to %d, or set weaviate.collection to a new name and re-ingest",
			class.Class, got, s.replication, got)
	}
	return nil
}

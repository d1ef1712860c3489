package kv

import "context"

// SetField sets field of the hash under key to value.
func (s *Store) SetField(ctx context.Context, key, field string, value []byte) error {
	return failed(s.rdb.HSet(ctx, key, field, value).Err())
}

// DeleteFields removes fields from the hash under key.
func (s *Store) DeleteFields(ctx context.Context, key string, fields ...string) error {
	if len(fields) == 0 {
		return nil
	}
	return failed(s.rdb.HDel(ctx, key, fields...).Err())
}

// Fields returns every field of the hash under key (empty when there is
// none).
func (s *Store) Fields(ctx context.Context, key string) (map[string]string, error) {
	m, err := s.rdb.HGetAll(ctx, key).Result()
	return m, failed(err)
}

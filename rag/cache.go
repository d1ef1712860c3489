package rag

import "context"

func (s *Service) cacheKey(ctx context.Context, namespaces []string, tool string, args any) string {
	if s.Cache == nil {
		return ""
	}
	return s.Cache.Key(ctx, namespaces, tool, args)
}

func (s *Service) cacheGet(ctx context.Context, tool, key string, dst any) bool {
	return s.Cache != nil && s.Cache.Get(ctx, tool, key, dst)
}

func (s *Service) cachePut(ctx context.Context, tool, key string, value any) {
	if s.Cache != nil {
		s.Cache.Put(ctx, tool, key, value)
	}
}

// invalidate makes every cached result of the namespace unreachable.
func (s *Service) invalidate(ctx context.Context, ns string) error {
	_, err := s.Generations.Bump(ctx, ns)
	return err
}

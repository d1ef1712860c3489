package live

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ack is one process's last word: the generation it follows (nothing of
// an older one in flight) and when it said so.
type ack struct {
	Gen int64 `json:"gen"`
	At  int64 `json:"at"` // unix milliseconds
}

// Ack records that replica follows gen.
func (r *Records) Ack(ctx context.Context, replica string, gen int64) error {
	raw, _ := json.Marshal(ack{Gen: gen, At: time.Now().UnixMilli()})
	return r.kv.SetField(ctx, r.keys.EmbedderReplicas(), replica, raw)
}

// Forget removes replica's acknowledgement (a process that stops).
func (r *Records) Forget(ctx context.Context, replica string) error {
	return r.kv.DeleteFields(ctx, r.keys.EmbedderReplicas(), replica)
}

// Behind lists the processes heard from within fresh that do not follow
// gen yet. Processes silent for longer are taken for gone (and their
// records dropped once silent for ten times as long).
func (r *Records) Behind(ctx context.Context, gen int64, fresh time.Duration) ([]string, error) {
	all, err := r.kv.Fields(ctx, r.keys.EmbedderReplicas())
	if err != nil {
		return nil, fmt.Errorf("embedder replicas: %w", err)
	}
	now := time.Now()
	var behind, gone []string
	for replica, raw := range all {
		var a ack
		if json.Unmarshal([]byte(raw), &a) != nil {
			gone = append(gone, replica)
			continue
		}
		age := now.Sub(time.UnixMilli(a.At))
		switch {
		case age > 10*fresh:
			gone = append(gone, replica)
		case age <= fresh && a.Gen < gen:
			behind = append(behind, replica)
		}
	}
	if len(gone) > 0 {
		_ = r.kv.DeleteFields(ctx, r.keys.EmbedderReplicas(), gone...)
	}
	return behind, nil
}

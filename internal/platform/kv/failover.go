package kv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// failoverWait is a go-redis hook for the sentinel client: a command that
// failed because no primary could be dialed (the old one is dead, the new
// one not yet promoted, or not yet known here) is tried again, with
// growing pauses, for up to wait. A search or a job's registry write
// then waits out a failover (down-after plus a second or two) instead of
// failing with 503; go-redis's own retries span about 100 ms. A command
// that found no connection never reached Redis, so trying it again is
// safe for writes and transactions too.
type failoverWait struct{ wait time.Duration }

// Pauses between tries: short at first, as a promotion is usually near
// once the dial has failed for a while.
const (
	failoverFirstPause = 50 * time.Millisecond
	failoverMaxPause   = 500 * time.Millisecond
)

func (h failoverWait) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h failoverWait) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return h.retry(ctx, reads(cmd), func() error { return next(ctx, cmd) })
	}
}

func (h failoverWait) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return h.retry(ctx, reads(cmds...), func() error {
			for _, c := range cmds {
				c.SetErr(nil) // a try that succeeds sets every reply anew
			}
			return next(ctx, cmds)
		})
	}
}

// retry runs try until it succeeds, fails other than by a failover, ctx
// ends or the wait is over. A try of reads only is also retried when it
// lost its connection: unlike a write, it may safely run twice.
func (h failoverWait) retry(ctx context.Context, readOnly bool, try func() error) error {
	deadline := time.Now().Add(h.wait)
	pause := failoverFirstPause
	for {
		err := try()
		retry := isFailoverError(err) || readOnly && isConnectionLoss(err)
		if err == nil || !retry || !time.Now().Add(pause).Before(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, failoverMaxPause)
	}
}

// isFailoverError reports an error from opening a connection, which
// go-redis's pool also hands back, unchanged, while it refuses to dial
// again for a moment after a run of failures; and the refusals a Redis
// gives around a failover without running the command: a cluster shard
// with no primary (CLUSTERDOWN) or moving slots (TRYAGAIN), a restarted
// node still loading its data (LOADING), a former primary now a replica
// (READONLY), a replica that lost its primary (MASTERDOWN), and a slot
// served elsewhere (MOVED, ASK): go-redis follows a redirect three times,
// and a transaction sent while the shards still settle on the new
// primary (a killed primary back as a replica) can use them all up.
// go-redis retries these too, but only for ~100 ms.
func isFailoverError(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	msg := err.Error()
	for _, refusal := range failoverRefusals {
		if strings.HasPrefix(msg, refusal) {
			return true
		}
	}
	return false
}

var failoverRefusals = []string{"CLUSTERDOWN", "TRYAGAIN", "LOADING ", "READONLY ", "MASTERDOWN ", "MOVED ", "ASK "}

// isConnectionLoss reports a connection that ended under a command: its
// Redis was killed, or a node closed it as it changed role. The command
// may have run.
func isConnectionLoss(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// reads reports commands that only read, with the MULTI and EXEC that
// wrap a transaction's: ragd's registry and cache reads.
func reads(cmds ...redis.Cmder) bool {
	for _, c := range cmds {
		if !readCommands[c.Name()] {
			return false
		}
	}
	return true
}

// readCommands are the reads ragd sends; any other command counts as a
// write.
var readCommands = map[string]bool{
	"multi": true, "exec": true, "ping": true, "get": true, "mget": true, "strlen": true, "exists": true, "ttl": true, "pttl": true,
	"type": true, "hget": true, "hmget": true, "hgetall": true, "hexists": true, "hlen": true, "hkeys": true, "hvals": true,
	"hscan": true, "smembers": true, "sismember": true, "smismember": true, "scard": true, "sscan": true, "zscore": true,
	"zmscore": true, "zcard": true, "zcount": true, "zrange": true, "zrangebyscore": true, "zrevrange": true,
	"zrevrangebyscore": true, "zrank": true, "zscan": true, "llen": true, "lrange": true, "lindex": true, "scan": true,
}

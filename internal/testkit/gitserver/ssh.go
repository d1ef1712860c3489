package gitserver

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHServer serves a repo's Root over SSH as a Git host does: a client
// authenticated by one of its keys may run `git-upload-pack '<repo>'`
// (the real `git upload-pack` over the SSH channel); any other key or
// command is refused.
type SSHServer struct {
	// URL is the repository's ssh:// URL.
	URL string
	// KnownHosts is a known_hosts file naming the server's host key, for
	// SSH_KNOWN_HOSTS.
	KnownHosts string

	mu      sync.Mutex
	allowed [][]byte // marshalled public keys
}

// NewKey returns a new ed25519 private key in OpenSSH PEM form, as a
// deploy key is stored, and its public key.
func NewKey(t testing.TB) (privatePEM string, public ssh.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "ragd test deploy key")
	if err != nil {
		t.Fatal(err)
	}
	public, err = ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(block)), public
}

// Allow lets key in.
func (s *SSHServer) Allow(key ssh.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowed = append(s.allowed, key.Marshal())
}

func (s *SSHServer) allows(key ssh.PublicKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.allowed {
		if bytes.Equal(k, key.Marshal()) {
			return true
		}
	}
	return false
}

// SSH serves the repo's Root over SSH on a loopback port until the test
// ends.
func SSH(t testing.TB, r *Repo) *SSHServer {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	s := &SSHServer{URL: fmt.Sprintf("ssh://git@%s/%s", l.Addr(), r.Name)}
	s.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(l.Addr().String())}, signer.PublicKey())
	if err := os.WriteFile(s.KnownHosts, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if s.allows(key) {
			return nil, nil
		}
		return nil, fmt.Errorf("key refused")
	}}
	cfg.AddHostKey(signer)
	upload := filepath.Join(execPath(t), "git-upload-pack")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, upload, r.Root)
		}
	}()
	return s
}

// serveSSH runs one connection: each session may exec git-upload-pack on
// a repository under root.
func serveSSH(c net.Conn, cfg *ssh.ServerConfig, upload, root string) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, requests, err := nc.Accept()
		if err != nil {
			return
		}
		go serveSession(ch, requests, upload, root)
	}
}

func serveSession(ch ssh.Channel, requests <-chan *ssh.Request, upload, root string) {
	defer ch.Close()
	for req := range requests {
		if req.Type != "exec" || len(req.Payload) < 4 {
			_ = req.Reply(req.Type == "env", nil)
			continue
		}
		n := binary.BigEndian.Uint32(req.Payload)
		command := string(req.Payload[4:min(4+int(n), len(req.Payload))])
		repo, ok := strings.CutPrefix(command, "git-upload-pack ")
		if !ok {
			_ = req.Reply(false, nil)
			return
		}
		_ = req.Reply(true, nil)
		dir := filepath.Join(root, filepath.FromSlash(path.Clean("/"+strings.Trim(repo, "'"))))
		cmd := exec.Command(upload, dir)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
		status := uint32(0)
		if err := cmd.Run(); err != nil {
			status = 1
		}
		_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
		return
	}
}

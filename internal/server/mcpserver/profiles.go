package mcpserver

import (
	"fmt"
	"regexp"
	"strings"

	"ragd"
	"ragd/internal/retrieval/search"
)

// Profile declares a namespaced tool: Base (a core tool) bound to a
// namespace and filters, listed as {Namespace}_{Name} with its own
// description, e.g. finance_query.
type Profile struct {
	Namespace   string
	Name        string
	Base        string
	Description string
	// KBName is the namespace the tool searches or fills (default Namespace).
	KBName string
	Filter *search.ScopeFilter
}

// sideEffects are name fragments of tools that act on the world. ragd is for
// ingest and retrieval only: a profile named like one is refused, so an agent
// is never shown a tool whose name promises more than it does.
var sideEffects = []string{"execute_sql", "exec", "shell", "bash", "send_email", "email", "sms", "http_request",
	"write_file", "delete_file", "run_command", "command", "eval", "system", "sudo", "ssh", "payment", "transfer", "purchase"}

var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,40}$`)

// validate checks the profile and returns its tool name and base tool.
func (p Profile) validate(core map[string]tool) (string, tool, error) {
	name := p.Namespace + "_" + p.Name
	if !ragd.ValidNamespace(p.Namespace) || strings.Contains(p.Namespace, "-") {
		return "", tool{}, fmt.Errorf("plugins: profile %q: namespace %q must be lowercase letters, digits and _", name, p.Namespace)
	}
	if !profileName.MatchString(p.Name) {
		return "", tool{}, fmt.Errorf("plugins: profile %q: name %q must be lowercase letters, digits and _", name, p.Name)
	}
	for _, bad := range sideEffects {
		if strings.Contains(name, bad) {
			return "", tool{}, fmt.Errorf("plugins: refusing tool %q: its name contains %q, a side effect; ragd serves ingest and retrieval only", name, bad)
		}
	}
	if strings.HasPrefix(name, "core_") {
		return "", tool{}, fmt.Errorf("plugins: profile %q would shadow a core tool", name)
	}
	base, ok := core[p.Base]
	if !ok {
		return "", tool{}, fmt.Errorf("plugins: profile %q: base %q is not a core tool", name, p.Base)
	}
	if p.KBName != "" && !ragd.ValidNamespace(p.KBName) {
		return "", tool{}, fmt.Errorf("plugins: profile %q: kb_name %q is not a valid namespace", name, p.KBName)
	}
	return name, base, nil
}

func (p Profile) preset() preset {
	kb := p.KBName
	if kb == "" {
		kb = p.Namespace
	}
	return preset{KBName: kb, Filter: p.Filter}
}

package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Load returns the defaults overlaid with the YAML file at path (skipped when
// path is empty) and then with RAGD_* variables from environ. Relative
// paths of the defaults and of the file (data.dir, ingest.roots, ...) are
// taken against the file's directory, so a ragd started from anywhere
// finds the same files; without a file, and in RAGD_* variables, against
// the working directory.
func Load(path string, environ []string) (Config, error) {
	cfg := Default()
	env := envMap(environ)
	base, err := relativeBase(path)
	if err != nil {
		return cfg, err
	}
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("config: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(expand(raw, env)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("config %s: %w", path, err)
		}
	}
	cfg.resolvePaths(base)
	if err := applyEnv(&cfg, env); err != nil {
		return cfg, err
	}
	if wd, err := os.Getwd(); err == nil {
		cfg.resolvePaths(wd) // what RAGD_* variables set
	}
	if err := cfg.renamed(); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// renamed carries a setting given under its earlier name to its present
// one: worker.job_retention to jobs.retention. Both given, with different
// values, is refused.
func (c *Config) renamed() error {
	old := c.Worker.JobRetention
	if old == 0 {
		return nil
	}
	if c.Jobs.Retention != Default().Jobs.Retention && c.Jobs.Retention != old {
		return fmt.Errorf("config: worker.job_retention (%s) and jobs.retention (%s) are both set: "+
			"worker.job_retention is jobs.retention's earlier name; keep jobs.retention only", old, c.Jobs.Retention)
	}
	c.Jobs.Retention = old
	return nil
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// varPattern matches ${VAR} and ${VAR:-default}; a bare $ is left alone so
// passwords and regexes in the file survive.
var varPattern = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand substitutes variables; an unset one without a default expands to "",
// as in a shell.
func expand(raw []byte, env map[string]string) []byte {
	return varPattern.ReplaceAllFunc(raw, func(m []byte) []byte {
		sub := varPattern.FindSubmatch(m)
		if v := env[string(sub[1])]; v != "" {
			return []byte(v)
		}
		return sub[3]
	})
}

// applyEnv sets every field whose RAGD_<SECTION>_<KEY> variable is present.
func applyEnv(cfg *Config, env map[string]string) error {
	root := reflect.ValueOf(cfg).Elem()
	for i := 0; i < root.NumField(); i++ {
		section := root.Type().Field(i).Tag.Get("yaml")
		sv := root.Field(i)
		if sv.Kind() != reflect.Struct {
			continue // a list (watch:) lives in the file only
		}
		for j := 0; j < sv.NumField(); j++ {
			key := sv.Type().Field(j).Tag.Get("yaml")
			if !envSettable(sv.Field(j)) {
				continue // lists of structures live in the file only
			}
			name := EnvName(section, key)
			val, ok := env[name]
			if !ok {
				continue
			}
			if err := setField(sv.Field(j), val); err != nil {
				return fmt.Errorf("config: %s=%q: %w", name, val, err)
			}
		}
	}
	return nil
}

// EnvName is the environment variable that overrides section.key.
func EnvName(section, key string) string {
	return "RAGD_" + strings.ToUpper(section) + "_" + strings.ToUpper(key)
}

var durationType = reflect.TypeOf(time.Duration(0))

// envSettable: a nested section (redis.sentinel) lives in the file only.
func envSettable(f reflect.Value) bool {
	if f.Kind() == reflect.Struct && f.Type() != durationType {
		return false
	}
	return f.Kind() != reflect.Slice || f.Type().Elem().Kind() == reflect.String
}

func setField(f reflect.Value, val string) error {
	val = strings.TrimSpace(val)
	switch {
	case f.Type() == durationType:
		d, err := time.ParseDuration(val)
		if err != nil {
			return err
		}
		f.SetInt(int64(d))
	case f.Kind() == reflect.String:
		f.SetString(val)
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case f.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return err
		}
		f.SetFloat(x)
	case f.Kind() == reflect.Map && f.Type().Key().Kind() == reflect.String && f.Type().Elem().Kind() == reflect.String:
		return setStringMap(f, val)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		var items []string
		for _, s := range strings.Split(val, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, s)
			}
		}
		f.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("unsupported setting type %s", f.Type())
	}
	return nil
}

// setStringMap sets a map of strings from name=value pairs separated by
// commas (telemetry.headers), as OTEL_EXPORTER_OTLP_HEADERS writes them.
func setStringMap(f reflect.Value, val string) error {
	m := reflect.MakeMap(f.Type())
	for _, pair := range strings.Split(val, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("want name=value pairs separated by commas, not %q", pair)
		}
		m.SetMapIndex(reflect.ValueOf(strings.TrimSpace(k)), reflect.ValueOf(strings.TrimSpace(v)))
	}
	f.Set(m)
	return nil
}

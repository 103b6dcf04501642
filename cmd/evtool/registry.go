package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/registryserver"
)

// Environment variables of `evtool registry serve`'s own credentials
// (separate from the client's EVTOOL_REGISTRY_*, so one CI job can serve
// and push with different ones).
const (
	envServeUser     = "EVTOOL_SERVE_USER"
	envServePassword = "EVTOOL_SERVE_PASSWORD"
	envServeToken    = "EVTOOL_SERVE_TOKEN"
)

func (a *app) registryCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "registry",
		Short: "Sync the catalog with Confluent-compatible schema registries, or serve it as one",
		Long: `Keep a Confluent-compatible schema registry (Confluent, Redpanda, Apicurio,
Karapace) in step with the catalog, which stays the source of truth, or serve
the catalog as such a registry.

  push   register the catalog's versions and set compatibility levels (idempotent)
  pull   write a catalog from a registry's JSON Schema, Avro and Protobuf subjects
  diff   report drift between the catalog and a registry (exit 1 on drift)
  serve  a registry REST API over the catalog directory

Subjects are the type names (--subject-strategy type, the default),
"<topic>-value" (topic: Confluent's TopicNameStrategy, for a topic that carries
one type) or "<topic>-<type>" (topic-type), the topic from event.yaml. Versions that
$ref shared catalog files are registered self-contained (bundled under $defs).

Credentials: --user/--password or --token, or EVTOOL_REGISTRY_USER,
EVTOOL_REGISTRY_PASSWORD, EVTOOL_REGISTRY_TOKEN (preferred: flags show in
process lists). They never appear in output or errors. See docs/registry.md.`,
	}
	c.AddCommand(a.registryPushCommand(), a.registryPullCommand(), a.registryDiffCommand(), a.registryServeCommand())
	return c
}

// clientFlags are the connection flags of push, pull and diff.
type clientFlags struct {
	url, user, password, token string
	caFile, certFile, keyFile  string
	insecure                   bool
	timeout                    time.Duration
	strategy                   string
	subjectPrefix              string
	maxResponse, maxTotal      int64
	cfgURL, cfgStrategy        string // from evtool.yaml
}

func addClientFlags(c *cobra.Command, f *clientFlags) {
	fl := c.Flags()
	fl.StringVar(&f.url, "url", "", "registry URL (default: $"+schemaregistry.EnvURL+", then evtool.yaml registry.url)")
	fl.StringVar(&f.user, "user", "", "basic auth user (default: $"+schemaregistry.EnvUser+")")
	fl.StringVar(&f.password, "password", "", "basic auth password (prefer $"+schemaregistry.EnvPassword+")")
	fl.StringVar(&f.token, "token", "", "bearer token (prefer $"+schemaregistry.EnvToken+")")
	fl.StringVar(&f.caFile, "ca-file", "", "PEM file of CAs to trust (default: $"+schemaregistry.EnvCAFile+", else the system's)")
	fl.StringVar(&f.certFile, "cert-file", "", "client certificate, PEM (default: $"+schemaregistry.EnvCertFile+")")
	fl.StringVar(&f.keyFile, "key-file", "", "client key, PEM (default: $"+schemaregistry.EnvKeyFile+")")
	fl.BoolVar(&f.insecure, "insecure-skip-verify", false, "do not verify the registry's TLS certificate (tests only)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of each HTTP request")
	fl.Int64Var(&f.maxResponse, "max-response", schemaregistry.DefaultMaxResponse, "largest registry response read, in bytes")
	fl.Int64Var(&f.maxTotal, "max-response-total", schemaregistry.DefaultMaxResponseTotal, "most bytes read from the registry in all, in bytes")
	fl.StringVar(&f.strategy, "subject-strategy", "", "type | topic | topic-type (default: evtool.yaml registry.subject_strategy, else type)")
}

// checkResponseLimits refuses the --max-response and --max-response-total
// values that would bound nothing or refuse everything.
func checkResponseLimits(maxResponse, maxTotal int64) error {
	if maxResponse <= 0 || maxTotal <= 0 {
		return usagef("--max-response and --max-response-total must be positive byte counts")
	}
	return nil
}

func (f *clientFlags) client(a *app) (*schemaregistry.Client, schemaregistry.Strategy, error) {
	st := f.strategy
	if st == "" {
		st = f.cfgStrategy
	}
	strategy, err := schemaregistry.ParseStrategy(st)
	if err != nil {
		return nil, "", usageError{fmt.Errorf("--subject-strategy: %w", err)}
	}
	if err := checkResponseLimits(f.maxResponse, f.maxTotal); err != nil {
		return nil, "", err
	}
	opts := schemaregistry.ClientOptions{
		URL: f.url, User: f.user, Password: f.password, Token: f.token,
		CAFile: f.caFile, CertFile: f.certFile, KeyFile: f.keyFile,
		InsecureSkipVerify: f.insecure, Timeout: f.timeout, MaxResponse: f.maxResponse, MaxResponseTotal: f.maxTotal, UserAgent: "evtool/" + strings.Fields(buildVersion())[0],
	}.WithEnv()
	if opts.URL == "" {
		opts.URL = f.cfgURL
	}
	if opts.URL == "" {
		return nil, "", usagef("no registry URL: pass --url, set %s, or set registry.url in evtool.yaml", schemaregistry.EnvURL)
	}
	if opts.InsecureSkipVerify {
		fmt.Fprintln(a.stderr, "evtool: warning: TLS certificate verification is off (--insecure-skip-verify)")
	}
	cl, err := schemaregistry.NewClient(opts)
	if err != nil {
		return nil, "", usageError{err}
	}
	return cl, strategy, nil
}

// loadRegistryCatalog loads the catalog and takes the registry defaults
// from its evtool.yaml.
func loadRegistryCatalog(ctx context.Context, dir string, f *clientFlags) (*catalog.Catalog, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("catalog directory %s does not exist", dir)
	}
	cat, err := loadCatalog(ctx, dir)
	if err != nil {
		return nil, err
	}
	f.cfgURL, f.cfgStrategy = cat.Config.Registry.URL, cat.Config.Registry.SubjectStrategy
	return cat, nil
}

func (a *app) registryPushCommand() *cobra.Command {
	var (
		f              clientFlags
		dir, format    string
		dryRun, bypass bool
	)
	c := &cobra.Command{
		Use:   "push",
		Short: "Register the catalog's versions in a registry and set compatibility levels",
		Long: `Make the registry hold the catalog in --dir. For each type, in order: set the
subject's compatibility level to the type's mode (FULL_TRANSITIVE etc. map to
the registry's levels of the same name), then register the versions the
registry lacks, oldest first, with the schemaType of their format (JSON, AVRO,
PROTOBUF). Avro named types and Protobuf imports from shared files become
Confluent schema references: each shared file is registered first (looked up,
registered only when absent) under its own subject, the full name of its named
type (Avro) or its import path (Protobuf); well-known types are the registry's.

Push is idempotent: against a registry already in step it only reads. It never
changes or deletes what a registry holds: a registry version that differs from
the catalog's (JSON Schema as canonical JSON; Avro as the whole schema with
named types inlined; Protobuf as descriptors) is reported and that subject is
skipped.

A registry judges compatibility with its own rules, which are not evtool's
(evtool's lenient profile accepts optional fields added to open objects;
Confluent's checker does not). When the registry rejects a version evtool's
gate accepted, push reports it; --bypass-registry-compat registers it with the
subject's level set to NONE for that registration, then restores it.

Exit 0 when the registry holds the catalog, 1 when a subject conflicts, 2 on
usage, network or authentication errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ff, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			cat, err := loadRegistryCatalog(cmd.Context(), dir, &f)
			if err != nil {
				return err
			}
			cl, st, err := f.client(a)
			if err != nil {
				return err
			}
			rep, err := schemaregistry.Push(cmd.Context(), cl, cat, schemaregistry.PushOptions{
				SyncOptions: schemaregistry.SyncOptions{Strategy: st}, DryRun: dryRun, BypassRegistryCompat: bypass,
			})
			if rep != nil && (err == nil || len(rep.Findings) > 0) {
				if werr := report.Write(a.stdout, ff, rep); werr != nil && err == nil {
					err = werr
				}
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return errFindings
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	addClientFlags(c, &f)
	c.Flags().BoolVar(&dryRun, "dry-run", false, "report what would change and change nothing")
	c.Flags().BoolVar(&bypass, "bypass-registry-compat", false, "register versions the registry's own compatibility checker rejects (level NONE during the registration)")
	formatFlag(c, &format, report.BasicFormats)
	return c
}

func (a *app) registryPullCommand() *cobra.Command {
	var (
		f                 clientFlags
		out, defaultDraft string
	)
	c := &cobra.Command{
		Use:   "pull",
		Short: "Write a catalog from a registry's subjects",
		Long: `Write a new catalog into --out (which must not exist or be empty) from the
registry's JSON Schema subjects: evtool.yaml (compat.mode from the registry's
global level; registry.url and subject_strategy, never credentials), and per
subject schemas/<type>/v<N>.json for its versions in order, with event.yaml
when the type needs a topic (topic-type) or its own compatibility level.
Schema references are inlined under $defs. A schema without $schema gets
"$schema" naming --default-draft, the draft the registry reads such schemas as
(7 for Confluent and Karapace; evtool would read it as 2020-12), and evtool.yaml
gets default_draft. Avro and Protobuf subjects are written as v<N>.avsc and
v<N>.proto; the schemas they reference as shared files inside the catalog root
(schemas/common/<full name>.avsc, schemas/<import path>), never outside it: a
reference name that is not an Avro full name or a relative .proto path skips
the subject. Subjects that only hold referenced schemas are not types.
Subjects of unknown or mixed schema types, or that do not map to a type name,
are skipped with a warning. The result passes 'evtool lint'.

Exit 0 on success, 2 on errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("registry pull: --out DIR is required")
			}
			draft, err := catalog.ParseDraft(defaultDraft)
			if err != nil {
				return usageError{fmt.Errorf("--default-draft: %w", err)}
			}
			cl, st, err := f.client(a)
			if err != nil {
				return err
			}
			res, err := schemaregistry.Pull(cmd.Context(), cl, schemaregistry.PullOptions{
				SyncOptions: schemaregistry.SyncOptions{Strategy: st, SubjectPrefix: f.subjectPrefix},
				Out:         out,
				Draft:       draft,
				Warn:        func(msg string) { fmt.Fprintf(a.stderr, "evtool: warning: %s\n", report.SafeLines(msg)) },
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "pulled %d type(s), %d version(s) from %s into %s\n", res.Types, res.Versions, cl.Display, out)
			fmt.Fprintf(a.stdout, "next: evtool lint --dir %s\n", out)
			return nil
		},
	}
	addClientFlags(c, &f)
	c.Flags().StringVarP(&out, "out", "o", "", "directory to write the catalog to (must not exist or be empty)")
	c.Flags().StringVar(&f.subjectPrefix, "subject-prefix", "", "pull only subjects starting with this prefix")
	c.Flags().StringVar(&defaultDraft, "default-draft", schemaregistry.RegistryDraft.Name, "draft the registry reads a schema without $schema as: "+dialectNames()+" (written into each such schema)")
	return c
}

func (a *app) registryDiffCommand() *cobra.Command {
	var (
		f           clientFlags
		dir, format string
	)
	c := &cobra.Command{
		Use:   "diff",
		Short: "Report drift between the catalog and a registry",
		Long: `Compare the catalog in --dir with the registry: subjects and versions on one
side only, and versions whose content differs (JSON Schema as canonical JSON,
with the first differing JSON pointer; Avro as the whole schema with its
references inlined; Protobuf as the descriptors of the file and its imports). The i-th active version of a subject
is compared with the catalog's v<i>. Registry subjects that map to no catalog
type count when they map to a dotted type name (narrow with --subject-prefix).
A compatibility level that differs from the catalog's mode is a warning.

Exit 0 when in step, 1 on drift, 2 on usage, network or authentication errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ff, err := parseFormat(format, report.GateFormats)
			if err != nil {
				return err
			}
			cat, err := loadRegistryCatalog(cmd.Context(), dir, &f)
			if err != nil {
				return err
			}
			cl, st, err := f.client(a)
			if err != nil {
				return err
			}
			rep, err := schemaregistry.Diff(cmd.Context(), cl, cat, schemaregistry.SyncOptions{Strategy: st, SubjectPrefix: f.subjectPrefix})
			if err != nil {
				return err
			}
			rep.Rules = rules.All()
			if err := report.Write(a.stdout, ff, rep); err != nil {
				return err
			}
			if rep.Failed() {
				return errFindings
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	addClientFlags(c, &f)
	c.Flags().StringVar(&f.subjectPrefix, "subject-prefix", "", "consider only registry subjects starting with this prefix")
	formatFlag(c, &format, report.GateFormats)
	return c
}

func (a *app) registryServeCommand() *cobra.Command {
	var (
		dir, addr, urlFile            string
		user, passwordFile, tokenFile string
		readOnly, allowRemoteUnauthed bool
		allowConfigWrites             bool
		maxBody                       int64
		checkTimeout                  time.Duration
		strategy                      string
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the catalog as a Confluent-compatible schema registry",
		Long: `Serve the catalog in --dir over the Confluent Schema Registry REST API:
subjects are the catalog's types under --subject-strategy (type names, the
default; topic: "<topic>-value", the default of Confluent's serializers, for
the one type with that topic; topic-type: "<topic>-<type>"), versions its
versions, schema type JSON, AVRO or PROTOBUF (the default, as Confluent's, is
AVRO) with references to the catalog's shared files, each served as a subject
of its own with version 1. A registration extends or creates only the type
its subject maps to; any other subject is refused, never made a type.
Compatibility (POST /compatibility/..., and every registration) is decided by
evtool's engine under the type's mode and profile, with evtool.yaml's
approvals; ?verbose=true returns its rule messages.

A registration that passes writes the next v<N>.json, .avsc or .proto into the catalog
atomically (commit it to git). Compatibility levels live in git: PUT and
DELETE /config[/{subject}] that would change one are refused (42205; a PUT of
the level the catalog already has succeeds and writes nothing) unless
--allow-config-writes, which writes compat.mode into evtool.yaml or the type's
event.yaml. Schema ids are kept in evtool.ids.json beside evtool.yaml (commit
it: replay, validate and verify frame and check records with these ids; ids an
older serve kept in <catalog root>/.registry/ids.json are read and moved there).
--read-only refuses every change. One writing server per catalog: a second
one refuses to start and names the first (lock .registry/serve.lock beside
evtool.yaml, ignored by git; read-only servers share it). Each compatibility check has a deadline
(--check-timeout, default 30s): a registration that misses it is answered
with error code 50002 and writes nothing.

Binds 127.0.0.1:8081 by default. Authentication, when configured, applies to
every request: basic (--auth-user and the password in $EVTOOL_SERVE_PASSWORD or
--auth-password-file) and/or bearer ($EVTOOL_SERVE_TOKEN or --auth-token-file).
Serving on a non-loopback address without authentication requires
--allow-unauthenticated.

Runs until interrupted. See docs/registry.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if user == "" {
				user = os.Getenv(envServeUser)
			}
			password := os.Getenv(envServePassword)
			token := os.Getenv(envServeToken)
			var err error
			if passwordFile != "" {
				if password, err = readSecretFile(passwordFile); err != nil {
					return usageError{fmt.Errorf("--auth-password-file: %w", err)}
				}
			}
			if tokenFile != "" {
				if token, err = readSecretFile(tokenFile); err != nil {
					return usageError{fmt.Errorf("--auth-token-file: %w", err)}
				}
			}
			if user != "" && password == "" {
				return usagef("--auth-user needs a password: set %s or --auth-password-file", envServePassword)
			}
			if user == "" && password != "" {
				return usagef("a server password needs a user: --auth-user or %s", envServeUser)
			}
			if strategy != "" {
				if _, err := schemaregistry.ParseStrategy(strategy); err != nil {
					return usageError{fmt.Errorf("--subject-strategy: %w", err)}
				}
			}
			if checkTimeout <= 0 {
				return usagef("--check-timeout %s: use a positive duration, e.g. 30s", checkTimeout)
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usagef("--addr %q: %v (use HOST:PORT, e.g. 127.0.0.1:8081)", addr, err)
			}
			if !registryserver.IsLoopbackHost(host) && user == "" && token == "" && !allowRemoteUnauthed {
				return usagef("--addr %s is reachable from other machines and no authentication is configured: set %s/%s or %s, or pass --allow-unauthenticated", addr, envServeUser, envServePassword, envServeToken)
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			srv, err := registryserver.NewServer(registryserver.ServerOptions{
				Dir: dir, ReadOnly: readOnly, AllowConfigWrites: allowConfigWrites, MaxBody: maxBody, CheckTimeout: checkTimeout, Strategy: schemaregistry.Strategy(strategy), User: user, Password: password, Token: token,
				LoopbackHostsOnly: registryserver.IsLoopbackHost(host),
				Logf: func(format string, args ...any) {
					// Requests name subjects and paths: what a client sends.
					fmt.Fprintf(a.stderr, "evtool registry serve: %s\n", report.SafeLines(fmt.Sprintf(format, args...)))
				},
			})
			if err != nil {
				return err
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			base := "http://" + ln.Addr().String()
			srv.Announce(base)
			mode := ""
			if readOnly {
				mode = ", read-only"
			}
			auth := "no authentication"
			switch {
			case user != "" && token != "":
				auth = "basic or bearer authentication"
			case user != "":
				auth = "basic authentication"
			case token != "":
				auth = "bearer authentication"
			}
			fmt.Fprintf(a.stderr, "evtool registry serve: %s (%d subjects%s, %s) on %s\n", filepath.Clean(dir), len(srv.Subjects()), mode, auth, base)
			if urlFile != "" {
				if err := writeFileAtomic(urlFile, []byte(base+"\n")); err != nil {
					ln.Close()
					return fmt.Errorf("--url-file: %w", err)
				}
			}
			return srv.Serve(cmd.Context(), ln)
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8081", "address to listen on (port 0 picks a free one)")
	c.Flags().BoolVar(&readOnly, "read-only", false, "refuse registrations and config changes")
	c.Flags().BoolVar(&allowConfigWrites, "allow-config-writes", false, "let PUT/DELETE /config change compatibility levels in evtool.yaml and event.yaml (by default levels live in git)")
	c.Flags().StringVar(&strategy, "subject-strategy", "", "type | topic | topic-type: how subjects map to catalog types (default: evtool.yaml registry.subject_strategy, else type)")
	c.Flags().DurationVar(&checkTimeout, "check-timeout", registryserver.DefaultCheckTimeout, "deadline of each compatibility check; a registration that misses it is answered 50002 and not written")
	c.Flags().Int64Var(&maxBody, "max-body", registryserver.DefaultMaxBody, "largest request body accepted, in bytes")
	c.Flags().StringVar(&user, "auth-user", "", "require basic auth with this user (password: $"+envServePassword+" or --auth-password-file)")
	c.Flags().StringVar(&passwordFile, "auth-password-file", "", "file holding the basic auth password")
	c.Flags().StringVar(&tokenFile, "auth-token-file", "", "file holding the bearer token (or $"+envServeToken+")")
	c.Flags().BoolVar(&allowRemoteUnauthed, "allow-unauthenticated", false, "allow a non-loopback --addr without authentication")
	c.Flags().StringVar(&urlFile, "url-file", "", "write the base URL to this file once listening (for scripts using --addr with port 0)")
	return c
}

func readSecretFile(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	s := strings.TrimRight(string(data), "\r\n")
	if s == "" {
		return "", errors.New("the file is empty")
	}
	return s, nil
}

func writeFileAtomic(p string, data []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

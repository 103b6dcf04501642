package schemaregistry

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

func TestPushTopicTypeStrategy(t *testing.T) {
	reg := srfake.New()
	defer reg.Close()
	dir := srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))
	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	rep, err := Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{SyncOptions: SyncOptions{Strategy: StrategyTopicType}})
	if err != nil || rep.Failed() {
		t.Fatalf("push: %v %+v", err, rep)
	}
	subs, _ := c.Subjects(ctx, "")
	if fmt.Sprint(subs) != "[orders-com.example.order.paid orders-com.example.order.placed orders-com.example.order.shipped]" {
		t.Fatalf("subjects %v", subs)
	}
	d, err := Diff(ctx, c, srtest.LoadCat(t, dir), SyncOptions{Strategy: StrategyTopicType})
	if err != nil || len(d.Findings) != 0 {
		t.Fatalf("diff: %v %+v", err, d.Findings)
	}
	out := filepath.Join(t.TempDir(), "pulled")
	if _, err := Pull(ctx, c, PullOptions{SyncOptions: SyncOptions{Strategy: StrategyTopicType}, Out: out}); err != nil {
		t.Fatal(err)
	}
	pulled := srtest.LoadCat(t, out)
	if typ := pulled.Lookup(placed); typ == nil || typ.Meta.Topic != "orders" || len(typ.Versions) != 2 {
		t.Fatalf("pulled %+v", typ)
	}
	if pulled.Config.Registry.SubjectStrategy != "topic-type" {
		t.Fatalf("strategy %q", pulled.Config.Registry.SubjectStrategy)
	}

	// A type without a topic cannot be pushed under topic-type.
	noTopic := srtest.MinimalCatalog(t, "NONE", nil)
	rep, err = Push(ctx, c, srtest.LoadCat(t, noTopic), PushOptions{SyncOptions: SyncOptions{Strategy: StrategyTopicType}})
	if err != nil || srtest.Count(rep, RuleSubjectStrategy) != 1 {
		t.Fatalf("push without topic: %v %+v", err, rep.Findings)
	}
}

func TestStrategySplit(t *testing.T) {
	for _, c := range []struct{ subject, typ, topic string }{
		{"orders-com.example.order.placed", "com.example.order.placed", "orders"},
		{"my-topic-com.example.x", "com.example.x", "my-topic"},
		{"orders-com.example.order-placed", "com.example.order-placed", "orders"},
		{"orders.v1-com.acme.thing", "com.acme.thing", "orders.v1"},
		{"orders-value", "", ""},
		{"noseparator", "", ""},
		{"..-com.example.x", "", ""}, // Kafka refuses the topics "." and ".."
		{".-com.example.x", "", ""},
		{strings.Repeat("t", 249) + "-com.example.x", "com.example.x", strings.Repeat("t", 249)},
		{strings.Repeat("t", 250) + "-com.example.x", "", ""}, // Kafka's limit is 249
	} {
		typ, topic, ok := StrategyTopicType.Split(c.subject, nil)
		if typ != c.typ || topic != c.topic || ok != (c.typ != "") {
			t.Errorf("Split(%q) = %q %q %v", c.subject, typ, topic, ok)
		}
	}
	if typ, topic, ok := StrategyTopicType.Split("a-b-c.d", map[string]string{"a-b-c.d": "b-c.d"}); !ok || typ != "b-c.d" || topic != "a" {
		t.Errorf("known mapping: %q %q", typ, topic)
	}
	if _, _, ok := StrategyType.Split("has space", nil); ok {
		t.Error("invalid type name accepted")
	}
	if _, err := ParseStrategy("record"); err == nil {
		t.Error("unknown strategy accepted")
	}
}

// TestStrategySplitLongSubject: a subject as long as a request line (1 MB
// of '-') is split at the cost of its first 250 bytes, not a regexp match
// per '-' (which took seconds per request).
func TestStrategySplitLongSubject(t *testing.T) {
	subject := strings.Repeat("-", 1<<20)
	start := time.Now()
	for range 3 {
		if _, _, ok := StrategyTopicType.Split(subject, nil); ok {
			t.Fatal("split a subject of dashes")
		}
	}
	// A bound against the blow-up (about a minute before), not a timing.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("3 splits of a 1 MB subject took %v", d)
	}
}

// TestCredentialsNeverLeak: failing authentication, URL userinfo and a
// registry that echoes the Authorization header never put a credential
// into an error.
func TestCredentialsNeverLeak(t *testing.T) {
	const token = "tok-SECRET-4242"
	const password = "pw-SECRET-7777"
	reg := srfake.New(srfake.WithAuth("Bearer right-token"))
	defer reg.Close()

	check := func(t *testing.T, err error, secrets ...string) {
		t.Helper()
		if err == nil {
			t.Fatal("expected an error")
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Fatalf("error leaks %q: %v", s, err)
			}
		}
	}
	t.Run("wrong token", func(t *testing.T) {
		c := MustNewClient(t, ClientOptions{URL: reg.URL(), Token: token})
		_, err := c.Subjects(ctx, "")
		check(t, err, token)
		_, err = Diff(ctx, c, srtest.LoadCat(t, srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))), SyncOptions{})
		check(t, err, token)
	})
	t.Run("wrong basic", func(t *testing.T) {
		c := MustNewClient(t, ClientOptions{URL: reg.URL(), User: "ci-user", Password: password})
		_, err := Push(ctx, c, srtest.LoadCat(t, srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))), PushOptions{})
		check(t, err, password, base64.StdEncoding.EncodeToString([]byte("ci-user:"+password)))
	})
	t.Run("userinfo in URL", func(t *testing.T) {
		c := MustNewClient(t, ClientOptions{URL: "http://ci-user:" + password + "@127.0.0.1:1/prefix?apikey=" + token})
		if strings.Contains(c.Display, password) || strings.Contains(c.Display, token) || strings.Contains(c.Display, "ci-user") {
			t.Fatalf("display URL leaks: %s", c.Display)
		}
		_, err := c.Subjects(ctx, "")
		check(t, err, password, token, "ci-user")
		srtest.MustContain(t, err.Error(), "127.0.0.1:1")
	})
	t.Run("echoing registry", func(t *testing.T) {
		echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", wire.ContentType)
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error_code":40101,"message":"bad credentials %s (%s)"}`, r.Header.Get("Authorization"), r.URL.RawQuery)
		}))
		defer echo.Close()
		c := MustNewClient(t, ClientOptions{URL: echo.URL + "?token=" + token, User: "ci-user", Password: password})
		_, err := c.Subjects(ctx, "")
		check(t, err, password, token, base64.StdEncoding.EncodeToString([]byte("ci-user:"+password)))
		srtest.MustContain(t, err.Error(), "HTTP 401")
	})
	t.Run("bad options", func(t *testing.T) {
		_, err := NewClient(ClientOptions{URL: "ftp://u:" + password + "@host"})
		check(t, err, password)
		_, err = NewClient(ClientOptions{URL: "http://host", User: "u", Password: password, Token: token})
		check(t, err, password, token)
	})
	if got := RedactURL("https://key:secret@sr.example.com:8081/ccompat?x=1"); got != "https://REDACTED@sr.example.com:8081/ccompat?x=REDACTED" {
		t.Fatalf("RedactURL = %s", got)
	}
}

func TestClientTLS(t *testing.T) {
	reg := srfake.NewRegistry()
	srv := httptest.NewTLSServer(reg.Handler())
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemData, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MustNewClient(t, ClientOptions{URL: srv.URL}).Subjects(ctx, ""); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	if _, err := MustNewClient(t, ClientOptions{URL: srv.URL, CAFile: ca}).Subjects(ctx, ""); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	if _, err := MustNewClient(t, ClientOptions{URL: srv.URL, InsecureSkipVerify: true}).Subjects(ctx, ""); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	if _, err := NewClient(ClientOptions{URL: srv.URL, CertFile: ca}); err == nil {
		t.Fatal("a certificate without a key was accepted")
	}
	if _, err := NewClient(ClientOptions{URL: srv.URL, CAFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil {
		t.Fatal("a missing CA file was accepted")
	}
}

func TestClientOptionsFromEnv(t *testing.T) {
	t.Setenv(EnvURL, "http://env-registry:8081")
	t.Setenv(EnvUser, "env-user")
	t.Setenv(EnvPassword, "env-pass")
	t.Setenv(EnvInsecure, "true")
	o := ClientOptions{}.WithEnv()
	if o.URL != "http://env-registry:8081" || o.User != "env-user" || o.Password != "env-pass" || !o.InsecureSkipVerify {
		t.Fatalf("from env: %+v", o)
	}
	// Explicit credentials win over the environment as a whole.
	o = ClientOptions{Token: "flag-token"}.WithEnv()
	if o.User != "" || o.Password != "" || o.Token != "flag-token" {
		t.Fatalf("explicit token: %+v", o)
	}
}

// TestPushBypassRegistryCompat: a registry whose own checker refuses a
// version evtool accepts; push reports it, and --bypass-registry-compat
// registers it and restores the level.
// Both error codes registries answer are recognised: 409 (older
// Confluent, Karapace) and 40901 (current Confluent, evtool).
func TestPushBypassRegistryCompat(t *testing.T) {
	for _, errorCode := range []int{409, 40901} {
		t.Run(fmt.Sprint(errorCode), func(t *testing.T) { testPushBypassRegistryCompat(t, errorCode) })
	}
}

func testPushBypassRegistryCompat(t *testing.T, errorCode int) {
	reg := srfake.New()
	defer reg.Close()
	level := func(subject string) sr.CompatibilityLevel {
		return srtest.SRClient(t, reg.URL()).Compatibility(ctx, subject)[0].Level
	}
	reg.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		// The registry's own checker refuses every second version unless
		// the subject's level is NONE.
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/subjects/") && strings.HasSuffix(r.URL.Path, "/versions") {
			subject := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/subjects/"), "/versions")
			if _, ok := reg.GetSchema(subject, 1); ok && level(subject) != sr.CompatNone {
				w.Header().Set("Content-Type", wire.ContentType)
				w.WriteHeader(409)
				fmt.Fprintf(w, `{"error_code":%d,"message":"Schema being registered is incompatible with an earlier schema"}`, errorCode)
				return true
			}
		}
		return false
	})
	dir := srtest.CopyCatalog(t, filepath.Join("..", "examples", "orders"))
	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	rep, err := Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{})
	if err != nil || !rep.Failed() || srtest.Count(rep, RuleRegisterFailed) != 1 {
		t.Fatalf("push against a refusing registry: %v %+v", err, rep.Findings)
	}
	rep, err = Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{BypassRegistryCompat: true})
	if err != nil || rep.Failed() || srtest.Count(rep, RuleRegistered) != 1 {
		t.Fatalf("push with bypass: %v %+v", err, rep.Findings)
	}
	if lvl := level(placed); lvl != sr.CompatFullTransitive {
		t.Fatalf("level after bypass: %v", lvl)
	}
}

// TestPullNamesTheRegistryDraft: Confluent and Karapace read a schema
// without $schema as draft-07, evtool as 2020-12: pull writes the
// registry's draft into every such schema (and default_draft into
// evtool.yaml), so a tuple `items: [...]` still means what it meant.
func TestPullNamesTheRegistryDraft(t *testing.T) {
	const (
		compact   = `{"type":"array","items":[{"type":"string"},{"type":"integer"}]}`
		multiLine = "{\n  \"type\": \"object\"\n}"
		pinned    = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`
	)
	d2019, err := wire.ParseDialect("2019-09")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		draft  format.Dialect
		url    string
		schema string
	}{
		{"registry default (7)", format.Dialect{}, "http://json-schema.org/draft-07/schema#", compact},
		{"2019-09", d2019, "https://json-schema.org/draft/2019-09/schema", `{"type":"array","prefixItems":[{"type":"string"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := srfake.New()
			defer reg.Close()
			cl := srtest.SRClient(t, reg.URL())
			for subject, schema := range map[string]string{"com.example.a.tuple": c.schema, "com.example.b.multi": multiLine, "com.example.c.pinned": pinned, "com.example.d.any": `true`} {
				if _, err := cl.RegisterSchema(ctx, subject, sr.Schema{Schema: schema, Type: sr.TypeJSON}, -1, -1); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(t.TempDir(), "pulled")
			if _, err := Pull(ctx, MustNewClient(t, ClientOptions{URL: reg.URL()}), PullOptions{Out: out, Draft: c.draft}); err != nil {
				t.Fatal(err)
			}
			read := func(typ string) string {
				data, err := os.ReadFile(filepath.Join(out, "schemas", typ, "v1.json"))
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			srtest.MustContain(t, read("com.example.a.tuple"), `"$schema": "`+c.url+`"`)
			if got := read("com.example.b.multi"); got != "{\n  \"$schema\": \""+c.url+"\",\n  \"type\": \"object\"\n}\n" {
				t.Fatalf("multi-line schema written as\n%s", got)
			}
			if got := read("com.example.c.pinned"); strings.Count(got, "$schema") != 1 || !strings.Contains(got, "2020-12") {
				t.Fatalf("a schema naming its draft was changed:\n%s", got)
			}
			if got := strings.TrimSpace(read("com.example.d.any")); got != "true" {
				t.Fatalf("boolean schema written as %s", got)
			}
			cfg, _ := os.ReadFile(filepath.Join(out, "evtool.yaml"))
			srtest.MustContain(t, string(cfg), "default_draft:")
			srtest.LoadCat(t, out) // the draft-07 tuple compiles: it is read as draft-07
		})
	}
}

// TestPullThenDiffInStep: the "$schema" pull adds (the registry's draft)
// is no drift: diff and push see the pulled catalog in step.
func TestPullThenDiffInStep(t *testing.T) {
	reg := srfake.New()
	defer reg.Close()
	if _, err := srtest.SRClient(t, reg.URL()).RegisterSchema(ctx, "com.example.a.b", sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pulled")
	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	if _, err := Pull(ctx, c, PullOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	d, err := Diff(ctx, c, srtest.LoadCat(t, out), SyncOptions{Strategy: StrategyType})
	if err != nil || len(d.Findings) != 0 {
		t.Fatalf("diff after pull: %v %+v", err, d.Findings)
	}
	rep, err := Push(ctx, c, srtest.LoadCat(t, out), PushOptions{SyncOptions: SyncOptions{Strategy: StrategyType}, DryRun: true})
	if err != nil || srtest.Count(rep, RuleRegistered) != 0 {
		t.Fatalf("push after pull would register: %v %+v", err, rep.Findings)
	}
}

// TestPullTopicStrategySkips: a TopicNameStrategy subject names no type;
// pull says so and writes none.
func TestPullTopicStrategySkips(t *testing.T) {
	reg := srfake.New()
	defer reg.Close()
	if _, err := srtest.SRClient(t, reg.URL()).RegisterSchema(ctx, "orders-value", sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON}, -1, -1); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	out := filepath.Join(t.TempDir(), "pulled")
	res, err := Pull(ctx, MustNewClient(t, ClientOptions{URL: reg.URL()}), PullOptions{SyncOptions: SyncOptions{Strategy: StrategyTopic}, Out: out,
		Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil || res.Types != 0 || len(warnings) != 1 {
		t.Fatalf("pull: %+v %v %v", res, err, warnings)
	}
	srtest.MustContain(t, warnings[0], "names a topic, not a type")
}

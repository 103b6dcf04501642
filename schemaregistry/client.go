package schemaregistry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// Environment variables the client reads when a value is not given
// explicitly (ClientOptions.WithEnv).
const (
	EnvURL      = "EVTOOL_REGISTRY_URL"
	EnvUser     = "EVTOOL_REGISTRY_USER"
	EnvPassword = "EVTOOL_REGISTRY_PASSWORD"
	EnvToken    = "EVTOOL_REGISTRY_TOKEN"
	EnvCAFile   = "EVTOOL_REGISTRY_CA_FILE"
	EnvCertFile = "EVTOOL_REGISTRY_CERT_FILE"
	EnvKeyFile  = "EVTOOL_REGISTRY_KEY_FILE"
	EnvInsecure = "EVTOOL_REGISTRY_INSECURE_SKIP_VERIFY"
)

// ClientOptions say where a registry is and how to authenticate.
type ClientOptions struct {
	// URL of the registry (http or https; a path prefix is kept). Userinfo
	// in the URL is taken as basic auth credentials and removed from it.
	URL string
	// Basic auth, or a bearer token; not both.
	User, Password string
	Token          string
	// TLS: a PEM bundle of CAs to trust instead of the system's, a client
	// certificate and key (PEM files), and skipping verification (tests
	// only).
	CAFile, CertFile, KeyFile string
	InsecureSkipVerify        bool
	// Timeout bounds each HTTP request (default 30s).
	Timeout time.Duration
	// UserAgent defaults to "evtool".
	UserAgent string
	// MaxResponse bounds each response body in bytes (default
	// DefaultMaxResponse), MaxResponseTotal all of them together (default
	// DefaultMaxResponseTotal), MaxConcurrent the requests in flight
	// (default DefaultMaxConcurrent).
	MaxResponse, MaxResponseTotal int64
	MaxConcurrent                 int
}

// WithEnv fills the fields left empty from the EVTOOL_REGISTRY_*
// environment variables.
func (o ClientOptions) WithEnv() ClientOptions {
	set := func(dst *string, env string) {
		if *dst == "" {
			*dst = os.Getenv(env)
		}
	}
	set(&o.URL, EnvURL)
	if o.Token == "" && o.User == "" && o.Password == "" {
		set(&o.User, EnvUser)
		set(&o.Password, EnvPassword)
		set(&o.Token, EnvToken)
	}
	set(&o.CAFile, EnvCAFile)
	set(&o.CertFile, EnvCertFile)
	set(&o.KeyFile, EnvKeyFile)
	if !o.InsecureSkipVerify {
		switch strings.ToLower(os.Getenv(EnvInsecure)) {
		case "1", "true", "yes":
			o.InsecureSkipVerify = true
		}
	}
	return o
}

// Client talks to one Confluent-compatible schema registry through
// franz-go's sr client. Every error it returns has credentials removed.
type Client struct {
	sr *sr.Client
	// Display is the registry URL with credentials and query values
	// redacted: safe for logs and messages.
	Display string
	secrets []string
}

// NewClient checks the options and builds a client. It does not contact
// the registry.
func NewClient(o ClientOptions) (*Client, error) {
	if strings.TrimSpace(o.URL) == "" {
		return nil, fmt.Errorf("no registry URL: give one (--url, or --against registry:URL), set %s, or set registry.url in evtool.yaml", EnvURL)
	}
	raw := strings.TrimSpace(o.URL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("registry URL %s is not a valid http(s) URL", RedactURL(o.URL))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("registry URL %s: scheme %q is not http or https", RedactURL(o.URL), u.Scheme)
	}
	c := &Client{Display: RedactURL(raw)}
	if u.User != nil {
		if o.User == "" && o.Password == "" && o.Token == "" {
			o.User = u.User.Username()
			o.Password, _ = u.User.Password()
		}
		if len(u.User.Username()) >= 4 {
			c.secret(u.User.Username())
		}
		if p, ok := u.User.Password(); ok {
			c.secret(p)
		}
		u.User = nil
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			c.secret(v)
		}
	}
	u.Fragment, u.RawFragment = "", ""
	if o.Token != "" && (o.User != "" || o.Password != "") {
		return nil, errors.New("registry credentials: give basic auth (user and password) or a bearer token, not both")
	}
	if o.Password != "" && o.User == "" {
		return nil, fmt.Errorf("registry credentials: a password without a user (set --user or %s)", EnvUser)
	}
	c.secret(o.Password)
	c.secret(o.Token)
	// An API key used as user name is a secret too; a short user name is
	// not scrubbed, so that messages stay readable.
	if len(o.User) >= 4 {
		c.secret(o.User)
	}
	if o.User != "" {
		c.secret(base64.StdEncoding.EncodeToString([]byte(o.User + ":" + o.Password)))
	}

	tlsCfg, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tlsCfg != nil {
		tr.TLSClientConfig = tlsCfg
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ua := o.UserAgent
	if ua == "" {
		ua = "evtool"
	}
	opts := []sr.ClientOpt{
		sr.URLs(u.String()),
		sr.HTTPClient(&http.Client{Transport: newBoundedTransport(tr, o.MaxResponse, o.MaxResponseTotal, o.MaxConcurrent), Timeout: timeout}),
		sr.UserAgent(ua),
	}
	switch {
	case o.Token != "":
		opts = append(opts, sr.BearerToken(o.Token))
	case o.User != "":
		opts = append(opts, sr.BasicAuth(o.User, o.Password))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, c.wrap("", err)
	}
	c.sr = cl
	return c, nil
}

func (o ClientOptions) tlsConfig() (*tls.Config, error) {
	if o.CAFile == "" && o.CertFile == "" && o.KeyFile == "" && !o.InsecureSkipVerify {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify} //nolint:gosec // opt-in
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("registry CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("registry CA file %s: no PEM certificates in it", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("registry client certificate: give both --cert-file and --key-file")
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			// The error names files, never key material.
			return nil, fmt.Errorf("registry client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func (c *Client) secret(s string) {
	if s != "" {
		c.secrets = append(c.secrets, s)
		sort.Slice(c.secrets, func(i, j int) bool { return len(c.secrets[i]) > len(c.secrets[j]) })
	}
}

// Scrub removes every credential the client knows of from s.
func (c *Client) Scrub(s string) string {
	for _, sec := range c.secrets {
		s = strings.ReplaceAll(s, sec, "REDACTED")
	}
	return s
}

// RedactURL returns raw without user info and with query values replaced,
// safe to print. A URL that does not parse is not echoed at all.
func RedactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// Error is a failed registry request. Its message never holds credentials.
type Error struct {
	// Op says what evtool was doing ("list subjects", "register ...").
	Op string
	// Status and Code are the HTTP status and the registry's error_code
	// (0 when the request did not get a response).
	Status, Code int
	Message      string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	b.WriteString(e.Message)
	switch {
	case e.Status == http.StatusUnauthorized:
		b.WriteString(fmt.Sprintf(" (HTTP 401: the registry refused the credentials; set %s and %s, or %s)", EnvUser, EnvPassword, EnvToken))
	case e.Status == http.StatusForbidden:
		b.WriteString(" (HTTP 403: the credentials are not allowed to do this)")
	case e.Status != 0 && e.Code != 0 && e.Code != e.Status:
		b.WriteString(fmt.Sprintf(" (HTTP %d, error code %d)", e.Status, e.Code))
	case e.Status != 0:
		b.WriteString(fmt.Sprintf(" (HTTP %d)", e.Status))
	}
	return b.String()
}

// wrap turns an sr error into an *Error with credentials scrubbed.
func (c *Client) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Op: op, Message: c.Scrub(fmt.Sprintf("registry %s: %v", c.Display, err))}
	}
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		return &Error{Op: op, Message: c.Scrub(tooLarge.Error())}
	}
	var re *sr.ResponseError
	if errors.As(err, &re) {
		msg := re.Message
		if msg == "" {
			msg = string(re.Raw)
		}
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		return &Error{Op: op, Status: re.StatusCode, Code: re.ErrorCode, Message: c.Scrub(strings.TrimSpace(msg))}
	}
	return &Error{Op: op, Message: c.Scrub(err.Error())}
}

// code returns the registry error code of err (0 when it has none).
func code(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func status(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// incompatible reports a registration refused as incompatible: error code
// 40901 (current Confluent), 409 (older registries) or HTTP 409.
func incompatible(err error) bool {
	return code(err) == 40901 || code(err) == 409 || status(err) == http.StatusConflict
}

// notFound reports a 404 of any kind (subject, version, subject-level
// config not set).
func notFound(err error) bool {
	return status(err) == http.StatusNotFound || (code(err) >= 40400 && code(err) < 40500)
}

// SR returns the underlying franz-go client (for tests and callers that
// need an endpoint this package does not wrap). Its errors are not
// scrubbed.
func (c *Client) SR() *sr.Client { return c.sr }

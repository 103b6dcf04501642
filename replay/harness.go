package replay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/supervise"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// ProducerGCPercent is the GC percent evtool replay runs with (unless
// GOGC is set): the harness's live heap is small and constant, and most of
// what it allocates is short-lived records, so collecting at 4x the live
// heap instead of 2x halves the time spent in GC for little memory.
const ProducerGCPercent = 400

// MemoryLimit is the soft memory limit evtool replay runs with (unless
// GOMEMLIMIT is set): with GC percent 400 the heap may grow to five times
// the live heap before a collection, and the runtime returns freed memory
// to the system slowly; the limit makes it collect and return sooner when
// the process nears it. The live heap of a replay is tens of MiB (see
// docs/replay.md, "Memory"), far below it, so the limit costs little GC.
const MemoryLimit = 192 << 20

// Options configure a replay beyond its scenario (the command line).
type Options struct {
	// Brokers, when set, replace kafka.brokers.
	Brokers []string
	// Client carries TLS and SASL settings for a real cluster; its Brokers
	// are ignored, and its Compression, when set, replaces
	// kafka.compression.
	Client kafka.ClientConfig
	// Seed, when set, replaces chaos.seed.
	Seed *uint64
	// Faults selects the faults of the plan the chaos run applies (zero
	// value: all).
	Faults chaos.Selection
	// ShrinkBudget bounds the runs shrinking a failure may make (0:
	// DefaultShrinkBudget); negative turns confirming and shrinking off.
	ShrinkBudget int
	// Baselines is the number of clean runs: 2 (the default, 0) compares
	// them to catch a nondeterministic consumer; 1 skips that.
	Baselines int
	// WorkDir, when set, receives a new directory (evtool-replay-*) for
	// the runs' work directories and consumer logs, kept at the end;
	// nothing already in WorkDir is touched. Empty means a temporary
	// directory, removed at the end unless Keep.
	WorkDir string
	// Keep keeps the work directory, topics and groups.
	Keep bool
	// Progress receives progress updates (nil: none).
	Progress Progress
	// StopGrace is how long a consumer has between SIGTERM and SIGKILL
	// (default supervise.DefaultStopGrace).
	StopGrace time.Duration
	// Command is the command line that ran the scenario, for the
	// reproduce lines (default "evtool replay <scenario>").
	Command string
	// Log receives one line per step (nil: none).
	Log io.Writer
	// BuildLog receives the progress of consumer.build (nil: none).
	BuildLog io.Writer
	// ContractFields, when set, replaces the chaos run with a contract
	// run mutating exactly these fields (a contract finding's reproduce
	// line); the scenario must name a contract (consumer.contract).
	ContractFields []Field
}

// Progress receives progress updates; implementations must be cheap and
// safe for concurrent use.
type Progress interface {
	// Phase reports a run's phase: starting, producing, settling,
	// reading state, stopping, done.
	Phase(run, phase string)
	// Produced reports input events produced so far out of total.
	Produced(run string, done, total int64)
	// Lag reports the group's total lag while settling.
	Lag(run string, lag int64)
}

// Harness runs a scenario: it validates the events, connects to Kafka (or
// starts the embedded broker) and runs the consumer once per RunSpec. The
// runs share nothing but the broker: each gets its own topic, group and
// work directory.
type Harness struct {
	sc   *Scenario
	cat  *catalog.Catalog
	opts Options

	seed       uint64
	partitions int
	inv        *Inventory

	brokers  []string
	embedded *kafka.Broker
	cl       *kgo.Client
	adm      *kadm.Client

	root    string
	ownRoot bool

	// brokerDir holds the embedded broker's log (see brokerDirName).
	brokerDir string
	// buildDir is EVTOOL_BUILD once consumer.build succeeded.
	buildDir string
	// rootLock marks a temporary root as in use (see lockWorkRoot).
	rootLock *os.File
	// spawn starts the consumer and state commands (see
	// supervise.Spawner); made
	// by the first run, so that a harness that starts nothing holds no
	// thread.
	spawnOnce sync.Once
	spawn     *supervise.Spawner
	nonce     string
	// types and keys index the catalog for the fast path.
	types map[string]*catalog.EventType
	keys  map[string]keySpec
	mut   *Mutator
	// initialWait replaces initialStateWait when set (tests: a bound that
	// load cannot reach, so that only the grace after the join ends the
	// wait).
	initialWait time.Duration
	// runs counts the runs per name, so a repeated name gets fresh
	// topic and group names (chaos, chaos-2, ...).
	runs map[string]int
	// cleanConsume is how long the last clean run consumed, from its
	// first commit to its last (random crash points are fractions of it).
	mu           sync.Mutex
	cleanConsume time.Duration
	// baselineDead holds the ids of the clean events the first baseline
	// run dead-lettered (allowed by expect.baseline.dlq).
	baselineDead map[string]bool
	// baselineEffects holds the effect keys each stand-in applied in the
	// first baseline run: every later run must apply them.
	baselineEffects map[string][]string
	// baselineEffectFiles holds them in files instead (spillEffects), by
	// stand-in name.
	baselineEffectFiles map[string]string
	// killed lists RunResult.Killed of every run, by run id, for the
	// report's warnings.
	killed []string
}

// maxKilledWarnings bounds the report's warnings about killed processes.
const maxKilledWarnings = 10

func (h *Harness) noteKilled(id string, notes []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range notes {
		h.killed = append(h.killed, id+" run: "+n)
	}
}

// killedWarnings returns the report's warnings about what the harness had
// to kill (at most maxKilledWarnings).
func (h *Harness) killedWarnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.killed) <= maxKilledWarnings {
		return append([]string(nil), h.killed...)
	}
	out := append([]string(nil), h.killed[:maxKilledWarnings]...)
	return append(out, fmt.Sprintf("%d more runs had processes killed (the killed lists of the runs in --format json)", len(h.killed)-maxKilledWarnings))
}

// NewHarness loads the scenario's catalog and fixes the seed.
func NewHarness(sc *Scenario, opts Options) (*Harness, error) {
	if err := sc.Check(); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(sc.Catalog)
	if err != nil {
		return nil, fmt.Errorf("catalog %s (%s): %w", sc.Catalog, sc.Where("/catalog"), err)
	}
	h := &Harness{sc: sc, cat: cat, opts: opts, partitions: sc.Kafka.Partitions,
		types: map[string]*catalog.EventType{}, keys: map[string]keySpec{}, mut: NewMutator(cat)}
	for _, t := range cat.Types {
		h.types[t.Name] = t
		h.keys[t.Name] = keyOf(t)
	}
	switch {
	case opts.Seed != nil:
		h.seed = *opts.Seed
	case sc.Seed != nil:
		h.seed = *sc.Seed
	default:
		// No seed anywhere: explore. The report prints the seed to
		// reproduce the run.
		h.seed = mrand.Uint64() % 1_000_000
	}
	var nb [3]byte
	_, _ = rand.Read(nb[:])
	h.nonce = hex.EncodeToString(nb[:])
	if h.opts.StopGrace <= 0 {
		h.opts.StopGrace = supervise.DefaultStopGrace
	}
	if h.opts.Command == "" {
		h.opts.Command = "evtool replay " + shellQuote(sc.File)
	}
	return h, nil
}

// Scenario returns the harness's scenario.
func (h *Harness) Scenario() *Scenario { return h.sc }

// Seed returns the seed of the fault plan.
func (h *Harness) Seed() uint64 { return h.seed }

// Mutator returns the builder of skew and poison events for the catalog.
func (h *Harness) Mutator() *Mutator { return h.mut }

// Catalog returns the loaded catalog.
func (h *Harness) Catalog() *catalog.Catalog { return h.cat }

func (h *Harness) logf(format string, args ...any) {
	if h.opts.Log != nil {
		fmt.Fprintf(h.opts.Log, format+"\n", args...)
	}
}

// Connect starts the embedded broker, or reaches the configured cluster
// within the settle timeout (at most 15s).
func (h *Harness) Connect(ctx context.Context) error {
	brokers := h.opts.Brokers
	if len(brokers) == 0 {
		brokers = h.sc.Kafka.Brokers
	}
	cc := h.opts.Client
	if len(brokers) == 0 {
		if cc.TLS || cc.TLSCAFile != "" || cc.TLSCertFile != "" || cc.SASLMechanism != "" {
			return errors.New("TLS and SASL settings need a real cluster: pass --brokers (or set kafka.brokers)")
		}
		// The broker keeps its log on disk, in the work root, not in
		// evtool's memory: a run's topic holds every event (and copy),
		// which at a million events is hundreds of MiB.
		root, err := h.workRoot()
		if err != nil {
			return err
		}
		h.brokerDir = filepath.Join(root, brokerDirName)
		b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: h.partitions, DataDir: h.brokerDir})
		if err != nil {
			return err
		}
		h.embedded = b
		brokers = b.Addrs()
		h.logf("started the embedded broker on %s", strings.Join(brokers, ","))
	}
	h.brokers = brokers
	cc.Brokers = brokers
	cc.Compression = h.compression()
	o, err := cc.Options()
	if err != nil {
		return err
	}
	o = append(o,
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordDeliveryTimeout(2*h.sc.Consumer.SettleTimeout+time.Minute),
		kgo.MaxBufferedRecords(10000),
	)
	cl, err := kgo.NewClient(o...)
	if err != nil {
		return fmt.Errorf("Kafka client: %w", err)
	}
	h.cl = cl
	h.adm = kadm.NewClient(cl)
	if h.embedded != nil {
		return nil
	}
	if err := kafka.WaitReachable(ctx, cl, brokers, min(h.sc.Consumer.SettleTimeout, 15*time.Second)); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w\ncheck --brokers (or kafka.brokers in %s), or leave both empty to use the embedded broker", err, h.sc.File)
	}
	return nil
}

// compression is the codec the harness produces with: the option's, else
// the scenario's.
func (h *Harness) compression() string {
	if h.opts.Client.Compression != "" {
		return h.opts.Client.Compression
	}
	return h.sc.Kafka.Compression
}

// Brokers returns the brokers in use ("" before Connect).
func (h *Harness) Brokers() []string { return h.brokers }

// Embedded reports whether the harness runs the embedded broker.
func (h *Harness) Embedded() bool { return h.embedded != nil }

// Close releases the client, the embedded broker, the process starter and
// the temporary work directory.
func (h *Harness) Close() {
	h.spawnOnce.Do(func() {}) // no spawner after Close
	if h.spawn != nil {
		h.spawn.Close()
	}
	if h.cl != nil {
		h.cl.Close()
	}
	if h.embedded != nil {
		h.embedded.Close()
		// Its log is of no use once it stopped, kept work root or not.
		_ = os.RemoveAll(h.brokerDir)
	}
	if h.ownRoot && !h.opts.Keep && h.root != "" {
		_ = os.RemoveAll(h.root)
	}
	if h.rootLock != nil {
		h.rootLock.Close()
	}
}

// spawner returns the harness's process starter, started on first use.
func (h *Harness) spawner() *supervise.Spawner {
	h.spawnOnce.Do(func() { h.spawn = supervise.NewSpawner() })
	if h.spawn == nil {
		return &supervise.Spawner{} // after Close: starts nothing
	}
	return h.spawn
}

// workRootPrefix starts the name of every directory a replay creates for
// its runs, in Options.WorkDir or the temporary directory.
const workRootPrefix = "evtool-replay-"

// brokerDirName is the directory of the work root that holds the
// embedded broker's log while the replay runs.
const brokerDirName = ".evtool-broker"

// workRootLockName is the marker of a temporary work root, locked while
// its replay runs.
const workRootLockName = ".evtool-replay.lock"

// workRoot returns the directory that holds the runs' work directories: a
// new one, inside Options.WorkDir or the temporary directory, absolute (it
// reaches the consumer as EVTOOL_WORKDIR, resolved against consumer.dir).
func (h *Harness) workRoot() (string, error) {
	if h.root != "" {
		return h.root, nil
	}
	parent := h.opts.WorkDir
	if parent != "" {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", fmt.Errorf("--workdir: %w", err)
		}
	} else {
		// Absolute before the scan: the leftovers of a killed replay
		// are found by their absolute EVTOOL_WORKDIR.
		tmp, err := filepath.Abs(os.TempDir())
		if err != nil {
			return "", err
		}
		parent = tmp
		// A replay SIGKILLed (a CI timeout) could not remove its
		// temporary directory: the next one does.
		for _, d := range removeStaleWorkRoots(parent) {
			h.logf("removed %s, left by a replay that was killed", d.Dir)
			if len(d.Killed) > 0 {
				h.logf("killed the processes %v, left running in %s by that replay", d.Killed, d.Dir)
			}
		}
	}
	parent, err := filepath.Abs(parent)
	if err != nil {
		return "", err
	}
	d, err := os.MkdirTemp(parent, workRootPrefix+fileWord(strings.TrimSuffix(filepath.Base(h.sc.File), filepath.Ext(h.sc.File)))+"-")
	if err != nil {
		return "", err
	}
	h.root, h.ownRoot = d, h.opts.WorkDir == ""
	// Only a root that is to be removed gets the marker: a kept one
	// (--keep) must survive its replay being killed.
	if h.ownRoot && !h.opts.Keep {
		if h.rootLock, err = lockWorkRoot(d); err != nil {
			return "", err
		}
	}
	return d, nil
}

// fileWord keeps the letters, digits, dots, dashes and underscores of s,
// at most 40, for a file name.
func fileWord(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return r
		}
		return -1
	}, s)
	return s[:min(len(s), 40)]
}

// WorkDir returns the work directory root ("" before the first run).
func (h *Harness) WorkDir() string { return h.root }

// runID names a run's Kafka resources: the run's name, with a counter
// from its second use on.
func (h *Harness) runID(run string) string {
	if h.runs == nil {
		h.runs = map[string]int{}
	}
	h.runs[run]++
	if n := h.runs[run]; n > 1 {
		return fmt.Sprintf("%s-%d", run, n)
	}
	return run
}

func (h *Harness) topicName(id string) string {
	return fmt.Sprintf("%s.replay-%s.%s", h.inv.Topic, h.nonce, id)
}

func (h *Harness) groupName(id string) string {
	return fmt.Sprintf("evtool-replay-%s-%s", h.nonce, id)
}

// freeAddr returns a free 127.0.0.1 port for the consumer's state
// endpoint. The consumer binds it after the harness released it, so a port
// of the kernel's ephemeral range (what ":0" gives) can be taken in between
// by any outgoing connection on the machine (a consumer failed with
// "address already in use" under load). It picks a random free port below
// that range, and falls back to ":0" where the range is not known or
// nothing below it is free.
func freeAddr() (string, error) {
	if lo, ok := ephemeralPortsStart(); ok && lo > minStatePort+1 {
		for range 64 {
			port := minStatePort + mrand.IntN(lo-minStatePort)
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				addr := l.Addr().String()
				l.Close()
				return addr, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// minStatePort is the lowest port freeAddr picks: above the registered
// ports most local servers use.
const minStatePort = 20000

// ephemeralPortsStart is the first port of the kernel's ephemeral range
// (Linux: /proc/sys/net/ipv4/ip_local_port_range).
func ephemeralPortsStart() (int, bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false
	}
	lo, err := strconv.Atoi(f[0])
	return lo, err == nil && lo > 0 && lo <= 65535
}

// clientEnv passes TLS and SASL settings on to the consumer.
func (h *Harness) clientEnv() []string { return h.opts.Client.Environ() }

// shellQuote quotes a word of a reproduce line (report.ShellWord).
func shellQuote(s string) string { return report.ShellWord(s) }

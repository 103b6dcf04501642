package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// Config is evtool.yaml.
type Config struct {
	Version       int    `yaml:"version"`
	Schemas       string `yaml:"schemas"`
	DataSchema    string `yaml:"dataschema"`
	AssertFormats bool   `yaml:"assert_formats"`
	// DefaultDraft is the draft of schemas without `$schema` (ParseDraft;
	// default 2020-12).
	DefaultDraft string         `yaml:"default_draft"`
	Compat       CompatConfig   `yaml:"compat"`
	Registry     RegistryConfig `yaml:"registry"`
	Kafka        KafkaConfig    `yaml:"kafka"`
	// Consumers is "complete" when the catalog's consumer contracts list
	// every consumer of its types; "" makes no such claim.
	Consumers string `yaml:"consumers"`
}

// ConsumersComplete is the value of evtool.yaml's consumers key that
// claims the contracts list every consumer.
const ConsumersComplete = "complete"

// CompatConfig is the compat section of evtool.yaml.
type CompatConfig struct {
	Mode    Mode         `yaml:"mode"`
	Profile Profile      `yaml:"profile"`
	Samples int          `yaml:"samples"`
	Ignore  []IgnoreRule `yaml:"ignore"`
}

// IgnoreRule approves a known break. It matches findings by type, rule and
// path, or by fingerprint; the reason is mandatory.
type IgnoreRule struct {
	Type        string `yaml:"type"`
	Rule        string `yaml:"rule"`
	Path        string `yaml:"path"`
	Fingerprint string `yaml:"fingerprint"`
	Reason      string `yaml:"reason"`
	// Line is the entry's line in evtool.yaml, for stale-approval warnings.
	Line int `yaml:"-"`
}

// RegistryConfig holds defaults for the schema registry commands.
type RegistryConfig struct {
	URL             string `yaml:"url"`
	SubjectStrategy string `yaml:"subject_strategy"`
}

// EventMeta is a type's event.yaml.
type EventMeta struct {
	Description  string `yaml:"description"`
	Owner        string `yaml:"owner"`
	Topic        string `yaml:"topic"`
	PartitionKey string `yaml:"partitionkey"`
	// Sequence is a JSON pointer into data to a number that grows per
	// partition key (an aggregate's version): readers of a topic check it
	// never goes backwards for one key in partition order.
	Sequence   string         `yaml:"sequence"`
	Source     string         `yaml:"source"`
	Compat     CompatOverride `yaml:"compat"`
	Deprecated []int          `yaml:"deprecated"`
	// Message is a Protobuf type's event message (full or short name;
	// default: the file's first message).
	Message string `yaml:"message"`
	// Kafka overrides evtool.yaml's kafka section for this type.
	Kafka KafkaConfig `yaml:"kafka"`
}

// CompatOverride is the compat section of event.yaml.
type CompatOverride struct {
	Mode    Mode    `yaml:"mode"`
	Profile Profile `yaml:"profile"`
}

// Mode is a compatibility mode.
type Mode string

const (
	ModeNone               Mode = "NONE"
	ModeBackward           Mode = "BACKWARD"
	ModeBackwardTransitive Mode = "BACKWARD_TRANSITIVE"
	ModeForward            Mode = "FORWARD"
	ModeForwardTransitive  Mode = "FORWARD_TRANSITIVE"
	ModeFull               Mode = "FULL"
	ModeFullTransitive     Mode = "FULL_TRANSITIVE"
)

// Modes lists every mode.
var Modes = []Mode{ModeNone, ModeBackward, ModeBackwardTransitive, ModeForward, ModeForwardTransitive, ModeFull, ModeFullTransitive}

// ParseMode accepts a mode name in any case ("full", "FULL_TRANSITIVE").
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_")))
	for _, known := range Modes {
		if m == known {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, k := range Modes {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown compatibility mode %q: use one of %s", s, strings.Join(names, ", "))
}

// Backward reports whether the mode requires new readers to accept old data.
func (m Mode) Backward() bool {
	return m == ModeBackward || m == ModeBackwardTransitive || m == ModeFull || m == ModeFullTransitive
}

// Forward reports whether the mode requires old readers to accept new data.
func (m Mode) Forward() bool {
	return m == ModeForward || m == ModeForwardTransitive || m == ModeFull || m == ModeFullTransitive
}

// Transitive reports whether every earlier version is checked, not just the
// previous one.
func (m Mode) Transitive() bool { return strings.HasSuffix(string(m), "_TRANSITIVE") }

// Profile is a compatibility profile: one a format's provider declares
// (format.Provider.CompatProfiles), whose engine gives it its meaning.
type Profile string

// ParseProfile accepts a profile any format's provider declares, in any
// case.
func ParseProfile(s string) (Profile, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	var use []string
	for _, fp := range formats.All() {
		names := fp.CompatProfiles().Names
		if slices.Contains(names, p) {
			return Profile(p), nil
		}
		if len(names) > 0 {
			use = append(use, fmt.Sprintf("%s (%s)", strings.Join(names, " or "), fp.Kind().Name()))
		}
	}
	return "", fmt.Errorf("unknown compatibility profile %q: use %s", s, strings.Join(use, ", "))
}

// DefaultProfileOf is a format's profile when nothing is configured:
// lenient for JSON Schema, wire-json for Protobuf (consumers in other
// languages read the JSON mapping too). Avro has one answer, the
// specification's schema resolution, and takes no profile.
func DefaultProfileOf(k format.Kind) Profile {
	if p, ok := formats.ForKind(k); ok {
		return Profile(p.CompatProfiles().Default)
	}
	return DefaultProfile
}

// fits reports whether a profile applies to a format.
func (p Profile) fits(k format.Kind) bool {
	return slices.Contains(profilesOf(k).Names, string(p))
}

// profilesOf is the compat profiles of a format (JSON Schema's for an
// unknown one).
func profilesOf(k format.Kind) format.Profiles {
	if p, ok := formats.ForKind(k); ok {
		return p.CompatProfiles()
	}
	return formats.Of(nil).CompatProfiles()
}

// Defaults when evtool.yaml says nothing: an event log is read by old and
// new consumers alike and replayed from the start.
const (
	DefaultMode = ModeFullTransitive
	// DefaultProfile is the default format's (formats.DefaultKind) when
	// nothing is configured: its provider declares it, a test checks.
	DefaultProfile Profile = "lenient"
	// DefaultDataSchema is used when evtool.yaml sets no dataschema template.
	DefaultDataSchema = "urn:evtool:{type}:v{version}"
)

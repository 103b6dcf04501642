package compat

import "github.com/evtool/evtool/compat/jsoncompat"

// DefaultSamples is the default of the command line's --samples: the
// writer documents the JSON Schema engine generates per direction
// (jsoncompat.DefaultSamples), here so that the command line reads it
// from the gate and not from an engine.
const DefaultSamples = jsoncompat.DefaultSamples

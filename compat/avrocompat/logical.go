package avrocompat

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// logical compares the logical types of a writer and reader of matching
// base types. Java and Confluent ignore them; a changed unit or scale
// changes the meaning of every datum, so evtool calls it a break.
func (c *checker) logical(w, r *avro.Node, path []avro.Step) {
	wl, rl := w.Logical, r.Logical
	if wl == rl {
		if wl != "decimal" {
			return
		}
		if w.Scale != r.Scale {
			f := c.add("avro-decimal-scale-changed", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("decimal scale changed from %d to %d: every value is read %s", w.Scale, r.Scale, scaleWord(w.Scale, r.Scale)))
			f.leaf = decimalDatum(w, readable(w))
		}
		if r.Precision < w.Precision {
			f := c.add("avro-decimal-precision-narrowed", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("decimal precision narrowed from %d to %d digits: larger writer values do not fit the reader", w.Precision, r.Precision))
			digits := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(w.Precision)), nil)
			f.leaf = decimalDatum(w, digits.Sub(digits, big.NewInt(1)))
		}
		return
	}
	switch {
	case wl == "":
		if leaf := outOfDomain(w, r); leaf != nil {
			f := c.add("avro-logical-type-added-out-of-domain", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("the reader reads plain %s values as %s, whose domain does not hold every %s", w.Kind, r.Describe(), w.Kind))
			f.leaf = leaf
			return
		}
		c.add("avro-logical-type-added", report.SeverityWarning, place(w), place(r), path,
			fmt.Sprintf("the reader reads plain %s values as %s (every %s is one)", w.Kind, rl, w.Kind))
		return
	case rl == "":
		c.add("avro-logical-type-dropped", report.SeverityWarning, place(w), place(r), path,
			fmt.Sprintf("the reader reads %s values as plain %s", wl, r.Kind))
		return
	}
	var f *Finding
	switch {
	case isTimestamp(wl) && isTimestamp(rl):
		if unitOf(wl) != unitOf(rl) {
			f = c.add("avro-timestamp-unit-changed", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("timestamp unit changed from %s to %s: every instant is read %s", unitOf(wl), unitOf(rl), unitWord(unitOf(wl), unitOf(rl))))
			f.leaf = logicalLeaf(w)
		}
		if isLocal(wl) != isLocal(rl) {
			f = c.add("avro-timestamp-local-changed", report.SeverityError, place(w), place(r), path,
				fmt.Sprintf("%s changed to %s: a wall-clock time is read as a UTC instant or the other way", wl, rl))
			f.leaf = logicalLeaf(w)
		}
		return
	case strings.HasPrefix(wl, "time-") && strings.HasPrefix(rl, "time-"):
		f = c.add("avro-time-unit-changed", report.SeverityError, place(w), place(r), path,
			fmt.Sprintf("time of day unit changed from %s to %s", unitOf(wl), unitOf(rl)))
	default:
		f = c.add("avro-logical-type-changed", report.SeverityError, place(w), place(r), path,
			fmt.Sprintf("logical type changed from %s to %s", wl, rl))
	}
	f.leaf = logicalLeaf(w)
}

func isTimestamp(l string) bool {
	return strings.HasPrefix(l, "timestamp-") || strings.HasPrefix(l, "local-timestamp-")
}

func isLocal(l string) bool { return strings.HasPrefix(l, "local-") }

func unitOf(l string) string { return l[strings.LastIndexByte(l, '-')+1:] }

var unitScale = map[string]int{"millis": 3, "micros": 6, "nanos": 9}

func unitWord(from, to string) string {
	d := unitScale[from] - unitScale[to]
	if d > 0 {
		return fmt.Sprintf("%sx larger (far in the future)", pow10(d))
	}
	return fmt.Sprintf("%sx smaller (near 1970)", pow10(-d))
}

func scaleWord(from, to int) string {
	if to > from {
		return fmt.Sprintf("%sx smaller", pow10(to-from))
	}
	return fmt.Sprintf("%sx larger", pow10(from-to))
}

// pow10 is 10^n written out, or as 10^n when longer than int64 holds
// (decimal scales go up to 65,536).
func pow10(n int) string {
	if n > 18 {
		return fmt.Sprintf("10^%d", n)
	}
	p := int64(1)
	for range n {
		p *= 10
	}
	return strconv.FormatInt(p, 10)
}

// logicalLeaf is a writer value whose meaning is easy to read.
func logicalLeaf(w *avro.Node) any {
	switch w.Kind {
	case "int":
		if w.Logical == "date" {
			return int32(19_700) // 2023-12-09
		}
		return int32(45_296_789) // 12:34:56.789
	case "long":
		switch unitOf(w.Logical) {
		case "micros":
			return int64(1_700_000_000_123_456)
		case "nanos":
			return int64(1_700_000_000_123_456_789)
		}
		return int64(1_700_000_000_123)
	case "bytes", "fixed":
		if w.Logical == "decimal" {
			return decimalDatum(w, readable(w))
		}
	}
	return nil
}

// readable is an unscaled value easy to read, 1234 (12.34 at scale 2),
// cut to the writer's precision so the datum is the writer's.
func readable(w *avro.Node) *big.Int {
	if w.Precision >= 4 {
		return big.NewInt(1234)
	}
	return big.NewInt([]int64{0, 9, 99, 999}[max(w.Precision, 0)])
}

// decimalDatum encodes an unscaled value as a decimal's bytes: big-endian
// two's complement, sign-extended to the size of a fixed.
func decimalDatum(w *avro.Node, unscaled *big.Int) []byte {
	size := -1
	if w.Kind == "fixed" {
		size = w.Size
	}
	return avro.DecimalBytes(unscaled, size)
}

// meaning renders a physical value as its logical type means it.
func meaning(n *avro.Node, v any) string {
	switch n.Logical {
	case "decimal":
		b, ok := v.([]byte)
		if !ok {
			break
		}
		return decimalString(b, n.Scale)
	case "date":
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02") + " (date)"
		}
	case "time-millis", "time-micros":
		if d, ok := asInt(v); ok {
			unit := time.Millisecond
			if n.Logical == "time-micros" {
				unit = time.Microsecond
			}
			return (time.Duration(d) * unit).String() + " after midnight (" + n.Logical + ")"
		}
	default:
		if isTimestamp(n.Logical) {
			d, ok := asInt(v)
			if !ok {
				break
			}
			var t time.Time
			switch unitOf(n.Logical) {
			case "millis":
				t = time.UnixMilli(d)
			case "micros":
				t = time.UnixMicro(d)
			default:
				t = time.Unix(0, d)
			}
			s := t.UTC().Format("2006-01-02T15:04:05.999999999")
			if isLocal(n.Logical) {
				return s + " local time, no zone (" + n.Logical + ")"
			}
			return s + "Z (" + n.Logical + ")"
		}
	}
	return fmt.Sprintf("%v", v)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

func decimalString(b []byte, scale int) string {
	u := unscaled(b)
	if u.BitLen() > maxExactBits {
		n, _ := digits(u)
		return fmt.Sprintf("a decimal of %d bytes and at least %d digits, more than any precision", len(b), n)
	}
	r := new(big.Rat).SetFrac(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	return r.FloatString(scale)
}

// unscaled is the big-endian two's-complement value b.
func unscaled(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// maxExactBits is the longest value whose digits are written out or
// counted exactly: 2^18 bits is 78,914 digits, more than the largest
// precision (65,536). A 1 MiB fixed holds 2.5 million digits, and writing
// them out took minutes.
const maxExactBits = 1 << 18

// digits counts the decimal digits of |u|: exactly up to maxExactBits,
// beyond that the digits of 2^(bits-1), a lower bound (exact false).
func digits(u *big.Int) (n int, exact bool) {
	bits := u.BitLen()
	if bits == 0 {
		return 1, true
	}
	// 2^(bits-1) <= |u| < 2^bits, so |u| has lower or lower+1 digits.
	lower := int(float64(bits-1)*math.Log10(2)) + 1
	if bits > maxExactBits {
		return lower, false
	}
	if new(big.Int).Abs(u).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(lower)), nil)) >= 0 {
		return lower + 1, true
	}
	return lower, true
}

// Domains of the logical types a reader may give plain writer values
// (Avro 1.12 specification, "Logical Types"): where one does not hold
// every value of the writer's type, a reader that applies it (Java's
// conversions, a hamba/avro reader decoding into the logical Go type)
// fails on such a value or cannot write it again.
const (
	dayMillis = 86_400_000
	dayMicros = 86_400_000_000
)

// outOfDomain is a writer value (of w's physical type) outside the domain
// of r's logical type, or nil when every writer value maps: date and the
// timestamps take any int or long, uuid on fixed(16) and duration any
// bytes of their size.
func outOfDomain(w, r *avro.Node) any {
	switch r.Logical {
	case "uuid":
		if r.Kind == "string" {
			return as(w, "abc")
		}
	case "decimal":
		// 10^precision: one digit more than the reader allows (a fixed
		// holds it: lint keeps the precision below the size's digits).
		over := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(r.Precision)), nil)
		if w.Kind == "string" {
			// A string's UTF-8 bytes are the unscaled value; "9" (0x39)
			// repeated past precision/2.4 bytes is more than 10^precision.
			return strings.Repeat("9", r.Precision/2+2)
		}
		return decimalDatum(w, over)
	case "big-decimal":
		return as(w, "")
	case "time-millis":
		return int32(dayMillis)
	case "time-micros":
		if w.Kind == "int" {
			return int32(-1)
		}
		return int64(dayMicros)
	}
	return nil
}

// as is s in w's physical type, string or bytes.
func as(w *avro.Node, s string) any {
	if w.Kind == "bytes" {
		return []byte(s)
	}
	return s
}

// domainGap says why v, a value of r's physical type, is outside r's
// logical type's domain and what readers do with it; "" when it is inside.
func domainGap(r *avro.Node, v any) string {
	switch r.Logical {
	case "uuid":
		if s, ok := v.(string); ok && !isUUID(s) {
			return fmt.Sprintf("%q is no RFC-4122 UUID: Java's UUIDConversion throws IllegalArgumentException, a hamba/avro reader decoding into uuid.UUID fails", truncate(s, 40))
		}
	case "decimal":
		if b, ok := v.([]byte); ok && !avro.DecimalFits(b, r.Precision) {
			value := "the value"
			if len(b) <= 32 && r.Scale <= 40 {
				value = decimalString(b, r.Scale)
			}
			return fmt.Sprintf("%s has more digits than the reader's precision of %d: Java's DecimalConversion and hamba/avro read it but refuse to write it again (their encoders check the precision), and a DECIMAL(%d,%d) column does not hold it", value, r.Precision, r.Precision, r.Scale)
		}
	case "big-decimal":
		if b, ok := v.([]byte); ok && !bigDecimal(b) {
			return fmt.Sprintf("%d bytes are no unscaled value and scale: Java's BigDecimalConversion fails reading them", len(b))
		}
	case "time-millis", "time-micros":
		d, ok := asInt(v)
		most := int64(dayMillis)
		if r.Logical == "time-micros" {
			most = dayMicros
		}
		if ok && (d < 0 || d >= most) {
			return fmt.Sprintf("%d is no time of day (%s counts from midnight up to 24h): Java's LocalTime conversion throws DateTimeException, hamba/avro reads a time.Duration that is no time of day", d, r.Logical)
		}
	}
	return ""
}

// isUUID is the specification's uuid string: RFC 4122's 8-4-4-4-12 hex
// digits (uuid.Validate alone also takes the urn and braced forms).
func isUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}

// bigDecimal reports whether b holds a big-decimal: the unscaled value as
// Avro bytes (zig-zag length, then the bytes) and the scale as an Avro int.
func bigDecimal(b []byte) bool {
	n, k := binary.Varint(b)
	if k <= 0 || n < 0 || n > int64(len(b)-k) {
		return false
	}
	scale, m := binary.Varint(b[k+int(n):])
	return m > 0 && scale >= math.MinInt32 && scale <= math.MaxInt32
}

package rt

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The format checks below follow github.com/santhosh-tekuri/jsonschema/v6
// (format.go, Apache-2.0) exactly, so that generated code and the catalog's
// validator agree on every string.

func evtIsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func evtIsIPV4(s string) bool {
	groups := strings.Split(s, ".")
	if len(groups) != 4 {
		return false
	}
	for _, group := range groups {
		if len(group) > 1 && group[0] == '0' {
			return false
		}
		n, err := strconv.Atoi(group)
		if err != nil || n < 0 || n > 255 {
			return false
		}
	}
	return true
}

func evtIsIPV6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Zone() == ""
}

func evtIsHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 {
			return false
		}
		if strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, ch := range label {
			switch {
			case ch >= 'a' && ch <= 'z':
			case ch >= 'A' && ch <= 'Z':
			case ch >= '0' && ch <= '9':
			case ch == '-':
			default:
				return false
			}
		}
	}
	return true
}

func evtIsEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at == -1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && strings.HasPrefix(local, `"`) && strings.HasSuffix(local, `"`) {
		local := local[1 : len(local)-1]
		if strings.IndexByte(local, '\\') != -1 || strings.IndexByte(local, '"') != -1 {
			return false
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return false
		}
		for _, ch := range local {
			switch {
			case ch >= 'a' && ch <= 'z':
			case ch >= 'A' && ch <= 'Z':
			case ch >= '0' && ch <= '9':
			case strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", ch):
			default:
				return false
			}
		}
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		domain = domain[1 : len(domain)-1]
		if rem, ok := strings.CutPrefix(domain, "IPv6:"); ok {
			return evtIsIPV6(rem)
		}
		return evtIsIPV4(domain)
	}
	return evtIsHostname(domain)
}

func evtIsURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") || !evtIsIPV6(host) {
			return false
		}
	}
	return u.IsAbs()
}

func evtIsDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// evtParseDateTime parses an RFC 3339 date-time as JSON Schema's format
// does (leap seconds included: 23:59:60 becomes the next second).
func evtParseDateTime(s string) (time.Time, bool) {
	if t, ok, sure := evtFastDateTime(s); sure {
		return t, ok
	}
	if len(s) < 20 || (s[10] != 't' && s[10] != 'T') {
		return time.Time{}, false
	}
	day, err := time.Parse("2006-01-02", s[:10])
	if err != nil {
		return time.Time{}, false
	}
	str := s[11:]
	if len(str) < 9 || str[2] != ':' || str[5] != ':' {
		return time.Time{}, false
	}
	var hms [3]int
	for i, tok := range strings.SplitN(str[:8], ":", 3) {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			return time.Time{}, false
		}
		hms[i] = n
	}
	h, m, sec := hms[0], hms[1], hms[2]
	if h > 23 || m > 59 || sec > 60 {
		return time.Time{}, false
	}
	str = str[8:]
	nsec := 0
	if rem, ok := strings.CutPrefix(str, "."); ok {
		n := 0
		for n < len(rem) && rem[n] >= '0' && rem[n] <= '9' {
			if n < 9 {
				nsec = nsec*10 + int(rem[n]-'0')
			}
			n++
		}
		if n == 0 {
			return time.Time{}, false
		}
		for i := n; i < 9; i++ {
			nsec *= 10
		}
		str = rem[n:]
	}
	loc := time.UTC
	uh, um := h, m // the time in UTC, for the leap second rule
	if str != "z" && str != "Z" {
		if len(str) != 6 {
			return time.Time{}, false
		}
		var sign int
		switch str[0] {
		case '+':
			sign = -1
		case '-':
			sign = +1
		default:
			return time.Time{}, false
		}
		str = str[1:]
		if str[2] != ':' {
			return time.Time{}, false
		}
		var zhm [2]int
		for i, tok := range strings.SplitN(str, ":", 2) {
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 {
				return time.Time{}, false
			}
			zhm[i] = n
		}
		zh, zm := zhm[0], zhm[1]
		if zh > 23 || zm > 59 {
			return time.Time{}, false
		}
		hm := (h*60 + m) + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		uh, um = hm/60, hm%60
		loc = time.FixedZone("", -sign*(zh*3600+zm*60))
	}
	if sec >= 60 && (uh != 23 || um != 59) {
		return time.Time{}, false
	}
	return time.Date(day.Year(), day.Month(), day.Day(), h, m, sec, nsec, loc), true
}

// evtFastDateTime handles the common form yyyy-mm-ddThh:mm:ss[.f]Z|±hh:mm
// with plain digits; sure is false for anything else, which the general
// path decides.
func evtFastDateTime(s string) (t time.Time, ok, sure bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return t, false, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 {
		return t, false, false
	}
	if sec > 59 {
		return t, false, false // leap seconds: the general path
	}
	rest := s[19:]
	nsec := 0
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if n <= 9 {
				nsec = nsec*10 + int(rest[n]-'0')
			}
			n++
		}
		if n == 1 {
			return t, false, true
		}
		for i := n; i <= 9; i++ {
			nsec *= 10
		}
		rest = rest[n:]
	}
	loc := time.UTC
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		zh, zm := num(len(s)-5, 2), num(len(s)-2, 2)
		if zh < 0 || zm < 0 {
			return t, false, false
		}
		if zh > 23 || zm > 59 {
			return t, false, true
		}
		off := zh*3600 + zm*60
		if rest[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	default:
		return t, false, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > evtDaysIn(mo, y) || h > 23 || mi > 59 {
		return t, false, true
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, nsec, loc), true, true
}

func evtDaysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dateTime reads a date-time string.
func (d *evtDecoder) dateTime() (time.Time, bool) {
	b, ok := d.strBytes()
	if !ok {
		return time.Time{}, false
	}
	t, ok := evtParseDateTime(string(b))
	if !ok {
		d.failFormat(string(b), "date-time")
	}
	return t, ok
}

func (e *evtEncoder) time(t time.Time) {
	e.b = append(e.b, '"')
	e.b = t.AppendFormat(e.b, time.RFC3339Nano)
	e.b = append(e.b, '"')
}

func evtIsURIReference(s string) bool {
	if strings.Contains(s, `\`) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") || !evtIsIPV6(host) {
			return false
		}
	}
	return true
}

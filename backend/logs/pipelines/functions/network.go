package functions

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func networkFunctions() []*lang.Function {
	cidr := req("cidr", lang.TString, "The CIDR subnet mask")
	cidr.Prepare = func(v any) (any, error) {
		p, err := netip.ParsePrefix(strings.TrimSpace(v.(string)))
		if err != nil {
			return nil, fmt.Errorf("invalid CIDR notation %q", v)
		}
		return p.Masked(), nil
	}
	charset := opt("charset", lang.TString, "The name of a supported character encoding such as \"UTF-8\"")
	return []*lang.Function{
		fn("cidr_match", lang.TBoolean, "Checks if an IP address matches a CIDR subnet mask", func(_ *lang.Context, a lang.Args) (any, error) {
			p, ok := a.Get(0).(netip.Prefix)
			if !ok {
				return nil, errWrongType("cidr", a.Get(0))
			}
			ip, ok := a.Get(1).(netip.Addr)
			if !ok {
				return false, nil
			}
			return p.Contains(ip.Unmap()) || p.Contains(ip), nil
		}, cidr, req("ip", lang.TIPAddr, "The parsed IP address to match against the CIDR mask")),
		fn("urlencode", lang.TString, "URL encodes a string", func(_ *lang.Context, a lang.Args) (any, error) {
			if err := checkCharset(a.String(1, "UTF-8")); err != nil {
				return nil, err
			}
			return formEncode(a.String(0, "")), nil
		}, req("value", lang.TString, "The value to encode"), charset),
		fn("urldecode", lang.TString, "Decodes a application/x-www-form-urlencoded string using a specific encoding scheme.", func(_ *lang.Context, a lang.Args) (any, error) {
			if err := checkCharset(a.String(1, "UTF-8")); err != nil {
				return nil, err
			}
			return formDecode(a.String(0, ""))
		}, req("value", lang.TString, "The value to decode"), charset),
	}
}

// checkCharset allows the charsets Go's strings are: UTF-8 and its ASCII
// subset.
func checkCharset(name string) error {
	switch strings.ToUpper(name) {
	case "UTF-8", "UTF8", "US-ASCII", "ASCII":
		return nil
	}
	return fmt.Errorf("unsupported charset %s (only UTF-8)", name)
}

// formEncode is Java's URLEncoder: letters, digits and ".-*_" stay, space
// becomes '+', every other byte %XX.
func formEncode(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		}
	}
	return b.String()
}

// formDecode is Java's URLDecoder.
func formDecode(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("URLDecoder: Incomplete trailing escape (%%) pattern")
			}
			var v byte
			for _, h := range []byte{s[i+1], s[i+2]} {
				v <<= 4
				switch {
				case h >= '0' && h <= '9':
					v |= h - '0'
				case h >= 'a' && h <= 'f':
					v |= h - 'a' + 10
				case h >= 'A' && h <= 'F':
					v |= h - 'A' + 10
				default:
					return "", fmt.Errorf("URLDecoder: Illegal hex characters in escape (%%) pattern")
				}
			}
			b.WriteByte(v)
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

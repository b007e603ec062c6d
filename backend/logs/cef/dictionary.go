package cef

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// kind is how Graylog converts a dictionary key's value.
type kind byte

const (
	text    kind = iota // kept as written (also addresses)
	integer             // Java int
	long                // Java long
	bigint              // BigInteger
	float               // Java float
	double              // Java double
	date                // a date, or the text when no format reads it
)

type entry struct {
	full string
	kind kind
}

// dictionary is the CEF key dictionary Graylog 4.0 knows (CEFMapping):
// short key → full name and conversion. Keys whose full name is the key
// itself are listed with an empty full name.
var dictionary = map[string]entry{}

func init() {
	for _, e := range []struct {
		key, full string
		kind      kind
	}{
		{"act", "deviceAction", text}, {"app", "applicationProtocol", text},
		{"c6a1", "deviceCustomIPv6Address1", text}, {"c6a2", "deviceCustomIPv6Address2", text},
		{"c6a3", "deviceCustomIPv6Address3", text}, {"c6a4", "deviceCustomIPv6Address4", text},
		{"cfp1", "deviceCustomFloatingPoint1", float}, {"cfp2", "deviceCustomFloatingPoint2", float},
		{"cfp3", "deviceCustomFloatingPoint3", float}, {"cfp4", "deviceCustomFloatingPoint4", float},
		{"cn1", "deviceCustomNumber1", bigint}, {"cn2", "deviceCustomNumber2", bigint},
		{"cn3", "deviceCustomNumber3", bigint}, {"cn4", "deviceCustomNumber4", bigint},
		{"cnt", "baseEventCount", integer},
		{"cs1", "deviceCustomString1", text}, {"cs2", "deviceCustomString2", text},
		{"cs3", "deviceCustomString3", text}, {"cs4", "deviceCustomString4", text},
		{"cs5", "deviceCustomString5", text}, {"cs6", "deviceCustomString6", text},
		{"destinationDnsDomain", "", text}, {"destinationServiceName", "", text},
		{"destinationTranslatedAddress", "", text}, {"destinationTranslatedPort", "", integer},
		{"deviceCustomDate1", "", date}, {"deviceCustomDate2", "", date},
		{"deviceDirection", "", integer}, {"deviceDnsDomain", "", text},
		{"deviceExternalId", "", text}, {"deviceFacility", "", text},
		{"deviceInboundInterface", "", text}, {"deviceNtDomain", "", text},
		{"deviceOutboundInterface", "", text}, {"devicePayloadId", "", text},
		{"deviceProcessName", "", text}, {"deviceTranslatedAddress", "", text},
		{"dhost", "destinationHostName", text}, {"dmac", "destinationMacAddress", text},
		{"dntdom", "destinationNtDomain", text}, {"dpid", "destinationProcessId", integer},
		{"dpriv", "destinationUserPrivileges", text}, {"dproc", "destinationProcessName", text},
		{"dpt", "destinationPort", integer}, {"dst", "destinationAddress", text},
		{"dtz", "deviceTimeZone", text}, {"duid", "destinationUserId", text},
		{"duser", "destinationUserName", text}, {"dvc", "deviceAddress", text},
		{"dvchost", "deviceHostName", text}, {"dvcmac", "deviceMacAddress", text},
		{"dvcpid", "deviceProcessId", integer}, {"end", "endTime", date},
		{"externalId", "", text}, {"fileCreateTime", "", date}, {"fileHash", "", text},
		{"fileId", "", text}, {"fileModificationTime", "", date}, {"filePath", "", text},
		{"filePermission", "", text}, {"fileType", "", text},
		{"flexDate1", "", date}, {"flexDate2", "", date}, {"flexDate3", "", date}, {"flexDate4", "", date},
		{"flexString1", "", text}, {"flexString2", "", text}, {"flexString3", "", text}, {"flexString4", "", text},
		{"flexNumber1", "", long}, {"flexNumber2", "", long}, {"flexNumber3", "", long}, {"flexNumber4", "", long},
		{"fname", "filename", text}, {"fsize", "fileSize", integer}, {"in", "bytesIn", integer},
		{"msg", "message", text}, {"oldFileCreateTime", "", date}, {"oldFileHash", "", text},
		{"oldFileId", "", text}, {"oldFileModificationTime", "", date}, {"oldFileName", "", text},
		{"oldFilePath", "", text}, {"oldFilePermission", "", text}, {"oldFileSize", "", integer},
		{"oldFileType", "", text}, {"out", "bytesOut", integer}, {"outcome", "eventOutcome", text},
		{"proto", "transportProtocol", text}, {"reason", "", text}, {"request", "requestUrl", text},
		{"requestClientApplication", "", text}, {"requestContext", "", text},
		{"requestCookies", "", text}, {"requestMethod", "", text}, {"rt", "deviceReceiptTime", date},
		{"shost", "sourceHostName", text}, {"smac", "sourceMacAddress", text},
		{"sntdom", "sourceNtDomain", text}, {"sourceDnsDomain", "", text},
		{"sourceServiceName", "", text}, {"sourceTranslatedAddress", "", text},
		{"sourceTranslatedPort", "", integer}, {"spid", "sourceProcessId", integer},
		{"spriv", "sourceUserPrivileges", text}, {"sproc", "sourceProcessName", text},
		{"spt", "sourcePort", integer}, {"src", "sourceAddress", text}, {"start", "startTime", date},
		{"suid", "sourceUserId", text}, {"suser", "sourceUserName", text}, {"type", "", integer},
		// keys for event consumers
		{"agentDnsDomain", "", text}, {"agentNtDomain", "", text}, {"agentTranslatedAddress", "", text},
		{"agentTranslatedZoneExternalID", "", text}, {"agentTranslatedZoneURI", "", text},
		{"agentZoneExternalID", "", text}, {"agentZoneURI", "", text}, {"agt", "agentAddress", text},
		{"ahost", "agentHostName", text}, {"aid", "agentId", text}, {"amac", "agentMacAddress", text},
		{"art", "agentReceiptTime", date}, {"at", "agentType", text}, {"atz", "agentTimeZone", text},
		{"av", "agentVersion", text}, {"cat", "deviceEventCategory", text},
		{"customerExternalID", "", text}, {"customerURI", "", text},
		{"destinationTranslatedZoneExternalID", "", text}, {"destinationTranslatedZoneURI", "", text},
		{"destinationZoneExternalID", "", text}, {"destinationZoneURI", "", text},
		{"deviceTranslatedZoneExternalID", "", text}, {"deviceTranslatedZoneURI", "", text},
		{"deviceZoneExternalID", "", text}, {"deviceZoneURI", "", text},
		{"dlat", "destinationGeoLatitude", double}, {"dlong", "destinationGeoLongitude", double},
		{"eventId", "", long}, {"rawEvent", "", text},
		{"slat", "sourceGeoLatitude", double}, {"slong", "sourceGeoLongitude", double},
		{"sourceTranslatedZoneExternalID", "", text}, {"sourceTranslatedZoneURI", "", text},
		{"sourceZoneExternalID", "", text}, {"sourceZoneURI", "", text},
	} {
		full := e.full
		if full == "" {
			full = e.key
		}
		dictionary[e.key] = entry{full: full, kind: e.kind}
	}
}

// Fields returns the extension as Graylog's parse_cef maps it: label keys
// (…Label) name the value of their key instead of appearing themselves;
// dictionary keys are converted by kind, and renamed to their full name
// when fullNames is set; a dictionary value that does not convert is
// left out. Keys not in the dictionary keep their name and text.
func (ev Event) Fields(fullNames bool) map[string]any {
	labels := map[string]string{}
	for _, p := range ev.Extensions {
		if strings.HasSuffix(p.Key, "Label") {
			labels[strings.TrimSuffix(p.Key, "Label")] = p.Value
		}
	}
	out := make(map[string]any, len(ev.Extensions)+7)
	for _, p := range ev.Extensions {
		if strings.HasSuffix(p.Key, "Label") {
			continue
		}
		name := p.Key
		var v any = p.Value
		if e, ok := dictionary[p.Key]; ok {
			c, ok := convert(e.kind, p.Value)
			if !ok {
				continue
			}
			v = c
			if fullNames {
				name = e.full
			}
		}
		if l, ok := labels[p.Key]; ok {
			name = l
		}
		out[name] = v
	}
	return out
}

func convert(k kind, s string) (any, bool) {
	switch k {
	case integer:
		n, err := strconv.ParseInt(s, 10, 32)
		return n, err == nil
	case long:
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	case bigint:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		// Beyond a long: a double, as the number is stored anyway. The
		// text must be an integer (BigInteger's syntax); ParseFloat reads
		// it in linear time, where big.Int's decimal conversion is
		// quadratic (seconds for a value of a million digits). One beyond
		// a double's range does not convert.
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return nil, false
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case float, double:
		bits := 64
		if k == float {
			bits = 32
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimRight(s, "fFdD")), bits)
		if err != nil || strings.Contains(s, "_") || math.IsInf(f, 0) || math.IsNaN(f) {
			// A message field cannot hold NaN or an infinity.
			return nil, false
		}
		if bits == 32 && !math.IsInf(f, 0) && !math.IsNaN(f) {
			// Keep the decimal as written rather than float32's widening.
			f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		}
		return f, true
	case date:
		if t, ok := parseTime(s); ok {
			return t, true
		}
		return s, true
	}
	return s, true
}

// dateLayouts are the formats of Graylog's CEFTimestampParser, after
// epoch milliseconds. A layout without a year reads year 2000 (Joda's
// default); a trailing zone is a zone id (Europe/Berlin, UTC).
var dateLayouts = []struct {
	layout string
	zone   bool
}{
	{"2006-01-02T15:04:05.000Z07:00", false},
	{"2006-01-02T15:04:05Z07:00", false},
	{"20060102T150405.000Z0700", false},
	{"20060102T150405Z0700", false},
	{"Jan _2 15:04:05.000", true},
	{"Jan _2 15:04:05.000", false},
	{"Jan _2 15:04:05", true},
	{"Jan _2 15:04:05", false},
	{"Jan _2 2006 15:04:05.000", true},
	{"Jan _2 2006 15:04:05.000", false},
	{"Jan _2 2006 15:04:05", true},
	{"Jan _2 2006 15:04:05", false},
}

var blanks = regexp.MustCompile(`\s{2,}`)

func parseTime(s string) (time.Time, bool) {
	s = blanks.ReplaceAllString(strings.TrimSpace(s), " ")
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	for _, l := range dateLayouts {
		text, loc := s, time.UTC
		if l.zone {
			i := strings.LastIndexByte(s, ' ')
			if i < 0 {
				continue
			}
			z, err := time.LoadLocation(s[i+1:])
			if err != nil || s[i+1:] == "Local" {
				continue
			}
			text, loc = s[:i], z
		}
		t, err := time.ParseInLocation(l.layout, text, loc)
		if err != nil {
			continue
		}
		if t.Year() == 0 {
			t = t.AddDate(2000, 0, 0)
		}
		return t, true
	}
	return time.Time{}, false
}

// envelope matches the timestamps Graylog's parser reads before the host
// of a syslog envelope: epoch milliseconds or "MMM dd [yyyy] HH:mm:ss".
var envelope = regexp.MustCompile(`^(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d+\s+(?:\d+\s+)?\d+:\d+:\d+`)

func envelopeTime(s string) bool {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return true
	}
	return envelope.MatchString(s)
}

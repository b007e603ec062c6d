package lookup_test

import (
	"encoding/binary"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/internal/testclock"
)

// dnsServer answers DNS queries over UDP on loopback from a table of
// records, name and type → answers (an A address, a PTR name, a TXT
// text); other names are NXDOMAIN. It is only what the adapter's tests
// ask: one question, no compression but the pointer to it.
func dnsServer(t *testing.T, records map[string][]string) string {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsAnswer(buf[:n], records); resp != nil {
				_, _ = conn.WriteTo(resp, from)
			}
		}
	}()
	return conn.LocalAddr().String()
}

var dnsTypes = map[uint16]string{1: "A", 12: "PTR", 16: "TXT", 28: "AAAA"}

func dnsAnswer(q []byte, records map[string][]string) []byte {
	if len(q) < 12 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	question := q[12 : i+5]
	qtype := binary.BigEndian.Uint16(q[i+1:])
	name := strings.ToLower(strings.Join(labels, ".")) + "."
	answers, known := records[name+" "+dnsTypes[qtype]]
	_, nameKnown := records[name+" A"]
	out := []byte{q[0], q[1], 0x81, 0x80, 0, 1, 0, byte(len(answers)), 0, 0, 0, 0}
	if !known && !nameKnown {
		out[3] = 0x83 // NXDOMAIN
	}
	out = append(out, question...)
	for _, a := range answers {
		var rdata []byte
		switch qtype {
		case 1:
			rdata = net.ParseIP(a).To4()
		case 12:
			for l := range strings.SplitSeq(strings.TrimSuffix(a, "."), ".") {
				rdata = append(append(rdata, byte(len(l))), l...)
			}
			rdata = append(rdata, 0)
		case 16:
			rdata = append([]byte{byte(len(a))}, a...)
		}
		out = append(out, 0xc0, 12, byte(qtype>>8), byte(qtype), 0, 1, 0, 0, 0, 60, byte(len(rdata)>>8), byte(len(rdata)))
		out = append(out, rdata...)
	}
	return out
}

// TestDNSAdapterServer resolves A, PTR and TXT records through a DNS
// server named in server_ips.
func TestDNSAdapterServer(t *testing.T) {
	server := dnsServer(t, map[string][]string{
		"web.test. A":                 {"10.1.2.3", "10.1.2.4"},
		"web.test. TXT":               {"v=spf1 -all"},
		"3.2.1.10.in-addr.arpa. A":    nil,
		"3.2.1.10.in-addr.arpa. PTR":  {"web.test."},
		"host.example.org. A":         {"192.0.2.1"},
		"1.2.0.192.in-addr.arpa. PTR": {"a.b.example.org."},
	})
	lookupType := func(typ string) func(string) lookup.Result {
		svc := newService(t, embedded(t), testclock.New(epoch))
		return adapterOf(t, svc, `{"type":"dnslookup","lookup_type":"`+typ+`","server_ips":"`+server+`","request_timeout":2000}`)
	}
	a := lookupType("A")("web.test")
	if a.Single != "10.1.2.3" || !reflect.DeepEqual(a.StringList, []string{"10.1.2.3", "10.1.2.4"}) {
		t.Errorf("A: %+v", a)
	}
	if r := lookupType("A")("nope.test"); !r.Empty() || r.HasError {
		t.Errorf("NXDOMAIN: %+v", r)
	}
	ptr := lookupType("PTR")
	if r := ptr("10.1.2.3"); r.Single != "web.test" || r.Multi["fqdn"] != "web.test" {
		t.Errorf("PTR: %+v", r)
	}
	if r := ptr("192.0.2.1"); r.Multi["domain"] != "example.org" {
		t.Errorf("PTR domain: %+v", r)
	}
	if r := lookupType("TXT")("web.test"); !reflect.DeepEqual(r.StringList, []string{"v=spf1 -all"}) || r.Single != nil {
		t.Errorf("TXT: %+v", r)
	}
}

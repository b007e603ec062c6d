package definitions

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/router/api"
)

func seq() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("id%d", n)
	}
}

const validDef = `{"title":"t","description":"","priority":2,"alert":false,"config":{"type":"aggregation-v1","query":"","streams":[],
"group_by":[],"series":[],"conditions":null,"search_within_ms":60000,"execute_every_ms":60000},"key_spec":[],
"notification_settings":{"grace_period_ms":0,"backlog_size":null}}`

func TestParseDefinition(t *testing.T) {
	d, err := ParseDefinition([]byte(validDef), seq())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Storage) != 1 || d.Storage[0].Streams[0] != "000000000000000000000002" || d.FieldSpec == nil || d.Notifications == nil ||
		d.Config.QueryParameters == nil || d.NotificationSettings.BacklogSize != 0 {
		t.Errorf("defaults: %+v", d)
	}
	tests := []struct{ name, body, want string }{
		{"missing", `{"title":"t"}`, "Missing required properties: description priority alert config keySpec notificationSettings"},
		{"missing grace", strings.Replace(validDef, `"grace_period_ms":0,`, "", 1), "Missing required properties: gracePeriodMs"},
		{"missing config fields", strings.Replace(validDef, `"query":"","streams":[],`, "", 1), "Missing required properties: query streams"},
		{"unknown property", strings.Replace(validDef, `"title":"t"`, `"title":"t","colour":1`, 1), "Unable to map property colour"},
		{"unknown function", strings.Replace(validDef, `"series":[]`, `"series":[{"function":"median","field":"x"}]`, 1), "Unknown aggregation function"},
		{"function without field", strings.Replace(validDef, `"series":[]`, `"series":[{"function":"avg"}]`, 1), "needs a field"},
		{"bad condition", strings.Replace(validDef, `"conditions":null`, `"conditions":{"expression":{"expr":">","left":{"expr":"true"}}}`, 1), "Invalid conditions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDefinition([]byte(tt.body), seq())
			if err == nil || api.ErrorCode(err) != api.Invalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a 400 with %q", err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	count := []Series{{ID: "c", Function: "count"}}
	cond := &Conditions{Expression: &Expr{Expr: ">", Left: &Expr{Expr: "number-ref", Ref: "c"}, Right: &Expr{Expr: "number", Value: new(float64)}}}
	base := func() Definition {
		return Definition{Title: "t", Config: Config{Type: TypeAggregation, SearchWithinMs: 1, ExecuteEveryMs: 1}, FieldSpec: map[string]FieldSpec{}}
	}
	tests := []struct {
		name string
		edit func(*Definition)
		want map[string][]string
	}{
		{"valid filter", func(*Definition) {}, nil},
		{"valid aggregation", func(d *Definition) {
			d.Config.Series, d.Config.Conditions, d.Config.GroupBy = count, cond, []string{"source"}
		}, nil},
		{"empty title", func(d *Definition) { d.Title = "" }, map[string][]string{"title": {"Event Definition title cannot be empty."}}},
		{"other type", func(d *Definition) { d.Config.Type = "correlation-v1" }, map[string][]string{"config": {"Event Definition config type cannot be empty."}}},
		{"windows", func(d *Definition) { d.Config.SearchWithinMs, d.Config.ExecuteEveryMs = 0, -1 }, map[string][]string{
			"search_within_ms": {"Filter & Aggregation search_within_ms must be greater than 0."},
			"execute_every_ms": {"Filter & Aggregation execute_every_ms must be greater than 0."}}},
		// Past about 146 years a window and a hop wrap around in
		// time.Duration: the next window would be in the past, due again
		// at once, for ever.
		{"windows too long", func(d *Definition) { d.Config.SearchWithinMs, d.Config.ExecuteEveryMs = MaxIntervalMs+1, 9223372036855 }, map[string][]string{
			"search_within_ms": {"Filter & Aggregation search_within_ms must be at most 4611686018427 (146 years)."},
			"execute_every_ms": {"Filter & Aggregation execute_every_ms must be at most 4611686018427 (146 years)."}}},
		{"windows at most", func(d *Definition) { d.Config.SearchWithinMs, d.Config.ExecuteEveryMs = MaxIntervalMs, MaxIntervalMs }, nil},
		{"group_by alone", func(d *Definition) { d.Config.GroupBy = []string{"source"} }, map[string][]string{
			"series": {"Aggregation with group_by must also contain series"}, "conditions": {"Aggregation with group_by must also contain conditions"}}},
		{"conditions alone", func(d *Definition) { d.Config.Conditions = cond }, map[string][]string{
			"series":     {"Aggregation with conditions must also contain series"},
			"conditions": {`Condition refers to series "c", which the config does not have`}}},
		{"series alone", func(d *Definition) { d.Config.Series = count }, map[string][]string{"conditions": {"Aggregation with series must also contain conditions"}}},
		{"field name", func(d *Definition) { d.FieldSpec["bad name"] = FieldSpec{} }, map[string][]string{
			"field_spec": {`Event Definition field_spec contains invalid message field "bad name"`}}},
		{"key spec", func(d *Definition) { d.KeySpec = []string{"host"} }, map[string][]string{
			"key_spec": {"Event Definition key_spec can only contain fields defined in field_spec."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := base()
			tt.edit(&d)
			v := d.Validate()
			if v.Failed != (tt.want != nil) {
				t.Fatalf("failed %v: %v", v.Failed, v.Errors)
			}
			if tt.want == nil {
				return
			}
			got, _ := json.Marshal(v.Errors)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("errors %s, want %s", got, want)
			}
		})
	}
}

func num(v float64) *Expr { return &Expr{Expr: "number", Value: &v} }
func ref(id string) *Expr { return &Expr{Expr: "number-ref", Ref: id} }

func TestConditions(t *testing.T) {
	values := map[string]float64{"c": 12, "a": math.NaN()}
	tests := []struct {
		name string
		e    *Expr
		want bool
	}{
		{"true", &Expr{Expr: "true"}, true},
		{">", &Expr{Expr: ">", Left: ref("c"), Right: num(10)}, true},
		{"<=", &Expr{Expr: "<=", Left: ref("c"), Right: num(11)}, false},
		{"==", &Expr{Expr: "==", Left: ref("c"), Right: num(12)}, true},
		{"NaN compares false", &Expr{Expr: ">=", Left: ref("a"), Right: num(0)}, false},
		{"unknown ref is NaN", &Expr{Expr: "<", Left: ref("x"), Right: num(1)}, false},
		{"&&", &Expr{Expr: "&&", Left: &Expr{Expr: "true"}, Right: &Expr{Expr: "<", Left: ref("c"), Right: num(1)}}, false},
		{"||", &Expr{Expr: "||", Left: &Expr{Expr: "<", Left: ref("c"), Right: num(1)}, Right: &Expr{Expr: "true"}}, true},
		{"!", &Expr{Expr: "!", Left: &Expr{Expr: "true"}}, false},
		{"group", &Expr{Expr: "group", Operator: "&&", Child: &Expr{Expr: "true"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(tt.e)
			e, err := ParseExpr(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Holds(values); got != tt.want {
				t.Errorf("%s holds %v", b, got)
			}
		})
	}
	for _, bad := range []string{`{"expr":"number","value":1}`, `{"expr":">","left":{"expr":"true"},"right":{"expr":"number","value":1}}`,
		`{"expr":"&&","left":{"expr":"true"}}`, `{"expr":"group","operator":"xor","child":{"expr":"true"}}`, `{"expr":"number-ref"}`, `{"expr":"?"}`,
		`{"expr":"!","left":` + strings.Repeat(`{"expr":"!","left":`, 70) + `{"expr":"true"}` + strings.Repeat("}", 71)} {
		if _, err := ParseExpr([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestEventID(t *testing.T) {
	a, b := eventID(timeAt(1606816800000), "d", "k"), eventID(timeAt(1606816800000), "d", "k")
	if a != b || len(a) != 26 || a == eventID(timeAt(1606816800000), "d", "l") {
		t.Errorf("ids %s %s", a, b)
	}
	// ULIDs sort by time.
	if later := eventID(timeAt(1606816800001), "d", "k"); later <= a {
		t.Errorf("%s does not sort after %s", later, a)
	}
	if strings.ContainsFunc(a, func(r rune) bool { return !strings.ContainsRune(crockford, r) }) || !slices.Contains([]byte("01234567"), a[0]) {
		t.Errorf("%s is no ULID", a)
	}
}

func FuzzConditions(f *testing.F) {
	for _, s := range []string{`{"expr":">","left":{"expr":"number-ref","ref":"c"},"right":{"expr":"number","value":10}}`,
		`{"expr":"group","operator":"||","child":{"expr":"!","left":{"expr":"true"}}}`, `null`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseExpr(b)
		if err != nil || e == nil {
			return
		}
		_ = e.Holds(map[string]float64{"c": 1})
		_ = e.Refs()
	})
}

func FuzzParseDefinition(f *testing.F) {
	f.Add([]byte(validDef))
	f.Add([]byte(`{"title":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDefinition(b, seq())
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", b, err)
			}
			return
		}
		_ = d.Validate()
		if _, err := json.Marshal(d); err != nil {
			t.Fatal(err)
		}
	})
}

func timeAt(ms int64) time.Time { return time.UnixMilli(ms) }

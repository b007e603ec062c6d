package indexsets_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/router/api"
)

func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{
		"P1D", "PT1H", "P1M", "P1Y2M3W4DT5H6M7.890S", "p1dt12h", "PT0,5S", "P-1D", "PT-1.5S", "P+2W",
		"P", "PT", "P1DT", "P1.5D", "PT1.S", "P2147483648Y", "P-2147483648Y", "PT1.123456789S", "P1D1Y", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := indexsets.ParsePeriod(s)
		if err != nil {
			if !strings.Contains(err.Error(), "not an ISO-8601 period") {
				t.Fatalf("ParsePeriod(%q): error %q does not say what is expected", s, err)
			}
			return
		}
		out := p.String()
		if !strings.HasPrefix(out, "P") {
			t.Fatalf("ParsePeriod(%q).String() = %q", s, out)
		}
		back, err := indexsets.ParsePeriod(out)
		if err != nil || back != p {
			t.Fatalf("round trip of %q through %q gave %+v, %v; want %+v", s, out, back, err, p)
		}
		if p.Positive() && out == "PT0S" {
			t.Fatalf("%q is positive but prints as the empty period", s)
		}
	})
}

var prefixRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_+-]*$`)

// FuzzIndexSetBody reads request bodies as POST and PUT do. Whatever is
// accepted must satisfy every constraint, and an accepted index set must
// read back unchanged from its own summary.
func FuzzIndexSetBody(f *testing.F) {
	f.Add(body(nil))
	f.Add(body(map[string]any{"rotation_strategy_class": indexsets.TimeBasedRotation,
		"rotation_strategy": map[string]any{"type": timeConfig, "rotation_period": "P1DT1.5S"}, "index_template_type": "events"}))
	f.Add(body(map[string]any{"rotation_strategy_class": indexsets.MessageCountRotation,
		"rotation_strategy": map[string]any{"type": countConfig, "max_docs_per_index": 1}, "creation_date": "2020-01-02T03:04:05.123456789+02:00"}))
	f.Add(body(map[string]any{"shards": 0, "index_prefix": "Bad"}))
	f.Add(body(map[string]any{"rotation_strategy": map[string]any{"type": countConfig}}))
	f.Add(`{"title":"t","index_prefix":"a","shards":1,"description":null,"rotation_strategy":null}`)
	f.Add(`{}`)
	f.Add(`[]`)
	old := mustIndexSet(f, "old")
	old.ID = "5f0000000000000000000000"
	f.Fuzz(func(t *testing.T, in string) {
		var create indexsets.CreateRequest
		if api.DecodeBytes([]byte(in), &create, true) == nil {
			if is, err := create.IndexSet(epoch); err == nil {
				checkIndexSet(t, in, is)
				if !prefixRE.MatchString(is.IndexPrefix) || is.IndexTemplateName != is.IndexPrefix+"-template" {
					t.Fatalf("%s: prefix %q, template %q", in, is.IndexPrefix, is.IndexTemplateName)
				}
				summary, err := json.Marshal(indexsets.Summarize(is, false))
				if err != nil {
					t.Fatal(err)
				}
				var again indexsets.CreateRequest
				if err := api.DecodeBytes(summary, &again, true); err != nil {
					t.Fatalf("summary %s does not read back: %v", summary, err)
				}
				back, err := again.IndexSet(epoch)
				if err != nil || !reflect.DeepEqual(back, is) {
					t.Fatalf("%s: read back from %s as %+v, %v; want %+v", in, summary, back, err, is)
				}
			} else if _, ok := err.(*api.ValidationError); !ok {
				t.Fatalf("%s: error %T %v is not a validation error", in, err, err)
			}
		}
		var update indexsets.UpdateRequest
		if api.DecodeBytes([]byte(in), &update, false) != nil {
			return
		}
		is, err := update.Apply(old)
		if err != nil {
			if _, ok := err.(*api.ValidationError); !ok {
				t.Fatalf("%s: error %T %v is not a validation error", in, err, err)
			}
			return
		}
		checkIndexSet(t, in, is)
		if is.ID != old.ID || is.IndexPrefix != old.IndexPrefix || is.CreationDate != old.CreationDate || is.IndexAnalyzer != old.IndexAnalyzer {
			t.Fatalf("%s: an update changed what never changes: %+v", in, is)
		}
	})
}

// checkIndexSet fails unless is satisfies every constraint of an index set.
func checkIndexSet(t *testing.T, in string, is indexsets.IndexSet) {
	t.Helper()
	rotationConfigs := map[string]func(indexsets.RotationConfig) bool{
		indexsets.MessageCountRotation: func(c indexsets.RotationConfig) bool {
			return c.MaxDocsPerIndex >= 1 && c.MaxSize == 0 && c.RotationPeriod == nil
		},
		indexsets.SizeBasedRotation: func(c indexsets.RotationConfig) bool {
			return c.MaxSize >= 1 && c.MaxDocsPerIndex == 0 && c.RotationPeriod == nil
		},
		indexsets.TimeBasedRotation: func(c indexsets.RotationConfig) bool {
			return c.RotationPeriod != nil && c.RotationPeriod.Positive() && c.MaxSize == 0 && c.MaxDocsPerIndex == 0
		},
	}
	ok := strings.TrimSpace(is.Title) != "" && is.Shards >= 1 && is.Replicas >= 0 && is.IndexOptimizationMaxNumSegments >= 1 &&
		is.FieldTypeRefreshInterval >= 1000 && strings.TrimSpace(is.IndexAnalyzer) != "" &&
		rotationConfigs[is.RotationStrategyClass] != nil && rotationConfigs[is.RotationStrategyClass](is.RotationStrategy) &&
		is.RotationStrategy.Type == is.RotationStrategyClass+"Config" &&
		is.RetentionStrategy.Type == is.RetentionStrategyClass+"Config" && is.RetentionStrategy.MaxNumberOfIndices >= 1 &&
		(is.RetentionStrategyClass == indexsets.DeletionRetention || is.RetentionStrategyClass == indexsets.ClosingRetention || is.RetentionStrategyClass == indexsets.NoopRetention) &&
		(is.IndexTemplateType == nil || *is.IndexTemplateType == "messages" || *is.IndexTemplateType == "events" || *is.IndexTemplateType == "gim_v1")
	if !ok {
		t.Fatalf("%s: accepted an invalid index set %+v", in, is)
	}
}

package grok_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

const seededKey = "org.graylog2.migrations.V20180924111644_AddDefaultGrokPatterns.MigrationCompleted"

func TestDefaultPatterns(t *testing.T) {
	defaults := grok.DefaultPatterns()
	// Graylog's default set, as far as go-grok has it (it lacks MONTHNUM2).
	for _, name := range []string{"COMMONAPACHELOG", "COMBINEDAPACHELOG", "HTTPD_ERRORLOG", "SYSLOGBASE", "IPORHOST", "TIMESTAMP_ISO8601", "GREEDYDATA", "LOGLEVEL", "UUID"} {
		if !slices.ContainsFunc(defaults, func(p grok.Pattern) bool { return p.Name == name }) {
			t.Errorf("%s is not a default pattern", name)
		}
	}
	if !slices.IsSortedFunc(defaults, func(a, b grok.Pattern) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("not sorted")
	}
	e := newEnv(t)
	for _, p := range defaults {
		if _, err := e.svc.Compile("%{" + p.Name + "}"); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

func TestPersistence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	st := openStore(t, path)
	svc, err := grok.NewService(ctx, st, clock)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedNames(svc.All()), sortedNames(grok.DefaultPatterns()); !slices.Equal(got, want) {
		t.Fatalf("installed %v, want %v", got, want)
	}
	doc, err := st.Get(ctx, "cluster_config", seededKey)
	if err != nil {
		t.Fatalf("no record of the installation: %v", err)
	}
	var record struct {
		ContentPackID string   `json:"content_pack_id"`
		Installed     []string `json:"installed"`
		LastUpdated   string   `json:"last_updated"`
	}
	if err := json.Unmarshal(doc, &record); err != nil || record.ContentPackID == "" ||
		record.LastUpdated != epoch.Format(api.TimeLayout) || len(record.Installed) != len(grok.DefaultPatterns()) {
		t.Errorf("record %s (%v)", doc, err)
	}

	word, _ := findName(svc.All(), "WORD")
	if err := svc.Delete(ctx, word.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, grok.Pattern{Name: "MINE", Pattern: "%{INT:n}"}); err != nil {
		t.Fatal(err)
	}
	ipv4, _ := findName(svc.All(), "IPV4")
	if _, err := svc.Update(ctx, ipv4.ID, grok.Pattern{Name: "IPV4", Pattern: `\d+\.\d+\.\d+\.\d+`}); err != nil {
		t.Fatal(err)
	}
	want := svc.All()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, path)
	svc, err = grok.NewService(ctx, st, clock)
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.All(); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopening: %v, want %v", names(got), names(want))
	}
	if _, ok := findName(svc.All(), "WORD"); ok {
		t.Error("the deleted default pattern came back")
	}
	if n, err := svc.Count(ctx); n != len(want) || err != nil {
		t.Errorf("Count = %d, %v; want %d", n, err, len(want))
	}
	if m, err := svc.Compile("%{MINE}"); err != nil || m.Match("7")["n"] != "7" {
		t.Errorf("MINE after reopening: %v", err)
	}
}

// An installation interrupted before its record resumes, leaving patterns
// the user has alone.
func TestSeedingResumes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "db"))
	mine := `{"id":"5f0000000000000000000001","name":"WORD","pattern":"[a-z]+","content_pack":null}`
	if err := st.Insert(ctx, grok.Collection, "5f0000000000000000000001", []byte(mine)); err != nil {
		t.Fatal(err)
	}
	svc, err := grok.NewService(ctx, st, clock)
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedNames(svc.All()); !slices.Equal(got, sortedNames(grok.DefaultPatterns())) {
		t.Errorf("installed %v", got)
	}
	if w, _ := findName(svc.All(), "WORD"); w.Pattern != "[a-z]+" || w.ID != "5f0000000000000000000001" {
		t.Errorf("the user's WORD was replaced: %+v", w)
	}
	doc, err := st.Get(ctx, "cluster_config", seededKey)
	if err != nil || strings.Contains(string(doc), `"WORD"`) {
		t.Errorf("record %s (%v) should not list WORD", doc, err)
	}
}

// Nodes starting together install each default pattern once.
func TestSeedingConcurrently(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "db"))
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { _, errs[i] = grok.NewService(ctx, st, clock) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Count(ctx, grok.Collection); n != len(grok.DefaultPatterns()) {
		t.Errorf("%d patterns stored, want %d", n, len(grok.DefaultPatterns()))
	}
}

func TestReload(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	doc := `{"id":"5f0000000000000000000002","name":"OTHER_NODE","pattern":"%{INT:n}","content_pack":null}`
	if err := e.st.Insert(ctx, grok.Collection, "5f0000000000000000000002", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Compile("%{OTHER_NODE}"); err == nil {
		t.Fatal("compiled a pattern not yet loaded")
	}
	if err := e.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Compile("%{OTHER_NODE}"); err != nil {
		t.Errorf("after Reload: %v", err)
	}
}

func TestCompile(t *testing.T) {
	e := newEnv(t)
	all, err := e.svc.Compile("%{IPV4:ip} %{WORD}")
	if err != nil {
		t.Fatal(err)
	}
	named, err := e.svc.CompileNamedOnly("%{IPV4:ip} %{WORD}")
	if err != nil {
		t.Fatal(err)
	}
	if got := all.Match("1.2.3.4 x"); !reflect.DeepEqual(got, map[string]any{"ip": "1.2.3.4", "WORD": "x"}) {
		t.Errorf("Compile: %v", got)
	}
	if got := named.Match("1.2.3.4 x"); !reflect.DeepEqual(got, map[string]any{"ip": "1.2.3.4"}) {
		t.Errorf("CompileNamedOnly: %v", got)
	}
	if !all.MatchString("1.2.3.4 x") || all.MatchString("nothing") {
		t.Error("MatchString")
	}
	if again, _ := e.svc.Compile("%{IPV4:ip} %{WORD}"); again != all {
		t.Error("the matcher was not cached")
	}
	// A change of the patterns drops the cache: a matcher never outlives
	// the definitions it was compiled from.
	if _, err := e.svc.Create(context.Background(), grok.Pattern{Name: "NEW", Pattern: "x"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := e.svc.Compile("%{IPV4:ip} %{WORD}"); again == all {
		t.Error("the cache survived a change")
	}
	// A cached matcher does not let an unsaved pattern skip validation.
	if _, err := e.svc.CompileUnsaved(grok.Pattern{Pattern: "%{IPV4:ip} %{WORD}"}); err == nil {
		t.Error("an unsaved pattern without a name compiled")
	}
	for _, bad := range []string{"%{NOPE}", "(", "%{WORD:x-y}"} {
		_, err := e.svc.Compile(bad)
		if api.ErrorCode(err) != api.Invalid {
			t.Errorf("%q: %v, want a 400", bad, err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 20 {
				p, err := e.svc.Create(ctx, grok.Pattern{Name: fmt.Sprintf("P_%d_%d", i, j), Pattern: "%{INT}"})
				if err != nil {
					t.Error(err)
					return
				}
				if j%2 == 0 {
					if err := e.svc.Delete(ctx, p.ID); err != nil {
						t.Error(err)
					}
				}
			}
		})
		wg.Go(func() {
			for j := range 50 {
				m, err := e.svc.CompileUnsaved(grok.Pattern{Name: "T", Pattern: fmt.Sprintf("%%{INT:n}-%d", j%5)})
				if err != nil {
					t.Error(err)
					return
				}
				if got := m.Match(fmt.Sprintf("12-%d", j%5)); got["n"] != "12" {
					t.Errorf("match %v", got)
				}
				_ = e.svc.All()
			}
		})
	}
	wg.Wait()
	stored := 0
	_ = e.st.List(ctx, grok.Collection, func(string, []byte) error { stored++; return nil })
	if got := len(e.svc.All()); got != stored || got != len(grok.DefaultPatterns())+40 {
		t.Errorf("%d in memory, %d stored, want %d", got, stored, len(grok.DefaultPatterns())+40)
	}
}

// failing fails writes after a number of inserts.
type failing struct {
	store.Store
	mu      sync.Mutex
	inserts int
}

var errDisk = errors.New("disk on fire")

func (f *failing) Insert(ctx context.Context, coll, id string, doc []byte) error {
	f.mu.Lock()
	f.inserts--
	fail := f.inserts < 0
	f.mu.Unlock()
	if fail {
		return errDisk
	}
	return f.Store.Insert(ctx, coll, id, doc)
}

// A failed write leaves the in-memory patterns as the store has them.
func TestStoreFailure(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	f := &failing{Store: e.st, inserts: 2}
	svc, err := grok.NewService(ctx, f, clock)
	if err != nil {
		t.Fatal(err)
	}
	err = svc.Import(ctx, []grok.Pattern{{Name: "A1", Pattern: "a"}, {Name: "A2", Pattern: "b"}, {Name: "A3", Pattern: "c"}}, true)
	if !errors.Is(err, errDisk) || api.ErrorCode(err) != api.Internal {
		t.Fatalf("Import: %v", err)
	}
	var stored []string
	_ = e.st.List(ctx, grok.Collection, func(_ string, doc []byte) error {
		var p grok.Pattern
		_ = json.Unmarshal(doc, &p)
		stored = append(stored, p.Name)
		return nil
	})
	slices.Sort(stored)
	if got := names(svc.All()); !slices.Equal(got, stored) || !slices.Equal(got, []string{"A1", "A2"}) {
		t.Errorf("in memory %v, stored %v", got, stored)
	}
	if _, err := svc.Create(ctx, grok.Pattern{Name: "B", Pattern: "b"}); !errors.Is(err, errDisk) {
		t.Errorf("Create: %v", err)
	}
	if _, ok := findName(svc.All(), "B"); ok {
		t.Error("a pattern the store refused is in memory")
	}
}

func findName(ps []grok.Pattern, name string) (grok.Pattern, bool) {
	i := slices.IndexFunc(ps, func(p grok.Pattern) bool { return p.Name == name })
	if i < 0 {
		return grok.Pattern{}, false
	}
	return ps[i], true
}

// sortedNames returns the names in byte order.
func sortedNames(ps []grok.Pattern) []string {
	out := names(ps)
	slices.Sort(out)
	return out
}

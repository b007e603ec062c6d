package elastic

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// validName reports whether s can be an index prefix or an index name of
// a series: Graylog's prefix characters, which also keeps wildcards and
// commas, which would widen a request to other indices, out of paths.
func validName(s string) bool {
	if s == "" || len(s) > 200 || s[0] == '_' || s[0] == '-' || s[0] == '+' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}

// pathName puts validated names and patterns into a path. Only "+" needs
// escaping: some versions decode it as a space.
func pathName(s string) string { return strings.ReplaceAll(s, "+", "%2B") }

// splitIndex returns the prefix and number of an index name <prefix>_<n>.
func splitIndex(name string) (string, int, bool) {
	i := strings.LastIndexByte(name, '_')
	if i <= 0 || !validName(name) {
		return "", 0, false
	}
	n, ok := number(name[i+1:])
	if !ok {
		return "", 0, false
	}
	return name[:i], n, true
}

// number parses the n of <prefix>_<n>: decimal digits only, without
// leading zeros, so that a number names one index.
func number(s string) (int, bool) {
	if s == "" || len(s) > 9 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// Indices lists the indices of a series, oldest first, the write index
// last.
func (s *Store) Indices(ctx context.Context, prefix string) ([]messages.Index, error) {
	if !validName(prefix) {
		return nil, fmt.Errorf("indices: invalid index prefix %q", prefix)
	}
	out, err := s.indices(ctx, []string{s.phys(prefix)})
	if err != nil {
		return nil, fmt.Errorf("indices of %s: %w", prefix, err)
	}
	return s.logicalIndices(out), nil
}

// indices lists the indices of several series in three requests: the
// indices with their status, counts, sizes and creation times, the
// deflector and reopened aliases, and the smallest and largest timestamp
// of each index.
func (s *Store) indices(ctx context.Context, prefixes []string) ([]messages.Index, error) {
	status, body, err := s.do(ctx, esapi.CatIndicesRequest{
		Index:  []string{pathName(patterns(prefixes))},
		Format: "json",
		Bytes:  "b",
		H:      []string{"index", "status", "docs.count", "store.size", "creation.date"},
	})
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound {
		body = []byte("[]")
	} else if status != http.StatusOK {
		return nil, s.fail("list indices", status, body)
	}
	list, err := parseCat(body, prefixes)
	if err != nil || len(list) == 0 {
		return list, err
	}
	names := make([]string, 0, 2*len(prefixes))
	for _, p := range prefixes {
		names = append(names, deflector(p), p+"_*"+reopenedSuffix)
	}
	aliases, err := s.aliases(ctx, names)
	if err != nil {
		return nil, err
	}
	var docs int64
	for i := range list {
		ix := &list[i]
		ix.Write = slices.Contains(aliases[ix.Name], deflector(ix.Prefix))
		ix.Reopened = slices.Contains(aliases[ix.Name], ix.Name+reopenedSuffix)
		docs += ix.Count
	}
	if docs > 0 {
		if err := s.ranges(ctx, prefixes, list); err != nil {
			return nil, err
		}
	}
	order := make(map[string]int, len(prefixes))
	for i, p := range prefixes {
		order[p] = i
	}
	slices.SortFunc(list, func(a, b messages.Index) int {
		return cmp.Or(
			cmp.Compare(order[a.Prefix], order[b.Prefix]),
			cmp.Compare(btoi(a.Write), btoi(b.Write)),
			cmp.Compare(a.Number, b.Number),
		)
	})
	return list, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseCat reads the answer of _cat/indices in JSON, where every value is
// a string (null for the counts of a closed index), and keeps the indices
// named <prefix>_<n> for one of prefixes. A closed index gets no figures,
// whatever the version reports for it.
func parseCat(body []byte, prefixes []string) ([]messages.Index, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("%w: _cat/indices answer is not JSON", errBadResponse)
	}
	r := gjson.ParseBytes(body)
	if !r.IsArray() {
		return nil, fmt.Errorf("%w: _cat/indices answer is not a list", errBadResponse)
	}
	var out []messages.Index
	r.ForEach(func(_, row gjson.Result) bool {
		name := row.Get("index").String()
		prefix, n, ok := splitIndex(name)
		if !ok || !slices.Contains(prefixes, prefix) {
			return true
		}
		idx := messages.Index{Name: name, Prefix: prefix, Number: n, Closed: row.Get("status").String() == "close"}
		if !idx.Closed {
			idx.Count, _ = strconv.ParseInt(row.Get("docs\\.count").String(), 10, 64)
			idx.Size, _ = strconv.ParseInt(row.Get("store\\.size").String(), 10, 64)
		}
		if ms, err := strconv.ParseInt(row.Get("creation\\.date").String(), 10, 64); err == nil {
			idx.Created = time.UnixMilli(ms).UTC()
		}
		out = append(out, idx)
		return true
	})
	return out, nil
}

// writeIndices returns the indices the deflector aliases of prefixes point
// to.
func (s *Store) writeIndices(ctx context.Context, prefixes []string) (map[string]bool, error) {
	names := make([]string, len(prefixes))
	for i, p := range prefixes {
		names[i] = deflector(p)
	}
	aliases, err := s.aliases(ctx, names)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for index, as := range aliases {
		for _, a := range as {
			if slices.Contains(names, a) {
				out[index] = true
			}
		}
	}
	return out, nil
}

// aliases returns the aliases of the given names or patterns by index.
// Elasticsearch answers 404 when some alias is missing, with the aliases
// it found in the same body.
func (s *Store) aliases(ctx context.Context, names []string) (map[string][]string, error) {
	status, body, err := s.do(ctx, esapi.IndicesGetAliasRequest{Name: []string{pathName(strings.Join(names, ","))}})
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK && status != http.StatusNotFound {
		return nil, s.fail("read aliases", status, body)
	}
	return parseAliases(body), nil
}

// parseAliases reads {"<index>":{"aliases":{"<alias>":{…}}}}, skipping the
// "error" and "status" members of a 404.
func parseAliases(body []byte) map[string][]string {
	out := map[string][]string{}
	if !gjson.ValidBytes(body) {
		return out
	}
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		v.Get("aliases").ForEach(func(a, _ gjson.Result) bool {
			out[k.Str] = append(out[k.Str], a.Str)
			return true
		})
		return true
	})
	return out
}

// writeIndex returns the index the deflector of prefix points to, "" when
// there is no alias.
func (s *Store) writeIndex(ctx context.Context, prefix string) (string, error) {
	w, err := s.writeIndices(ctx, []string{prefix})
	if err != nil {
		return "", err
	}
	for name := range w {
		return name, nil
	}
	return "", nil
}

// allPrefixes returns the physical prefixes of every series of the
// namespace: those with a deflector alias.
func (s *Store) allPrefixes(ctx context.Context) ([]string, error) {
	status, body, err := s.do(ctx, esapi.IndicesGetAliasRequest{Name: []string{pathName(s.ns) + "*_deflector"}})
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK && status != http.StatusNotFound {
		return nil, s.fail("list deflector aliases", status, body)
	}
	var out []string
	for _, aliases := range parseAliases(body) {
		for _, a := range aliases {
			p, ok := strings.CutSuffix(a, "_deflector")
			if ok && strings.HasPrefix(p, s.ns) && validName(p) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// rangesBody asks for the smallest and largest timestamp of each index.
func rangesBody(n int) []byte {
	body, _ := json.Marshal(map[string]any{
		"size": 0,
		"aggs": map[string]any{"indices": map[string]any{
			"terms": map[string]any{"field": "_index", "size": n},
			"aggs": map[string]any{
				"begin": map[string]any{"min": map[string]any{"field": messages.FieldTimestamp}},
				"end":   map[string]any{"max": map[string]any{"field": messages.FieldTimestamp}},
			},
		}},
	})
	return body
}

// ranges fills Begin and End of list, as Graylog's index ranges would.
func (s *Store) ranges(ctx context.Context, prefixes []string, list []messages.Index) error {
	status, body, err := s.do(ctx, searchRequest(prefixes, rangesBody(len(list))))
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return s.fail("index time ranges", status, body)
	}
	if !gjson.ValidBytes(body) {
		return fmt.Errorf("%w: index time ranges answer is not JSON", errBadResponse)
	}
	byName := make(map[string]*messages.Index, len(list))
	for i := range list {
		byName[list[i].Name] = &list[i]
	}
	gjson.GetBytes(body, "aggregations.indices.buckets").ForEach(func(_, b gjson.Result) bool {
		idx := byName[b.Get("key").String()]
		begin, end := b.Get("begin.value"), b.Get("end.value")
		if idx != nil && begin.Type == gjson.Number && end.Type == gjson.Number {
			idx.Begin = time.UnixMilli(int64(begin.Num)).UTC()
			idx.End = time.UnixMilli(int64(end.Num)).UTC()
		}
		return true
	})
	return nil
}

// putTemplate creates or updates the index template of prefix. Graylog
// does so before it creates each index, so that the mapping follows the
// index set's analyzer.
func (s *Store) putTemplate(ctx context.Context, prefix string) error {
	body, err := templateBody(s.srv, prefix, s.settings(prefix).Analyzer)
	if err != nil {
		return err
	}
	// A legacy template (_template), which every supported version takes.
	// No include_type_name: 6.8 reads the typed mapping by default.
	status, resp, err := s.do(ctx, esapi.IndicesPutTemplateRequest{Name: pathName(templateName(prefix)), Body: jsonBody(body)})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return s.fail("put index template "+templateName(prefix), status, resp)
	}
	return nil
}

// createIndex creates an index of prefix's series, with the deflector
// alias if alias is set. It reports false if the index exists already.
func (s *Store) createIndex(ctx context.Context, prefix, name string, alias bool) (bool, error) {
	a := ""
	if alias {
		a = deflector(prefix)
	}
	status, body, err := s.do(ctx, esapi.IndicesCreateRequest{Index: pathName(name), Body: jsonBody(createIndexBody(s.settings(prefix), a))})
	if err != nil {
		return false, err
	}
	switch {
	case status == http.StatusOK:
		return true, nil
	case status == http.StatusBadRequest && strings.HasPrefix(errorType(body), "resource_already_exists") ||
		errorType(body) == "index_already_exists_exception":
		return false, nil
	}
	return false, s.fail("create index "+name, status, body)
}

// ensureSeries makes sure that the template and the write index of prefix
// exist, creating <prefix>_0 for a new series. A series whose indices
// exist without an alias (the alias was removed by hand) gets a new write
// index, as Graylog's deflector would.
func (s *Store) ensureSeries(ctx context.Context, prefix string) error {
	s.mu.Lock()
	known := s.series[prefix]
	s.mu.Unlock()
	if known {
		return nil
	}
	// One check at a time: two Writes of a new series must not create
	// two write indices. This only runs until the series is known.
	s.ensureMu.Lock()
	defer s.ensureMu.Unlock()
	s.mu.Lock()
	known = s.series[prefix]
	s.mu.Unlock()
	if known {
		return nil
	}
	if err := s.putTemplate(ctx, prefix); err != nil {
		return err
	}
	// Another node may create the same index at the same time: both try
	// the same name, and the loser finds the alias on the next round.
	for range 3 {
		w, err := s.writeIndex(ctx, prefix)
		if err != nil {
			return err
		}
		if w != "" {
			s.mu.Lock()
			s.series[prefix] = true
			s.mu.Unlock()
			return nil
		}
		next, err := s.nextNumber(ctx, prefix)
		if err != nil {
			return err
		}
		if _, err := s.createIndex(ctx, prefix, indexName(prefix, next), true); err != nil {
			return err
		}
	}
	return fmt.Errorf("no write index for %s: its indices exist, but %s does not point to one", prefix, deflector(prefix))
}

// forget makes the next Write check the series again.
func (s *Store) forget(prefix string) {
	s.mu.Lock()
	delete(s.series, prefix)
	s.mu.Unlock()
}

// nextNumber returns one more than the highest index number of the
// series, 0 for an empty one.
func (s *Store) nextNumber(ctx context.Context, prefix string) (int, error) {
	status, body, err := s.do(ctx, esapi.CatIndicesRequest{Index: []string{pathName(prefix + "_*")}, Format: "json", H: []string{"index"}})
	if err != nil {
		return 0, err
	}
	if status == http.StatusNotFound {
		return 0, nil
	}
	if status != http.StatusOK {
		return 0, s.fail("list indices of "+prefix, status, body)
	}
	list, err := parseCat(body, []string{prefix})
	if err != nil {
		return 0, err
	}
	next := 0
	for _, idx := range list {
		next = max(next, idx.Number+1)
	}
	return next, nil
}

// Rotate starts a new write index <prefix>_<n+1> and moves the deflector
// to it in one _aliases request, so that writes never find no write index.
// The remove action names the old index: if another node rotated at the
// same time, the request fails instead of leaving two write indices.
func (s *Store) Rotate(ctx context.Context, prefix string) (string, error) {
	if !validName(prefix) {
		return "", fmt.Errorf("rotate: invalid index prefix %q", prefix)
	}
	name, err := s.rotate(ctx, s.phys(prefix))
	return s.logical(name), err
}

func (s *Store) rotate(ctx context.Context, prefix string) (string, error) {
	if err := s.putTemplate(ctx, prefix); err != nil {
		return "", fmt.Errorf("rotate %s: %w", prefix, err)
	}
	cur, err := s.writeIndex(ctx, prefix)
	if err != nil {
		return "", fmt.Errorf("rotate %s: %w", prefix, err)
	}
	next, err := s.nextNumber(ctx, prefix)
	if err != nil {
		return "", fmt.Errorf("rotate %s: %w", prefix, err)
	}
	name := indexName(prefix, next)
	created, err := s.createIndex(ctx, prefix, name, cur == "")
	if err != nil {
		return "", fmt.Errorf("rotate %s: %w", prefix, err)
	}
	if !created {
		return "", fmt.Errorf("rotate %s: index %s was created by someone else meanwhile", prefix, name)
	}
	if cur != "" {
		body, _ := json.Marshal(map[string]any{"actions": []any{
			map[string]any{"remove": map[string]any{"index": cur, "alias": deflector(prefix)}},
			map[string]any{"add": map[string]any{"index": name, "alias": deflector(prefix)}},
		}})
		status, resp, err := s.do(ctx, esapi.IndicesUpdateAliasesRequest{Body: jsonBody(body)})
		if err != nil {
			return "", fmt.Errorf("rotate %s: %w", prefix, err)
		}
		if status != http.StatusOK {
			return "", s.fail("rotate "+prefix+": move "+deflector(prefix), status, resp)
		}
	}
	s.mu.Lock()
	s.series[prefix] = true
	s.mu.Unlock()
	return name, nil
}

// Delete removes an index of a series that is not its write index.
func (s *Store) Delete(ctx context.Context, name string) error {
	index, err := s.notWriting(ctx, "delete", name)
	if err != nil {
		return err
	}
	return s.send(ctx, "delete index "+index, esapi.IndicesDeleteRequest{Index: []string{pathName(index)}})
}

// reopenedSuffix names Graylog's mark of a reopened index: an alias
// <index>_reopened on it, which retention looks for.
const reopenedSuffix = "_reopened"

// managed returns the physical name and the prefix of an index of a
// series. Names that are not <prefix>_<n> are not found: the store never
// changes indices it does not manage, nor patterns.
func (s *Store) managed(op, name string) (string, string, error) {
	index := s.phys(name)
	prefix, _, ok := splitIndex(index)
	if !ok {
		return "", "", fmt.Errorf("%s index %q: %w", op, name, messages.ErrNotFound)
	}
	return index, prefix, nil
}

// notWriting returns the physical name of a managed index that is not its
// series' write index.
func (s *Store) notWriting(ctx context.Context, op, name string) (string, error) {
	index, prefix, err := s.managed(op, name)
	if err != nil {
		return "", err
	}
	w, err := s.writeIndex(ctx, prefix)
	if err != nil {
		return "", fmt.Errorf("%s index %s: %w", op, index, err)
	}
	if w == index {
		return "", fmt.Errorf("%s index %s: %w of %s", op, index, messages.ErrWriteIndex, prefix)
	}
	return index, nil
}

// send sends a request whose answer only says whether it worked: 200, or
// one of the statuses in also.
func (s *Store) send(ctx context.Context, op string, req esapi.Request, also ...int) error {
	status, body, err := s.do(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if status != http.StatusOK && !slices.Contains(also, status) {
		return s.fail(op, status, body)
	}
	return nil
}

// CloseIndex removes the reopened mark and closes the index, as Graylog
// does; Elasticsearch keeps its data and leaves it out of searches.
func (s *Store) CloseIndex(ctx context.Context, name string) error {
	index, err := s.notWriting(ctx, "close", name)
	if err != nil {
		return err
	}
	// 404: the index was not reopened, or does not exist, which the close
	// request reports.
	if err := s.send(ctx, "close index "+index+": remove reopened mark",
		esapi.IndicesDeleteAliasRequest{Index: []string{pathName(index)}, Name: []string{pathName(index + reopenedSuffix)}},
		http.StatusNotFound); err != nil {
		return err
	}
	return s.send(ctx, "close index "+index, esapi.IndicesCloseRequest{Index: []string{pathName(index)}})
}

// ReopenIndex opens the index and marks it reopened. Graylog marks first;
// opening first means that a failure leaves an open index without the mark,
// never a closed index with it.
func (s *Store) ReopenIndex(ctx context.Context, name string) error {
	index, _, err := s.managed("reopen", name)
	if err != nil {
		return err
	}
	if err := s.send(ctx, "reopen index "+index, esapi.IndicesOpenRequest{Index: []string{pathName(index)}}); err != nil {
		return err
	}
	return s.send(ctx, "reopen index "+index+": mark reopened",
		esapi.IndicesPutAliasRequest{Index: []string{pathName(index)}, Name: pathName(index + reopenedSuffix)})
}

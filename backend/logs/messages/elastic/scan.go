package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// scanPage is how many hits one request of a scan asks for.
const scanPage = 1000

// Scan pages with search_after on the sort values of the last hit (the sort
// ends with the id tiebreak, so they are unique): each page costs the same
// however deep, and the result window does not apply.
func (s *Store) Scan(ctx context.Context, q messages.Query) (messages.Cursor, error) {
	if q.Offset < 0 || q.Limit < 0 {
		return nil, fmt.Errorf("search: negative offset %d or limit %d", q.Offset, q.Limit)
	}
	prefixes, indices, err := s.scope(ctx, q.Prefixes)
	if err != nil {
		return nil, err
	}
	c := &scanCursor{s: s, ctx: ctx, q: q, prefixes: prefixes, skip: q.Offset, left: q.Limit, limited: q.Limit > 0}
	c.res.Indices = s.logicalIndices(indices)
	if len(prefixes) == 0 {
		c.last = true
		return c, nil
	}
	if err := c.fetch(); err != nil {
		return nil, err
	}
	return c, nil
}

type scanCursor struct {
	s        *Store
	ctx      context.Context
	q        messages.Query
	prefixes []string
	res      messages.Result
	page     []messages.Hit
	after    json.RawMessage // the sort values of the last hit read
	last     bool            // the page is the last one
	skip     int
	left     int
	limited  bool
	err      error
}

// fetch reads the next page.
func (c *scanCursor) fetch() error {
	// A short scan (a search's page) asks for no more than it returns:
	// of large messages, a full scan page would be a lot to hold.
	size := scanPage
	if c.limited {
		size = min(scanPage, c.skip+c.left)
	}
	q := c.q
	q.Offset, q.Limit = 0, size
	body := searchRequestBody(c.s.srv, q)
	if c.after != nil {
		body["search_after"] = c.after
	}
	buf, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	status, resp, err := c.s.do(c.ctx, searchRequest(c.prefixes, buf))
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if status != http.StatusOK {
		return c.s.fail("search", status, resp)
	}
	res, err := parseSearch(resp)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if c.after == nil {
		c.res.Total = res.Total
	}
	c.page = c.s.logicalHits(res.Hits)
	c.last = len(res.Hits) < size
	if n := len(res.Hits); n > 0 {
		c.after = json.RawMessage(gjson.GetBytes(resp, fmt.Sprintf("hits.hits.%d.sort", n-1)).Raw)
		if len(c.after) == 0 {
			return fmt.Errorf("search: %w: a hit without sort values", errBadResponse)
		}
	}
	return nil
}

func (c *scanCursor) Result() messages.Result { return c.res }

func (c *scanCursor) Err() error { return c.err }

func (c *scanCursor) Close() error {
	c.page, c.last = nil, true
	return nil
}

func (c *scanCursor) Next() (messages.Hit, bool) {
	for {
		if c.err != nil || (c.limited && c.left == 0) {
			return messages.Hit{}, false
		}
		if len(c.page) == 0 {
			if c.last {
				return messages.Hit{}, false
			}
			if c.err = c.fetch(); c.err != nil {
				return messages.Hit{}, false
			}
			continue
		}
		h := c.page[0]
		c.page[0] = messages.Hit{} // let the message go once returned
		c.page = c.page[1:]
		if c.skip > 0 {
			c.skip--
			continue
		}
		if c.limited {
			c.left--
		}
		return h, true
	}
}

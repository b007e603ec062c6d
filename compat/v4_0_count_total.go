package compat

import (
	"context"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/router/api"
)

// CountTotal is 4.0's removal of GET /count/total, the number of stored
// messages, which dashboards and monitoring scripts of 1.x–3.x poll. It is
// answered from the 4.0 universal search (an all-time search for * whose
// total is the count), in the old shape {"events": n}. The path does not
// exist in 4.0, so it is recognised on the default release too.
func CountTotal() *Change {
	return &Change{
		Release:     MustRelease("4.0"),
		Removed:     true,
		Description: "`GET /count/total` is removed; it is still answered (`{\"events\": n}`) from an all-time universal search of the caller's streams.",
		Routes:      []Route{R("GET /count/total")},
		Recognise:   func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(_ context.Context, x *Exchange) error {
			if err := setPath(x.Req, x.prefix+"/search/universal/relative"); err != nil {
				return err
			}
			// limit=1 and one field: only total_results is read back.
			x.Req.URL.RawQuery = "query=%2A&range=0&limit=1&fields=timestamp"
			return nil
		},
		Response: func(_ context.Context, _ *Exchange, body []byte) ([]byte, error) {
			return api.Marshal(map[string]int64{"events": gjson.GetBytes(body, "total_results").Int()})
		},
	}
}

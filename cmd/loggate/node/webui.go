package node

import (
	"time"

	"github.com/loggate/loggate/backend/system/compatreport"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/web/ui"
)

// ownInterface serves loggate's own web interface at / when the operator
// has not pointed web_interface_dir at Graylog's: theirs wins.
func (n *Node) ownInterface() error {
	h, err := ui.New()
	if err != nil {
		return err
	}
	n.web = h
	return nil
}

// interfaceRoutes are the API routes only loggate's interface needed: the
// compatibility report from the access log.
func interfaceRoutes(accessLog string, now func() time.Time) []api.Route {
	return compatreport.NewHandler(accessLog, now).Routes()
}

package node

import "github.com/loggate/loggate/web/ui"

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

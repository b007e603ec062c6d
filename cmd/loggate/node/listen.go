package node

import (
	"errors"
	"fmt"
	"net"

	"github.com/loggate/loggate/cmd/loggate/config"
)

// Listeners are a node's sockets: http_bind_address and every
// compat_listeners address, in configuration order. loggate binds them
// before it opens anything, so that a start refused for a taken port leaves
// nothing behind (no data_dir, no generated secrets).
type Listeners struct {
	api    net.Listener
	compat []net.Listener
}

// Listen binds the addresses cfg names. On error nothing stays bound.
func Listen(cfg config.Config) (*Listeners, error) {
	ln, err := net.Listen("tcp", cfg.HTTPBindAddress)
	if err != nil {
		return nil, fmt.Errorf("http_bind_address: %w", err)
	}
	l := &Listeners{api: ln}
	for _, c := range cfg.CompatListeners {
		pl, err := net.Listen("tcp", c.Address)
		if err != nil {
			_ = l.Close()
			return nil, fmt.Errorf("compat_listeners: %s: %w", c.Address, err)
		}
		l.compat = append(l.compat, pl)
	}
	return l, nil
}

// Addr is the bound address of http_bind_address.
func (l *Listeners) Addr() net.Addr { return l.api.Addr() }

// Close releases every socket; Serve closes them itself on shutdown.
func (l *Listeners) Close() error {
	errs := []error{l.api.Close()}
	for _, c := range l.compat {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

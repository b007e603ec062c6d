package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// authConfigID is where Graylog 3.3 kept its AuthenticationConfig in the
// cluster configuration; the 3.x realm configuration is stored there.
const authConfigID = "org.graylog2.security.realm.AuthenticationConfig"

// authenticationConfig answers the 3.x realm configuration for the compat
// chain: the realm order is stored as given, whether "legacy-ldap" is on is
// whether a directory backend is active. The other realms are always on.
type authenticationConfig struct {
	st       store.Store
	backends *authservices.Service

	// mu serialises the saves, which write the document and then change
	// the active backend.
	mu sync.Mutex
}

func (n *Node) authenticationConfig() compat.AuthenticationConfig {
	return &authenticationConfig{st: n.Store, backends: n.AuthServices}
}

// RealmConfig returns the stored order, completed with the realms it lacks
// in 3.3's order (as 3.3 added newly available realms), and the realms
// that are off now.
func (a *authenticationConfig) RealmConfig(ctx context.Context) (compat.RealmConfig, error) {
	var stored compat.RealmConfig
	doc, err := a.st.Get(ctx, authservices.ConfigCollection, authConfigID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return compat.RealmConfig{}, fmt.Errorf("authentication config: %w", err)
	default:
		if err := json.Unmarshal(doc, &stored); err != nil {
			return compat.RealmConfig{}, fmt.Errorf("authentication config: %w", err)
		}
	}
	out := compat.RealmConfig{RealmOrder: stored.RealmOrder, DisabledRealms: []string{}}
	for _, r := range compat.DefaultRealmOrder() {
		if !slices.Contains(out.RealmOrder, r) {
			out.RealmOrder = append(out.RealmOrder, r)
		}
	}
	active, err := a.backends.ActiveID(ctx)
	if err != nil {
		return compat.RealmConfig{}, err
	}
	if active == "" {
		out.DisabledRealms = append(out.DisabledRealms, compat.RealmLegacyLDAP)
	}
	return out, nil
}

// SaveRealmConfig stores c and, when it disables "legacy-ldap", deactivates
// the active backend, as POST /system/authentication/services/configuration
// {"active_backend":null}. Enabling it activates nothing: the 3.3 page
// sends every realm enabled unless unticked, so its PUT is no deliberate
// choice of a backend to activate (a 3.x backend is created inactive for
// review).
func (a *authenticationConfig) SaveRealmConfig(ctx context.Context, c compat.RealmConfig) (compat.RealmConfig, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	doc, err := api.Marshal(c)
	if err != nil {
		return compat.RealmConfig{}, fmt.Errorf("authentication config: %w", err)
	}
	if err := a.st.Put(ctx, authservices.ConfigCollection, authConfigID, doc); err != nil {
		return compat.RealmConfig{}, fmt.Errorf("authentication config: %w", err)
	}
	if slices.Contains(c.DisabledRealms, compat.RealmLegacyLDAP) {
		active, err := a.backends.ActiveID(ctx)
		if err != nil {
			return compat.RealmConfig{}, err
		}
		if active != "" {
			if err := a.backends.SetActive(ctx, ""); err != nil {
				return compat.RealmConfig{}, err
			}
			api.Logger(ctx).Warn("legacy-ldap disabled through the 3.x authentication configuration: directory backend deactivated", "backend", active)
		}
	}
	return a.RealmConfig(ctx)
}

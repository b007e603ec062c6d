package clusterconfig

import (
	"context"
	"slices"
)

// gettingStarted is Graylog's GettingStartedState: the releases (major.minor)
// in which the getting-started guide was dismissed, for the whole cluster.
type gettingStarted struct {
	Dismissed []string `json:"dismissed_in_versions"`
}

// GettingStarted is the answer of GET /system/gettingstarted.
type GettingStarted struct {
	Show      bool     `json:"show"`
	Dismissed []string `json:"dismissed_in_versions"`
}

// GettingStarted reports whether the guide is to be shown in release (its
// major.minor).
func (s *Service) GettingStarted(ctx context.Context, release string) (GettingStarted, error) {
	var st gettingStarted
	if err := s.load(ctx, GettingStartedClass, &st); err != nil {
		return GettingStarted{}, err
	}
	if st.Dismissed == nil {
		st.Dismissed = []string{}
	}
	return GettingStarted{Show: !slices.Contains(st.Dismissed, release), Dismissed: st.Dismissed}, nil
}

// DismissGettingStarted hides the guide in release for every user.
func (s *Service) DismissGettingStarted(ctx context.Context, release string) error {
	var st gettingStarted
	if err := s.load(ctx, GettingStartedClass, &st); err != nil {
		return err
	}
	if st.Dismissed == nil {
		st.Dismissed = []string{}
	}
	if !slices.Contains(st.Dismissed, release) {
		st.Dismissed = append(st.Dismissed, release)
	}
	return s.save(ctx, GettingStartedClass, st)
}

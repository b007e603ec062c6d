package loggers

// subsystem is one of Graylog's four logging subsystems, mapped onto
// loggate's loggers.
type subsystem struct {
	name        string
	title       string
	categories  []string
	description string
}

// subsystems keeps Graylog's keys and texts; only the categories are
// loggate's.
var subsystems = []subsystem{
	{"graylog", "Graylog", []string{RootName}, "All messages from Graylog-owned systems."},
	{"indexer", "Indexer", []string{RootName + ".indexer"}, "All messages related to indexing and searching."},
	{"authentication", "Authentication", []string{RootName + ".auth"}, "All user authentication messages."},
	{"sockets", "Sockets", []string{RootName + ".inputs"}, "All messages related to socket communication."},
}

func findSubsystem(name string) (subsystem, bool) {
	for _, s := range subsystems {
		if s.name == name {
			return s, true
		}
	}
	return subsystem{}, false
}

// level is the effective level of the subsystem's first category, as Graylog
// reports it.
func (s subsystem) level(l *Levels) Level { return l.Effective(s.categories[0]) }

// setLevel sets every category of the subsystem.
func (s subsystem) setLevel(l *Levels, level Level) error {
	for _, c := range s.categories {
		if err := l.SetLevel(c, level); err != nil {
			return err
		}
	}
	return nil
}

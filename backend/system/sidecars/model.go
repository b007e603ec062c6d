package sidecars

import (
	"github.com/loggate/loggate/router/api"
)

// Status is a sidecar's or a collector's state, as the Sidecar reports it:
// Graylog's Sidecar.Status codes.
const (
	StatusRunning = 0
	StatusUnknown = 1
	StatusFailing = 2
	StatusStopped = 3
)

// statusNames map the names a listing query may use (status:running) to
// their codes, as Graylog's SidecarStatusMapper does.
var statusNames = map[string]int{"running": StatusRunning, "unknown": StatusUnknown, "failing": StatusFailing, "stopped": StatusStopped}

// statusOf is Sidecar.Status.fromStatusCode: codes other than 0, 2 and 3
// are unknown.
func statusOf(code int) int {
	switch code {
	case StatusRunning, StatusFailing, StatusStopped:
		return code
	}
	return StatusUnknown
}

// Sidecar is a registered Sidecar, Graylog's Sidecar model; it is also the
// stored document, keyed by node id.
type Sidecar struct {
	ID             string       `json:"id"`
	NodeID         string       `json:"node_id"`
	NodeName       string       `json:"node_name"`
	NodeDetails    NodeDetails  `json:"node_details"`
	Assignments    []Assignment `json:"assignments"`
	SidecarVersion string       `json:"sidecar_version"`
	LastSeen       api.Time     `json:"last_seen"`
}

// NodeDetails is what a Sidecar reports about its host.
type NodeDetails struct {
	OperatingSystem string       `json:"operating_system"`
	IP              *string      `json:"ip"`
	Metrics         *NodeMetrics `json:"metrics"`
	LogFileList     []LogFile    `json:"log_file_list"`
	Status          *StatusList  `json:"status"`
}

// NodeMetrics are the host's figures.
type NodeMetrics struct {
	Disks75 []string `json:"disks_75"`
	CPUIdle *float32 `json:"cpu_idle"`
	Load1   *float32 `json:"load_1"`
}

// LogFile is one file of the host's log file list.
type LogFile struct {
	Path    string   `json:"path"`
	ModTime api.Time `json:"mod_time"`
	Size    int64    `json:"size"`
	IsDir   bool     `json:"is_dir"`
}

// StatusList is the Sidecar's own status and its collectors'.
type StatusList struct {
	Status     int               `json:"status"`
	Message    string            `json:"message"`
	Collectors []CollectorStatus `json:"collectors"`
}

// CollectorStatus is one collector's status on a Sidecar.
type CollectorStatus struct {
	CollectorID    string `json:"collector_id"`
	Status         int    `json:"status"`
	Message        string `json:"message"`
	VerboseMessage string `json:"verbose_message"`
}

// Assignment assigns a configuration of a collector to a Sidecar.
type Assignment struct {
	CollectorID     string `json:"collector_id"`
	ConfigurationID string `json:"configuration_id"`
}

// Summary is Graylog's SidecarSummary, a Sidecar as listings show it.
type Summary struct {
	NodeID         string       `json:"node_id"`
	NodeName       string       `json:"node_name"`
	NodeDetails    NodeDetails  `json:"node_details"`
	Assignments    []Assignment `json:"assignments"`
	LastSeen       api.Time     `json:"last_seen"`
	SidecarVersion string       `json:"sidecar_version"`
	// Collectors are the ids of the collectors that may run on the
	// Sidecar's operating system; only the administration listing sets
	// them, null elsewhere.
	Collectors []string `json:"collectors"`
	Active     bool     `json:"active"`
}

func (s Sidecar) summary(active bool) Summary {
	as := s.Assignments
	if as == nil {
		as = []Assignment{}
	}
	return Summary{NodeID: s.NodeID, NodeName: s.NodeName, NodeDetails: s.NodeDetails, Assignments: as,
		LastSeen: s.LastSeen, SidecarVersion: s.SidecarVersion, Active: active}
}

// Collector is a log collector the Sidecars can run (filebeat, nxlog, …),
// Graylog's Collector model and the stored document.
type Collector struct {
	ID                   string  `json:"id"`
	Name                 string  `json:"name"`
	ServiceType          string  `json:"service_type"`
	NodeOperatingSystem  string  `json:"node_operating_system"`
	ExecutablePath       string  `json:"executable_path"`
	ExecuteParameters    *string `json:"execute_parameters"`
	ValidationParameters *string `json:"validation_parameters"`
	DefaultTemplate      *string `json:"default_template"`
}

// CollectorSummary is a collector as its summary listing shows it.
type CollectorSummary struct {
	ID                  string `json:"id"`
	Name                string `json:"name"`
	ServiceType         string `json:"service_type"`
	NodeOperatingSystem string `json:"node_operating_system"`
}

// Configuration is a collector configuration: a template the Sidecars
// render and hand to the collector. It is Graylog's Configuration model and
// the stored document.
type Configuration struct {
	ID          string `json:"id"`
	CollectorID string `json:"collector_id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Template    string `json:"template"`
}

// ConfigurationSummary is a configuration as its listing shows it.
type ConfigurationSummary struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	CollectorID string `json:"collector_id"`
	Color       string `json:"color"`
}

// Variable is a configuration variable, ${user.<name>} in templates.
type Variable struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Content     string  `json:"content"`
}

// fullName is how templates name the variable.
func (v Variable) fullName() string { return "${user." + v.Name + "}" }

// Action is an action for a collector on a Sidecar ({"restart": true}).
type Action struct {
	CollectorID string         `json:"collector_id"`
	Properties  map[string]any `json:"properties"`
}

// Actions are the actions pending for one Sidecar, Graylog's
// CollectorActions and the stored document, keyed by Sidecar id.
type Actions struct {
	ID        string   `json:"id"`
	SidecarID string   `json:"sidecar_id"`
	Created   api.Time `json:"created"`
	Action    []Action `json:"action"`
}

// ValidationResult is Graylog's ValidationResult: the sidecar resources
// answer failed validations with it, as a 400 or, from the validate
// endpoints, a 200.
type ValidationResult struct {
	Failed       bool                `json:"failed"`
	Errors       map[string][]string `json:"errors"`
	ErrorContext map[string][]string `json:"error_context"`
}

func newValidation() *ValidationResult {
	return &ValidationResult{Errors: map[string][]string{}, ErrorContext: map[string][]string{}}
}

func (v *ValidationResult) add(field, msg string) {
	v.Errors[field] = append(v.Errors[field], msg)
	v.Failed = true
}

// err returns the result as a 400 carrying it as the body, nil when
// nothing failed.
func (v *ValidationResult) err() error {
	if !v.Failed {
		return nil
	}
	return &api.Error{Code: api.Invalid, Message: "Validation failed", Body: v}
}

// Pagination is Graylog's PaginatedList.PaginationInfo.
type Pagination struct {
	Total   int `json:"total"`
	Count   int `json:"count"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

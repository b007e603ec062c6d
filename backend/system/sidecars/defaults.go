package sidecars

import (
	"context"
)

// The default collectors and their default templates, exactly as Graylog
// 4.0's V20180212165000_AddDefaultCollectors migration adds them.

const beatsPreambel = "# Needed for Graylog\n" +
	"fields_under_root: true\n" +
	"fields.collector_node_id: ${sidecar.nodeName}\n" +
	"fields.gl2_source_collector: ${sidecar.nodeId}\n\n"

// logstashOutput is the Logstash output and paths of the default Beats
// templates.
func logstashOutput(data, logs string) string {
	return "output.logstash:\n" +
		"   hosts: [\"192.168.1.1:5044\"]\n" +
		"path:\n" +
		"  data: " + data + "\n" +
		"  logs: " + logs
}

// defaultCollector is one collector the migration adds: name, service
// type, operating system, executable, execute parameters, validation
// parameters and default template.
type defaultCollector [7]string

// nxlogFileInput is the file input of the default NXLog templates.
func nxlogFileInput(path string) string {
	return "<Input file>\n" +
		"\tModule im_file\n" +
		"\tFile '" + path + "'\n" +
		"\tPollInterval 1\n" +
		"\tSavePos\tTrue\n" +
		"\tReadFromLast True\n" +
		"\tRecursive False\n" +
		"\tRenameCheck False\n" +
		"\tExec $FileName = file_name(); # Send file name with each message\n" +
		"</Input>\n"
}

// nxlogGELFExtension is the GELF extension both default NXLog templates
// load.
const nxlogGELFExtension = "<Extension gelfExt>\n" +
	"  Module xm_gelf\n" +
	"  # Avoid truncation of the short_message field to 64 characters.\n" +
	"  ShortMessageLength 65536\n" +
	"</Extension>\n"

// nxlogGELFOutput is the GELF output both default NXLog templates hold.
const nxlogGELFOutput = "<Output gelf>\n" +
	"\tModule om_tcp\n" +
	"\tHost 192.168.1.1\n" +
	"\tPort 12201\n" +
	"\tOutputType  GELF_TCP\n" +
	"\t<Exec>\n" +
	"\t  # These fields are needed for Graylog\n" +
	"\t  $gl2_source_collector = '${sidecar.nodeId}';\n" +
	"\t  $collector_node_id = '${sidecar.nodeName}';\n" +
	"\t</Exec>\n" +
	"</Output>\n"

var defaultCollectors = []defaultCollector{
	{
		"filebeat",
		"exec",
		"linux",
		"/usr/share/filebeat/bin/filebeat",
		"-c  %s",
		"test config -c %s",
		beatsPreambel +
			"filebeat.inputs:\n" +
			"- input_type: log\n" +
			"  paths:\n" +
			"    - /var/log/*.log\n" +
			"  type: log\n" +
			logstashOutput("/var/lib/graylog-sidecar/collectors/filebeat/data", "/var/lib/graylog-sidecar/collectors/filebeat/log"),
	},
	{
		"winlogbeat",
		"svc",
		"windows",
		"C:\\Program Files\\Graylog\\sidecar\\winlogbeat.exe",
		"-c \"%s\"",
		"test config -c \"%s\"",
		beatsPreambel +
			logstashOutput("C:\\Program Files\\Graylog\\sidecar\\cache\\winlogbeat\\data", "C:\\Program Files\\Graylog\\sidecar\\logs") + "\n" +
			"tags:\n" +
			" - windows\n" +
			"winlogbeat:\n" +
			"  event_logs:\n" +
			"   - name: Application\n" +
			"   - name: System\n" +
			"   - name: Security",
	},
	{
		"nxlog",
		"exec",
		"linux",
		"/usr/bin/nxlog",
		"-f -c %s",
		"-v -c %s",
		"define ROOT /usr/bin\n" +
			"\n" +
			nxlogGELFExtension +
			"\n" +
			"<Extension syslogExt>\n" +
			"  Module xm_syslog\n" +
			"</Extension>\n" +
			"\n" +
			"User nxlog\n" +
			"Group nxlog\n" +
			"\n" +
			"Moduledir /usr/lib/nxlog/modules\n" +
			"CacheDir /var/spool/nxlog/data\n" +
			"PidFile /var/run/nxlog/nxlog.pid\n" +
			"LogFile /var/log/nxlog/nxlog.log\n" +
			"LogLevel INFO\n" +
			"\n" +
			"\n" +
			nxlogFileInput("/var/log/*.log") +
			"\n" +
			"#<Input syslog-udp>\n" +
			"#\tModule im_udp\n" +
			"#\tHost 127.0.0.1\n" +
			"#\tPort 514\n" +
			"#\tExec parse_syslog_bsd();\n" +
			"#</Input>\n" +
			"\n" +
			nxlogGELFOutput +
			"\n" +
			"\n" +
			"<Route route-1>\n" +
			"  Path file => gelf\n" +
			"</Route>\n" +
			"#<Route route-2>\n" +
			"#  Path syslog-udp => gelf\n" +
			"#</Route>\n" +
			"\n" +
			"\n",
	},
	{
		"nxlog",
		"svc",
		"windows",
		"C:\\Program Files (x86)\\nxlog\\nxlog.exe",
		"-c \"%s\"",
		"-v -f -c \"%s\"",
		"define ROOT C:\\Program Files (x86)\\nxlog\n" +
			"\n" +
			"Moduledir %ROOT%\\modules\n" +
			"CacheDir %ROOT%\\data\n" +
			"Pidfile %ROOT%\\data\\nxlog.pid\n" +
			"SpoolDir %ROOT%\\data\n" +
			"LogFile %ROOT%\\data\\nxlog.log\n" +
			"LogLevel INFO\n" +
			"\n" +
			"<Extension logrotate>\n" +
			"    Module  xm_fileop\n" +
			"    <Schedule>\n" +
			"        When    @daily\n" +
			"        Exec    file_cycle('%ROOT%\\data\\nxlog.log', 7);\n" +
			"     </Schedule>\n" +
			"</Extension>\n" +
			"\n" +
			"\n" +
			nxlogGELFExtension +
			"\n" +
			"<Input eventlog>\n" +
			"        Module im_msvistalog\n" +
			"        PollInterval 1\n" +
			"        SavePos True\n" +
			"        ReadFromLast True\n" +
			"        \n" +
			"        #Channel System\n" +
			"        #<QueryXML>\n" +
			"        #  <QueryList>\n" +
			"        #   <Query Id='1'>\n" +
			"        #    <Select Path='Security'>*[System/Level=4]</Select>\n" +
			"        #    </Query>\n" +
			"        #  </QueryList>\n" +
			"        #</QueryXML>\n" +
			"</Input>\n" +
			"\n" +
			"\n" +
			nxlogFileInput("C:\\Windows\\MyLogDir\\\\*.log") +
			"\n" +
			"\n" +
			nxlogGELFOutput +
			"\n" +
			"\n" +
			"<Route route-1>\n" +
			"  Path eventlog => gelf\n" +
			"</Route>\n" +
			"<Route route-2>\n" +
			"  Path file => gelf\n" +
			"</Route>\n" +
			"\n",
	},
	{
		"filebeat",
		"svc",
		"windows",
		"C:\\Program Files\\Graylog\\sidecar\\filebeat.exe",
		"-c \"%s\"",
		"test config -c \"%s\"",
		beatsPreambel +
			logstashOutput("C:\\Program Files\\Graylog\\sidecar\\cache\\filebeat\\data", "C:\\Program Files\\Graylog\\sidecar\\logs") + "\n" +
			"tags:\n" +
			" - windows\n" +
			"filebeat.inputs:\n" +
			"- type: log\n" +
			"  enabled: true\n" +
			"  paths:\n" +
			"    - C:\\logs\\log.log\n",
	},
}

// DefaultCollectors returns the default collectors, without ids.
func DefaultCollectors() []Collector {
	out := make([]Collector, len(defaultCollectors))
	for i, d := range defaultCollectors {
		out[i] = Collector{Name: d[0], ServiceType: d[1], NodeOperatingSystem: d[2], ExecutablePath: d[3],
			ExecuteParameters: ptr(d[4]), ValidationParameters: ptr(d[5]), DefaultTemplate: ptr(d[6])}
	}
	return out
}

func ptr(s string) *string { return &s }

// addDefaultCollectors adds each default collector whose name and
// operating system no stored collector has, as the migration does on every
// start: a default that was deleted comes back.
func (s *Service) addDefaultCollectors(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	have, err := s.Collectors(ctx)
	if err != nil {
		return err
	}
	for _, d := range DefaultCollectors() {
		found := false
		for _, c := range have {
			found = found || c.Name == d.Name && c.NodeOperatingSystem == d.NodeOperatingSystem
		}
		if found {
			continue
		}
		d.ID = newID()
		if err := s.put(ctx, CollectorsCollection, d.ID, d); err != nil {
			return err
		}
		have = append(have, d)
	}
	return nil
}

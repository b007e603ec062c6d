package clusterstats

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Host describes the machine and the process serving the document store; for
// the embedded store that is loggate itself.
type Host struct {
	Hostname  string
	StartedAt time.Time
	Now       func() time.Time
	// Servers are the document store's addresses (host:port); none for the
	// embedded store.
	Servers []string
}

// MongoStats is Graylog's MongoStats, describing the document store.
type MongoStats struct {
	Servers       []string      `json:"servers"`
	BuildInfo     BuildInfo     `json:"build_info"`
	HostInfo      HostInfo      `json:"host_info"`
	ServerStatus  ServerStatus  `json:"server_status"`
	DatabaseStats DatabaseStats `json:"database_stats"`
}

// BuildInfo is Graylog's BuildInfo.
type BuildInfo struct {
	Version           string `json:"version"`
	GitVersion        string `json:"git_version"`
	SysInfo           string `json:"sys_info"`
	LoaderFlags       string `json:"loader_flags"`
	CompilerFlags     string `json:"compiler_flags"`
	Allocator         string `json:"allocator"`
	VersionArray      []int  `json:"version_array"`
	JavascriptEngine  string `json:"javascript_engine"`
	Bits              int    `json:"bits"`
	Debug             bool   `json:"debug"`
	MaxBSONObjectSize int64  `json:"max_bson_object_size"`
}

// HostInfo is Graylog's HostInfo.
type HostInfo struct {
	System struct {
		CurrentTime api.Time `json:"current_time"`
		Hostname    string   `json:"hostname"`
		CPUAddrSize int      `json:"cpu_addr_size"`
		MemSizeMB   int64    `json:"mem_size_mb"`
		NumCores    int      `json:"num_cores"`
		CPUArch     string   `json:"cpu_arch"`
		NumaEnabled bool     `json:"numa_enabled"`
	} `json:"system"`
	OS struct {
		Type    string `json:"type"`
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"os"`
	Extra struct {
		VersionString   string `json:"version_string"`
		LibcVersion     string `json:"libc_version"`
		KernelVersion   string `json:"kernel_version"`
		CPUFrequencyMHz string `json:"cpu_frequency_mhz"`
		CPUFeatures     string `json:"cpu_features"`
		Scheduler       string `json:"scheduler"`
		PageSize        int64  `json:"page_size"`
		NumPages        int64  `json:"num_pages"`
		MaxOpenFiles    int64  `json:"max_open_files"`
	} `json:"extra"`
}

// ServerStatus is Graylog's ServerStatus.
type ServerStatus struct {
	Host           string   `json:"host"`
	Version        string   `json:"version"`
	Process        string   `json:"process"`
	PID            int      `json:"pid"`
	Uptime         int64    `json:"uptime"`
	UptimeMillis   int64    `json:"uptime_millis"`
	UptimeEstimate int64    `json:"uptime_estimate"`
	LocalTime      api.Time `json:"local_time"`
	Connections    struct {
		Current      int `json:"current"`
		Available    int `json:"available"`
		TotalCreated int `json:"total_created"`
	} `json:"connections"`
	Network struct {
		BytesIn     int64 `json:"bytes_in"`
		BytesOut    int64 `json:"bytes_out"`
		NumRequests int64 `json:"num_requests"`
	} `json:"network"`
	Memory struct {
		Bits              int   `json:"bits"`
		Resident          int64 `json:"resident"`
		Virtual           int64 `json:"virtual"`
		Supported         bool  `json:"supported"`
		Mapped            int64 `json:"mapped"`
		MappedWithJournal int64 `json:"mapped_with_journal"`
	} `json:"memory"`
	StorageEngine struct {
		Name string `json:"name"`
	} `json:"storage_engine"`
}

// DatabaseStats is Graylog's DatabaseStats (MongoDB's dbStats). The MMAPv1
// figures (extents, namespace size, data file version) do not exist for
// other engines; MongoDB itself reports them as zero there.
type DatabaseStats struct {
	DB             string  `json:"db"`
	Collections    int     `json:"collections"`
	Objects        int64   `json:"objects"`
	AvgObjSize     float64 `json:"avg_obj_size"`
	DataSize       int64   `json:"data_size"`
	StorageSize    int64   `json:"storage_size"`
	NumExtents     int64   `json:"num_extents"`
	Indexes        int     `json:"indexes"`
	IndexSize      int64   `json:"index_size"`
	FileSize       int64   `json:"file_size"`
	NsSizeMB       int64   `json:"ns_size_mb"`
	ExtentFreeList struct {
		Num       int   `json:"num"`
		TotalSize int64 `json:"total_size"`
	} `json:"extent_free_list"`
	DataFileVersion struct {
		Major int `json:"major"`
		Minor int `json:"minor"`
	} `json:"data_file_version"`
}

// Mongo describes the document store.
func (h *Handler) Mongo(ctx context.Context) (MongoStats, error) {
	db, err := h.src.Store.Stats(ctx)
	if err != nil {
		return MongoStats{}, err
	}
	host := h.src.Host
	now := host.Now()
	engine := h.src.StoreEngine
	version := moduleVersion(engine)

	var st MongoStats
	st.Servers = host.Servers
	if st.Servers == nil {
		st.Servers = []string{}
	}
	st.BuildInfo = BuildInfo{
		Version: version, GitVersion: version, SysInfo: runtime.GOOS + " " + runtime.GOARCH,
		Allocator: "go", VersionArray: versionArray(version), JavascriptEngine: "none",
		Bits: strconv.IntSize, MaxBSONObjectSize: 16 << 20,
	}
	si := &st.HostInfo.System
	si.CurrentTime = api.Time{Time: now}
	si.Hostname, si.CPUAddrSize, si.NumCores, si.CPUArch = host.Hostname, strconv.IntSize, runtime.NumCPU(), runtime.GOARCH
	si.MemSizeMB = memTotalKB() / 1024
	st.HostInfo.OS.Type, st.HostInfo.OS.Name = runtime.GOOS, osName()
	st.HostInfo.Extra.KernelVersion = readTrim("/proc/sys/kernel/osrelease")
	st.HostInfo.Extra.VersionString = runtime.Version()
	st.HostInfo.Extra.PageSize = int64(os.Getpagesize())

	ss := &st.ServerStatus
	up := now.Sub(host.StartedAt)
	ss.Host, ss.Version, ss.Process, ss.PID = host.Hostname, version, "loggate", os.Getpid()
	ss.Uptime, ss.UptimeMillis, ss.UptimeEstimate = int64(up.Seconds()), up.Milliseconds(), int64(up.Seconds())
	ss.LocalTime = api.Time{Time: now}
	ss.Memory.Bits = strconv.IntSize
	ss.Memory.Resident, ss.Memory.Virtual = processMemoryMB()
	ss.Memory.Supported = ss.Memory.Resident > 0
	ss.StorageEngine.Name = engine

	st.DatabaseStats = DatabaseStats{
		DB: "loggate", Collections: db.Collections, Objects: db.Objects, DataSize: db.DataSize,
		StorageSize: db.StorageSize, Indexes: db.Indexes, IndexSize: db.IndexSize, FileSize: db.StorageSize,
	}
	if db.Objects > 0 {
		st.DatabaseStats.AvgObjSize = float64(db.DataSize) / float64(db.Objects)
	}
	return st, nil
}

// moduleVersion returns the version of the store's Go module as built into
// the binary, or "unknown".
func moduleVersion(engine string) string {
	path := map[string]string{"bbolt": "go.etcd.io/bbolt", "mongodb": "go.mongodb.org/mongo-driver"}[engine]
	if bi, ok := debug.ReadBuildInfo(); ok && path != "" {
		for _, m := range bi.Deps {
			if m.Path == path {
				return strings.TrimPrefix(m.Version, "v")
			}
		}
	}
	return "unknown"
}

func versionArray(v string) []int {
	out := []int{}
	for _, p := range strings.SplitN(v, ".", 4) {
		n, err := strconv.Atoi(strings.SplitN(p, "-", 2)[0])
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// osName returns the distribution's name, as MongoDB's hostInfo does.
func osName() string {
	for _, line := range strings.Split(readTrim("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

func memTotalKB() int64 {
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// processMemoryMB returns the process's resident and virtual size in MiB, as
// MongoDB's serverStatus reports its own; zero where /proc is absent.
func processMemoryMB() (resident, virtual int64) {
	f := strings.Fields(readTrim("/proc/self/statm"))
	if len(f) < 2 {
		return 0, 0
	}
	pages := func(s string) int64 {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n * int64(os.Getpagesize()) >> 20
	}
	return pages(f[1]), pages(f[0])
}

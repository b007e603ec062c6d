package node_test

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/servicetest"
)

// startNginx runs Debian's nginx as a plain reverse proxy to upstream (an
// http://host:port/api URL), with keep-alive connections to it as a tuned
// installation has, and returns the proxied /api URL. It is the yardstick of
// BenchmarkGateway's added latency; the benchmark skips without nginx.
func startNginx(b *testing.B, upstream string) string {
	b.Helper()
	bin := servicetest.Find(b, "nginx", "apt-get install nginx", func() (string, error) {
		if p, err := exec.LookPath("nginx"); err == nil {
			return p, nil
		}
		return exec.LookPath("/usr/sbin/nginx")
	})
	up, err := url.Parse(upstream)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var port int
	var proc *servicetest.Process
	err = servicetest.Retry(func() error {
		if port, err = servicetest.FreePort(); err != nil {
			return err
		}
		conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	upstream loggate { server %[2]s; keepalive 16; }
	server {
		listen 127.0.0.1:%[3]d;
		location / {
			proxy_pass http://loggate;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $host;
		}
	}
}
`, dir, up.Host, port)
		path := filepath.Join(dir, "nginx.conf")
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			return err
		}
		if proc, err = servicetest.Start(exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", path), filepath.Join(dir, "nginx.out")); err != nil {
			return err
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			select {
			case <-proc.Exited():
				log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
				return fmt.Errorf("nginx exited: %s", log)
			default:
			}
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				c.Close()
				return nil
			}
			time.Sleep(10 * time.Millisecond) // polling an observable condition
		}
		proc.Stop()
		return fmt.Errorf("nginx did not listen on %d", port)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(proc.Stop)
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, up.Path)
}

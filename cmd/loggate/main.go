// Command loggate is a Graylog-compatible log management server.
//
//	loggate serve [--config FILE] [--<key> value …]     start the server
//	loggate version                                      print the version
//	loggate compat report --log FILE                      who still needs an older API release
//	loggate migrate ldap --from FILE [--apply] …          convert Graylog 3.x LDAP settings
//	loggate migrate store --to-mongodb URI [--apply] …    move a node's embedded data to MongoDB/Elasticsearch
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/migrate"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/cmd/loggate/report"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loggate:", err)
		if errors.Is(err, errNoCommand) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// errNoCommand is a bare `loggate`: it prints the usage rather than start a
// server that creates ./data wherever it happens to be run.
var errNoCommand = errors.New("no command given; to start the server: loggate serve [--config FILE]")

func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errNoCommand
	}
	// Flags without a command still mean serve, as they always have.
	cmd := "serve"
	if len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, environ, stdout, stderr)
	case "compat":
		if len(args) == 0 || args[0] != "report" {
			return errors.New("usage: loggate compat report --log FILE [--since DURATION]")
		}
		return report.Run(args[1:], stdout, stderr)
	case "migrate":
		return migrate.Main(ctx, args, environ, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "loggate %s (Graylog %s API)\n", overview.Build, overview.APIVersion)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return nil
	}
	return fmt.Errorf("unknown command %q; run 'loggate help'", cmd)
}

func usage() string {
	return "usage: loggate serve [--config FILE] [--<key> value …]   start the server\n" +
		"       loggate version | help\n" +
		"       loggate compat report --log FILE [--since DURATION]   clients that still need an older API release\n" +
		"       loggate migrate ldap [--from FILE | --from-mongodb URI] [--apply] [--link-users]   Graylog 3.x LDAP settings to a 4.0 backend (loggate migrate help)\n" +
		"       loggate migrate store --data_dir DIR --to-mongodb URI [--to-elasticsearch URL] [--apply]   a node's embedded data to MongoDB and Elasticsearch\n" +
		"\nconfiguration keys:\n" + config.Usage()
}

func serve(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	cfg, warnings, err := config.Load(args, environ)
	if errors.Is(err, config.ErrHelp) {
		fmt.Fprint(stdout, usage())
		return nil
	}
	if err != nil {
		return err
	}
	sink := loggers.NewTextSink(stderr)
	build := node.New
	if cfg.UpstreamURI != "" {
		build = node.NewGateway
	}
	// Bound first: a taken port stops the start before data_dir exists.
	ls, err := node.Listen(cfg)
	if err != nil {
		return err
	}
	n, err := build(ctx, cfg, node.Options{LogSink: sink, Listeners: ls})
	if err != nil {
		_ = ls.Close()
		return err
	}
	defer n.Close()
	log := n.Levels.Logger("loggate")
	for _, w := range warnings {
		log.Warn(w)
	}
	// The node's configuration, with the defaults and generated values it
	// filled in, is what is in effect.
	log.Info("configuration", "settings", n.Config.Redacted())
	err = n.Serve(ctx, func(addr net.Addr) {
		// One write, so that a reader of the first line has the second.
		banner := fmt.Sprintf("loggate %s serving the Graylog %s API at http://%s/api/ (data in %s)\n",
			overview.Build, overview.APIVersion, addr, cfg.DataDir)
		if cfg.UpstreamURI != "" {
			banner = fmt.Sprintf("loggate %s serving the Graylog %s API at http://%s/api/ as a compatibility gateway to %s\n",
				overview.Build, overview.APIVersion, addr, cfg.UpstreamURI)
		}
		if pw := n.GeneratedRootPassword; pw != "" {
			banner += fmt.Sprintf("First start: the password of %q is %s\n"+
				"It is shown this once; only its hash is kept. Set root_password_sha2 to choose your own.\n",
				cfg.RootUsername, pw)
		}
		fmt.Fprint(stdout, banner)
	})
	log.Info("stopped")
	return err
}

package config_test

import (
	"fmt"

	"github.com/loggate/loggate/cmd/loggate/config"
)

func ExampleLoad() {
	cfg, warnings, err := config.Load(
		[]string{"--http_bind_address", "0.0.0.0:9000", "--http_publish_uri=https://logs.example.com", "--http_enable_cors"},
		[]string{"HOME=/root", "LOGGATE_ROOT_TIMEZONE=Europe/Berlin", "LOGGATE_IS_MASTER=true"},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	fmt.Println(cfg.HTTPBindAddress, cfg.HTTPPublishURI, cfg.HTTPEnableCORS, cfg.RootTimezone)
	// Output:
	// warning: ignoring unknown configuration key "is_master" (env LOGGATE_IS_MASTER)
	// 0.0.0.0:9000 https://logs.example.com/ true Europe/Berlin
}

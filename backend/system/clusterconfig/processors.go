package clusterconfig

import (
	"context"
	"slices"
)

// Processor is a message processor as Graylog's web interface lists it.
type Processor struct {
	Name      string `json:"name"`
	ClassName string `json:"class_name"`
}

// processors are the message processors of a Graylog 4.0 server with its
// bundled plugins, in its order when none is stored: class names sorted
// case-insensitively (OrderedMessageProcessors), which runs the pipeline
// processor before the Message Filter Chain. Processing runs the filter
// chain and, once registered, the pipelines in the stored order; the AWS
// and GeoIP processors are listed and kept for the interface only.
var processors = []Processor{
	{"AWS Instance Name Lookup", "org.graylog.aws.processors.instancelookup.AWSInstanceNameLookupProcessor"},
	{"GeoIP Resolver", "org.graylog.plugins.map.geoip.processor.GeoIpProcessor"},
	{"Pipeline Processor", "org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter"},
	{"Message Filter Chain", "org.graylog2.messageprocessors.MessageFilterChainProcessor"},
}

// processorsConfig is the stored MessageProcessorsConfig: class names.
type processorsConfig struct {
	Order    []string `json:"processor_order"`
	Disabled []string `json:"disabled_processors"`
}

// ProcessorsConfig is MessageProcessorsConfigWithDescriptors, what
// /system/messageprocessors/config reads and writes.
type ProcessorsConfig struct {
	Order    []Processor `json:"processor_order"`
	Disabled []string    `json:"disabled_processors"`
}

// withProcessors is Graylog's MessageProcessorsConfig.withProcessors: the
// stored order of the processors that exist, then the ones it does not name;
// disabled names of processors that do not exist are dropped.
func (c processorsConfig) withProcessors() ProcessorsConfig {
	out := ProcessorsConfig{Order: []Processor{}, Disabled: []string{}}
	byClass := func(class string) (Processor, bool) {
		i := slices.IndexFunc(processors, func(p Processor) bool { return p.ClassName == class })
		if i < 0 {
			return Processor{}, false
		}
		return processors[i], true
	}
	for _, class := range c.Order {
		if p, ok := byClass(class); ok && !slices.Contains(out.Order, p) {
			out.Order = append(out.Order, p)
		}
	}
	for _, p := range processors {
		if !slices.Contains(out.Order, p) {
			out.Order = append(out.Order, p)
		}
	}
	for _, class := range c.Disabled {
		if _, ok := byClass(class); ok && !slices.Contains(out.Disabled, class) {
			out.Disabled = append(out.Disabled, class)
		}
	}
	return out
}

// Processors returns the message processors' order and state.
func (s *Service) Processors(ctx context.Context) (ProcessorsConfig, error) {
	var c processorsConfig
	if err := s.load(ctx, MessageProcessorsClass, &c); err != nil {
		return ProcessorsConfig{}, err
	}
	return c.withProcessors(), nil
}

// SetProcessors stores the processors' order and state and returns them as
// stored.
func (s *Service) SetProcessors(ctx context.Context, in ProcessorsConfig) (ProcessorsConfig, error) {
	c := processorsConfig{Order: []string{}, Disabled: in.Disabled}
	for _, p := range in.Order {
		c.Order = append(c.Order, p.ClassName)
	}
	out := c.withProcessors()
	stored := processorsConfig{Order: []string{}, Disabled: out.Disabled}
	for _, p := range out.Order {
		stored.Order = append(stored.Order, p.ClassName)
	}
	return out, s.save(ctx, MessageProcessorsClass, stored)
}

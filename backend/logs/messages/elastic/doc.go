// Package elastic is the Elasticsearch message store: a messages.Store over
// Elasticsearch 6.8 to 7.10 or OpenSearch 1.x, laid out as Graylog 4.0 lays
// out its indices, so that a cluster Graylog wrote can be read and the other
// way round.
//
// Each index set is a series of indices <prefix>_0, <prefix>_1, … matched
// by the index template <prefix>-template (Graylog's messages mapping), and
// the alias <prefix>_deflector names the write index. Write sends a _bulk
// request to the alias with each message's _id as the document id, so that
// a replay of the journal overwrites instead of duplicating, and waits with
// refresh=wait_for until the documents are searchable. Search sends
// Graylog's query_string query: the parsed query printed back with
// query.ToString.
//
// Requests are go-elasticsearch's typed requests (esapi), executed with
// their Do method on elastictransport, the transport of go-elasticsearch,
// and not through elasticsearch.Client: the client's Perform refuses any
// server that does not send the X-Elastic-Product header, which
// Elasticsearch before 7.14 and OpenSearch never send, while esapi requests
// take any esapi.Transport and check nothing.
package elastic

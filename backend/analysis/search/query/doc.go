// Package query parses Graylog search queries: the Lucene "classic" query
// syntax that Graylog 4.0 hands to Elasticsearch's query_string query.
//
// One parser serves every consumer: the embedded message index evaluates the
// tree Parse returns, and the Elasticsearch translation prints it back with
// ToString. The package does no I/O.
//
// The grammar and its corner cases follow Lucene's QueryParser.jj and
// Elasticsearch's QueryStringQueryParser, because that is what Graylog users'
// saved searches, dashboards and alert conditions were written against:
//
//   - A query is a list of clauses. Each clause may carry a modifier (+, -,
//     NOT, !) and be joined to the previous one by a conjunction (AND, &&, OR,
//     ||); operators are upper case only. Clauses without a conjunction are
//     joined by Options.DefaultOperator (OR, as in Graylog).
//   - Words side by side, with no operator before or between them, are one
//     Term whose Value holds them joined by a space, as Elasticsearch 6 and
//     later parse (splitOnWhitespace false): the field's analyzer cuts it,
//     so user:(Bob Smith) is the keyword "Bob Smith" and message:(a b) is a
//     or b. ToString joins neighbouring optional words with OR to keep them
//     apart. Under Options.DefaultOperator AND words stay apart.
//   - The resulting Bool is Lucene's BooleanQuery, built by Lucene's own
//     rules, so "a AND b OR c" means +a +b c (c is optional), not (a AND b) OR c.
//   - field:value, field:"a phrase", field:(a OR b), field:[a TO b],
//     field:{a TO b], field:>10 (>=, <, <= too; only with an explicit field),
//     field:pre*, field:w?ld*, field:/regexp/, _exists_:field, * and *:*.
//     field:* is an exists query, as in Elasticsearch. _missing_:field (from
//     Elasticsearch 2, gone since 5) is accepted as NOT _exists_:field.
//   - term~ and term~2 (fuzzy), "a phrase"~3 (slop); ^boost is accepted and
//     dropped: Graylog sorts by time, so scores never matter.
//   - A backslash escapes any character; \uXXXX is a Unicode escape.
//   - An empty query, blanks only, or * matches everything (Graylog decides
//     this before Elasticsearch sees the query).
//
// Where Lucene's lexer is greedy in ways nobody relies on, the parser is
// simpler: a regular expression ends at the first slash not escaped by a
// backslash (Lucene's longest match could run on to a later slash), and a
// range bound ends at any blank, not only at a space.
//
// A query that does not parse gives a *SyntaxError naming the byte offset.
// Queries longer than MaxQueryLength or nesting parentheses deeper than
// MaxDepth are refused the same way, so hostile input cannot exhaust memory or
// the stack.
package query

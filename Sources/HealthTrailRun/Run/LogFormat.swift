/// How HealthTrail's log lines look on stderr.
///
/// `text` is for people (a terminal, a cron mail); `json` is one JSON object per line for log
/// shippers (journald, Vector, Loki, CloudWatch): `{"time":…,"level":…,"event":…,"message":…}`.
package enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

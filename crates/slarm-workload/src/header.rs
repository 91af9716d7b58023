//! SWF header comments (`; Key: value`).

/// The header of an SWF file. Well-known keys are parsed; every `; Key: value` line is kept
/// in `entries` in file order so that a writer can reproduce it.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SwfHeader {
    /// `MaxProcs` (first integer of the value).
    pub max_procs: Option<u64>,
    /// `MaxNodes` (first integer of the value).
    pub max_nodes: Option<u64>,
    /// `MaxJobs`.
    pub max_jobs: Option<u64>,
    /// `MaxRecords`.
    pub max_records: Option<u64>,
    /// `MaxRuntime`.
    pub max_runtime: Option<u64>,
    /// `UnixStartTime`: the epoch of trace time 0.
    pub unix_start_time: Option<i64>,
    /// `TimeZoneString` (or `TimeZone`).
    pub time_zone: Option<String>,
    /// `Version`.
    pub version: Option<String>,
    /// `Computer`.
    pub computer: Option<String>,
    /// `StartTime` (the log's start, as written, e.g. `Sun Jul 28 11:00:00 CEST 2002`).
    pub start_time: Option<String>,
    /// `EndTime`.
    pub end_time: Option<String>,
    /// `MaxMemory` (KB per processor).
    pub max_memory: Option<u64>,
    /// Every header entry as (key, value), in file order; comment lines without a key are
    /// kept with an empty key.
    pub entries: Vec<(String, String)>,
}

/// Header key that marks a generated (not real) workload: `; SlarmSynthetic: <source>`.
pub const SYNTHETIC_KEY: &str = "SlarmSynthetic";

/// The first (optionally signed) integer in `s`, e.g. `"338 (batch partition)"` -> 338.
pub fn first_integer(s: &str) -> Option<i64> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let neg = bytes[i] == b'-' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit();
        if bytes[i].is_ascii_digit() || neg {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            return s[start..i].parse().ok();
        }
        i += 1;
    }
    None
}

impl SwfHeader {
    /// Records one comment line (the text after `;`).
    pub fn absorb(&mut self, comment: &str) {
        let text = comment.trim();
        let (key, value) = match text.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() && !k.trim().contains(' ') => {
                (k.trim().to_string(), v.trim().to_string())
            }
            _ => (String::new(), text.to_string()),
        };
        let uint = || first_integer(&value).and_then(|v| u64::try_from(v).ok());
        match key.to_ascii_lowercase().as_str() {
            "maxprocs" => self.max_procs = uint(),
            "maxnodes" => self.max_nodes = uint(),
            "maxjobs" => self.max_jobs = uint(),
            "maxrecords" => self.max_records = uint(),
            "maxruntime" => self.max_runtime = uint(),
            "unixstarttime" => self.unix_start_time = first_integer(&value),
            "timezonestring" => self.time_zone = Some(value.clone()),
            "timezone" if self.time_zone.is_none() => self.time_zone = Some(value.clone()),
            "version" => self.version = Some(value.clone()),
            "computer" => self.computer = Some(value.clone()),
            "starttime" => self.start_time = Some(value.clone()),
            "endtime" => self.end_time = Some(value.clone()),
            "maxmemory" => self.max_memory = uint(),
            _ => {}
        }
        self.entries.push((key, value));
    }

    /// The value of the first entry whose key equals `key` (ignoring ASCII case).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// True when the header carries the [`SYNTHETIC_KEY`] entry that the synthetic
    /// generator writes, so a generated workload stays labelled after a round trip
    /// through an SWF file.
    pub fn is_synthetic(&self) -> bool {
        self.get(SYNTHETIC_KEY).is_some()
    }

    /// Machine size from the header: `MaxProcs`, else `MaxNodes` (SWF header comments).
    pub fn machine_size(&self) -> Option<u64> {
        self.max_procs
            .filter(|&p| p > 0)
            .or(self.max_nodes.filter(|&n| n > 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_keys_and_free_text() {
        let mut h = SwfHeader::default();
        h.absorb(" MaxNodes: 338 (batch partition; 512 total)");
        h.absorb(" UnixStartTime: 835772400");
        h.absorb(" TimeZoneString: US/Eastern");
        h.absorb(" just a remark");
        h.absorb(" StartTime: Sun Jul 28 11:00:00 CEST 2002");
        assert_eq!(h.max_nodes, Some(338));
        assert_eq!(h.machine_size(), Some(338));
        h.absorb("MaxProcs: 1152");
        assert_eq!(h.machine_size(), Some(1152));
        assert_eq!(h.unix_start_time, Some(835_772_400));
        assert_eq!(h.time_zone.as_deref(), Some("US/Eastern"));
        assert_eq!(h.entries.len(), 6);
        assert_eq!(h.entries[3].0, "");
        assert_eq!(
            h.start_time.as_deref(),
            Some("Sun Jul 28 11:00:00 CEST 2002")
        );
        assert_eq!(h.get("timezonestring"), Some("US/Eastern"));
        assert!(!h.is_synthetic());
        assert_eq!(first_integer("x -12 y"), Some(-12));
        assert_eq!(first_integer("none"), None);
    }
}

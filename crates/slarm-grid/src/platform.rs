//! Sites and platforms: the DAS-3 preset of Table I and user-defined grids (Yigitbasi & Epema 2010, §IV-A).

use crate::error::{GridError, Result};

/// Reference processor speed (GHz) of the execution-time model: the slowest DAS-3 cluster
/// and the cloud (§IV-B, §V-B).
pub const REFERENCE_SPEED_GHZ: f64 = 2.2;

/// Whether a site is a grid cluster or the cloud pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SiteKind {
    /// A cluster of the grid (it receives background jobs if it existed initially).
    Grid,
    /// The elastic cloud pool of the Dynamic strategy and the controller.
    Cloud,
}

/// The scheduling unit of DAS-3 (Table I: 272 dual-processor nodes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Das3Unit {
    /// 544 processors, a task needs one (the default).
    #[default]
    Processor,
    /// 272 nodes, a task occupies a whole node.
    Node,
}

impl Das3Unit {
    /// Scheduling units a job of `processors` processors occupies (a node holds two).
    pub fn units_for(self, processors: u64) -> u64 {
        match self {
            Self::Processor => processors,
            Self::Node => processors.div_ceil(2),
        }
    }

    /// Short name (`processor`, `node`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Processor => "processor",
            Self::Node => "node",
        }
    }
}

/// One homogeneous site.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Site {
    /// Index of the site in its platform.
    pub id: usize,
    /// Human name.
    pub name: String,
    /// Number of processors (the unit of scheduling, κ and cost).
    pub processors: u64,
    /// Processor speed in GHz (execution time is inversely proportional to it).
    pub speed_ghz: f64,
    /// Grid cluster or cloud.
    pub kind: SiteKind,
}

/// A multicluster grid.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Platform {
    sites: Vec<Site>,
}

/// Most processors a platform may have in all (2^40): totals, κ-scaled sizes and their exact
/// `u128` products stay far from overflow.
pub const MAX_PROCESSORS: u64 = 1 << 40;

impl Platform {
    /// A platform of grid sites given as `(name, processors, speed_ghz)`; validates that
    /// there is at least one site, every site has processors and a positive finite speed.
    pub fn new(sites: Vec<(String, u64, f64)>) -> Result<Self> {
        if sites.is_empty() {
            return Err(GridError::InvalidPlatform("no sites".into()));
        }
        let total: u128 = sites.iter().map(|s| u128::from(s.1)).sum();
        if total > u128::from(MAX_PROCESSORS) {
            return Err(GridError::InvalidPlatform(format!(
                "{total} processors in all: more than 2^40"
            )));
        }
        let mut out = Vec::with_capacity(sites.len());
        for (id, (name, processors, speed_ghz)) in sites.into_iter().enumerate() {
            if processors == 0 {
                return Err(GridError::InvalidPlatform(format!(
                    "site {name} has no processors"
                )));
            }
            if !speed_ghz.is_finite() || speed_ghz <= 0.0 {
                return Err(GridError::InvalidPlatform(format!(
                    "site {name} has speed {speed_ghz}"
                )));
            }
            out.push(Site {
                id,
                name,
                processors,
                speed_ghz,
                kind: SiteKind::Grid,
            });
        }
        Ok(Self { sites: out })
    }

    /// DAS-3 as in Table I: 5 clusters, 272 dual-processor nodes, 544 processors, each
    /// processor a scheduling unit (the reading of §IV-A we default to).
    pub fn das3() -> Self {
        Self::das3_in(Das3Unit::Processor)
    }

    /// DAS-3 of Table I with the scheduling unit `unit`: 544 processors, or 272 nodes of
    /// which a task occupies a whole one (the paper says the nodes are dual-processor and never
    /// says whether a task takes a processor or a node).
    ///
    /// ```
    /// use slarm_grid::platform::{Das3Unit, Platform};
    /// assert_eq!(Platform::das3_in(Das3Unit::Node).total_processors(), 272);
    /// assert_eq!(Platform::das3_in(Das3Unit::Processor), Platform::das3());
    /// ```
    pub fn das3_in(unit: Das3Unit) -> Self {
        let per_node = match unit {
            Das3Unit::Processor => 2,
            Das3Unit::Node => 1,
        };
        let table = [
            ("VU", 85u64, 2.4),
            ("UvA", 41, 2.2),
            ("Delft", 68, 2.4),
            ("MN", 46, 2.4),
            ("Leiden", 32, 2.6),
        ];
        Self {
            sites: table
                .iter()
                .enumerate()
                .map(|(id, &(name, nodes, speed))| Site {
                    id,
                    name: name.to_string(),
                    processors: per_node * nodes,
                    speed_ghz: speed,
                    kind: SiteKind::Grid,
                })
                .collect(),
        }
    }

    /// The sites in index order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Total processors S.
    pub fn total_processors(&self) -> u64 {
        self.sites.iter().map(|s| s.processors).sum()
    }

    /// Capacity in reference-speed processors: Σ S_i · speed_i / speed_ref (591.8 for DAS-3).
    pub fn reference_capacity(&self, reference_speed_ghz: f64) -> f64 {
        self.sites
            .iter()
            .map(|s| s.processors as f64 * s.speed_ghz)
            .sum::<f64>()
            / reference_speed_ghz
    }

    /// Index of the largest site (ties: lowest index).
    pub fn largest_site(&self) -> usize {
        let mut best = 0;
        for (i, s) in self.sites.iter().enumerate() {
            if s.processors > self.sites[best].processors {
                best = i;
            }
        }
        best
    }

    /// Speed of the slowest site (the cloud's speed, §V-B).
    pub fn slowest_speed(&self) -> f64 {
        self.sites
            .iter()
            .map(|s| s.speed_ghz)
            .fold(f64::INFINITY, f64::min)
    }

    /// The same platform with new processor counts per site (same order), dropping nothing.
    pub(crate) fn with_sizes(&self, sizes: &[u64]) -> Self {
        let mut out = self.clone();
        for (s, &n) in out.sites.iter_mut().zip(sizes) {
            s.processors = n;
        }
        out
    }

    /// Appends a site (its id becomes the next index).
    pub(crate) fn push(&mut self, name: String, processors: u64, speed_ghz: f64, kind: SiteKind) {
        let id = self.sites.len();
        self.sites.push(Site {
            id,
            name,
            processors,
            speed_ghz,
            kind,
        });
    }
}

/// Parses a user-defined platform in the text format of `slarm grid --platform FILE`: one
/// site per line, `name processors speed_ghz` separated by whitespace (name without spaces,
/// processors a whole number ≥ 1, speed a finite number of GHz > 0); `#` starts a comment;
/// blank lines are ignored; site ids follow the order of the lines (0, 1, ...), which is the
/// numbering that background-trace site mappings refer to.
///
/// Errors name the 1-based line and the bad value ([`GridError::MalformedPlatform`]); a text
/// without any site, or with more than 2^40 processors in all, is [`GridError::InvalidPlatform`].
///
/// ```
/// use slarm_grid::platform::parse_platform;
/// let p = parse_platform("# name procs GHz\nA 100 2.2\nB 20 3.0  # fast\n").unwrap();
/// assert_eq!(p.total_processors(), 120);
/// assert_eq!(p.sites()[1].name, "B");
/// assert!(parse_platform("A 100\n").unwrap_err().to_string().contains("line 1"));
/// ```
pub fn parse_platform(text: &str) -> Result<Platform> {
    let mut sites: Vec<(String, u64, f64)> = Vec::new();
    let mut first_line: Vec<usize> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let bad = |message: String| GridError::MalformedPlatform { line, message };
        let content = raw.split('#').next().unwrap_or("");
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [name, procs, speed] = fields[..] else {
            return Err(bad(format!(
                "expected `name processors speed_ghz`, found {} field(s) in `{}`",
                fields.len(),
                content.trim()
            )));
        };
        let processors: u64 = procs.parse().map_err(|_| {
            bad(format!(
                "processors `{procs}` of site {name}: not a whole number"
            ))
        })?;
        if processors == 0 {
            return Err(bad(format!(
                "processors 0 of site {name}: a site needs at least one"
            )));
        }
        let speed_ghz: f64 = speed
            .parse()
            .map_err(|_| bad(format!("speed `{speed}` of site {name}: not a number")))?;
        if !speed_ghz.is_finite() || speed_ghz <= 0.0 {
            return Err(bad(format!(
                "speed `{speed}` of site {name}: must be a finite number of GHz > 0"
            )));
        }
        if let Some(j) = sites.iter().position(|s| s.0 == name) {
            return Err(bad(format!(
                "site name {name} repeats line {}",
                first_line[j]
            )));
        }
        sites.push((name.to_string(), processors, speed_ghz));
        first_line.push(line);
    }
    if sites.is_empty() {
        return Err(GridError::InvalidPlatform(
            "no site: every line is blank or a comment".into(),
        ));
    }
    Platform::new(sites)
}

/// Largest-remainder (Hamilton) apportionment of `total` seats by integer `weights`.
///
/// Ties in the remainder go to the larger weight, then to the lower index (the Static policy of §IV-B).
/// All-zero weights put everything on index 0. Exact integer arithmetic.
pub fn largest_remainder(total: u64, weights: &[u64]) -> Vec<u64> {
    let w_sum: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    let mut out = vec![0u64; weights.len()];
    if weights.is_empty() {
        return out;
    }
    if w_sum == 0 {
        out[0] = total;
        return out;
    }
    let t = u128::from(total);
    let mut rem: Vec<(u128, u64, usize)> = Vec::with_capacity(weights.len());
    let mut given: u128 = 0;
    for (i, &w) in weights.iter().enumerate() {
        let q = t * u128::from(w);
        out[i] = (q / w_sum) as u64;
        given += q / w_sum;
        rem.push((q % w_sum, w, i));
    }
    rem.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let left = (t - given) as usize;
    for &(_, _, i) in rem.iter().take(left) {
        out[i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by crates/slarm/tests/robustness: two sites of u64::MAX processors overflowed
    /// the total.
    #[test]
    fn huge_platforms_are_rejected() {
        let site = |n| ("s".to_string(), n, 2.0);
        assert!(Platform::new(vec![site(u64::MAX), site(u64::MAX)]).is_err());
        assert!(Platform::new(vec![site(MAX_PROCESSORS), site(1)]).is_err());
        assert!(Platform::new(vec![site(MAX_PROCESSORS)]).is_ok());
    }

    #[test]
    fn das3_table1_totals() {
        // Table I: 272 nodes, 544 processors, largest VU, slowest UvA, capacity 1302/2.2.
        let p = Platform::das3();
        assert_eq!(p.sites().len(), 5);
        assert_eq!(p.total_processors(), 544);
        assert_eq!(p.total_processors() / 2, 272);
        let sizes: Vec<u64> = p.sites().iter().map(|s| s.processors).collect();
        assert_eq!(sizes, vec![170, 82, 136, 92, 64]);
        assert_eq!(p.largest_site(), 0);
        assert_eq!(p.slowest_speed(), 2.2);
        assert!((p.reference_capacity(2.2) - 1302.0 / 2.2).abs() < 1e-9);
    }

    #[test]
    fn apportionment_examples() {
        // §IV-B examples of the Static policy on DAS-3.
        let w = [170, 82, 136, 92, 64];
        assert_eq!(largest_remainder(1, &w), vec![1, 0, 0, 0, 0]);
        assert_eq!(largest_remainder(2, &w), vec![1, 0, 1, 0, 0]);
        assert_eq!(largest_remainder(10, &w), vec![3, 2, 2, 2, 1]);
        assert_eq!(largest_remainder(128, &w), vec![40, 19, 32, 22, 15]);
        assert_eq!(largest_remainder(5, &[0, 0]), vec![5, 0]);
    }

    #[test]
    fn platform_file_format() {
        let p = parse_platform(
            "# DAS-3 as a file\nVU 170 2.4\n\n  UvA\t82 2.2 # slowest\nDelft 136 2.4\nMN 92 2.4\nLeiden 64 2.6\n",
        )
        .unwrap();
        assert_eq!(p, Platform::das3());
        let err = |text: &str| parse_platform(text).unwrap_err();
        let at = |text: &str, line: usize, needle: &str| {
            let e = err(text);
            assert!(
                matches!(&e, GridError::MalformedPlatform { line: l, message } if *l == line && message.contains(needle)),
                "{text:?}: {e}"
            );
        };
        at("A 4 2.2\nB x 2.0\n", 2, "`x`");
        at("A 4 2.2\n# c\nB 4\n", 3, "found 2 field(s)");
        at("A 4 2.2 extra\n", 1, "found 4 field(s)");
        at("A 0 2.2\n", 1, "processors 0");
        at("A -3 2.2\n", 1, "`-3`");
        at("A 4.5 2.2\n", 1, "`4.5`");
        at("A 4 NaN\n", 1, "`NaN`");
        at("A 4 inf\n", 1, "`inf`");
        at("A 4 0\n", 1, "`0`");
        at("A 4 fast\n", 1, "`fast`");
        at("A 4 2\nB 1 2\nA 2 2\n", 3, "repeats line 1");
        assert!(matches!(err(""), GridError::InvalidPlatform(_)));
        assert!(matches!(err("# only\n\n"), GridError::InvalidPlatform(_)));
        assert!(matches!(
            err("A 1099511627776 2\nB 1 2\n"),
            GridError::InvalidPlatform(_)
        ));
    }

    #[test]
    fn platform_validation() {
        assert!(Platform::new(vec![]).is_err());
        assert!(Platform::new(vec![("a".into(), 0, 2.0)]).is_err());
        assert!(Platform::new(vec![("a".into(), 4, f64::NAN)]).is_err());
        assert_eq!(
            Platform::new(vec![("a".into(), 4, 2.0)])
                .unwrap()
                .total_processors(),
            4
        );
    }
}

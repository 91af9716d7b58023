//! Published and derived reference values for Sung 2006, printed beside ours by the
//! reproduction and used by the tests that validate `slarm-provision` against them.
//!
//! "Thesis" values are printed in the thesis (§5.1.1, §5.4.1, §5.4.2, Table 5.1). The others
//! were derived outside it from the stated model, as the thesis prints no such numbers:
//! [`APPENDIX_A`] (`g_s(p)` from the backward Kolmogorov equation), the static-allocation miss
//! probabilities and the expected arrivals per interval (Fig. 5.3's shape).

/// Reference `g_s(p)` (thesis §4.2.3, §5.2) for `p = 1..=5`, `s = 0..=79` (-1 = NONE), derived
/// outside the thesis, which prints no g table, from its stated model: the backward
/// Kolmogorov equation of the `M_t/M/p` queue with the profile's Poisson rate (RK2, dt = 5 s,
/// 260 states, y = 99.99 %). Exact for `s >= u = 64`; an approximation of the thesis's
/// generator below. `g_s(p) = 0` for every `s` in `80..=92`.
pub const APPENDIX_A: [[i64; 5]; 80] = [
    [-1, -1, -1, 49, 108],
    [-1, -1, -1, 47, 106],
    [-1, -1, -1, 45, 104],
    [-1, -1, -1, 44, 101],
    [-1, -1, -1, 42, 99],
    [-1, -1, -1, 41, 97],
    [-1, -1, -1, 39, 95],
    [-1, -1, -1, 38, 93],
    [-1, -1, -1, 37, 91],
    [-1, -1, -1, 36, 89],
    [-1, -1, -1, 35, 87],
    [-1, -1, -1, 34, 85],
    [-1, -1, -1, 33, 84],
    [-1, -1, -1, 32, 82],
    [-1, -1, -1, 31, 81],
    [-1, -1, -1, 31, 79],
    [-1, -1, -1, 30, 78],
    [-1, -1, -1, 30, 77],
    [-1, -1, -1, 30, 76],
    [-1, -1, -1, 30, 76],
    [-1, -1, -1, 30, 75],
    [-1, -1, -1, 30, 74],
    [-1, -1, -1, 31, 74],
    [-1, -1, -1, 31, 74],
    [-1, -1, -1, 32, 74],
    [-1, -1, -1, 33, 74],
    [-1, -1, -1, 34, 74],
    [-1, -1, -1, 35, 75],
    [-1, -1, -1, 36, 75],
    [-1, -1, -1, 37, 76],
    [-1, -1, 0, 39, 76],
    [-1, -1, 3, 40, 77],
    [-1, -1, 6, 42, 78],
    [-1, -1, 8, 43, 78],
    [-1, -1, 10, 45, 79],
    [-1, -1, 12, 46, 80],
    [-1, -1, 14, 48, 80],
    [-1, -1, 17, 49, 81],
    [-1, -1, 19, 50, 81],
    [-1, -1, 20, 51, 82],
    [-1, -1, 22, 52, 82],
    [-1, -1, 24, 53, 82],
    [-1, -1, 25, 54, 82],
    [-1, -1, 27, 54, 81],
    [-1, 0, 28, 55, 81],
    [-1, 2, 29, 55, 81],
    [-1, 4, 30, 55, 80],
    [-1, 6, 31, 55, 79],
    [-1, 7, 31, 55, 78],
    [-1, 8, 32, 55, 77],
    [-1, 10, 32, 54, 76],
    [-1, 11, 33, 54, 75],
    [-1, 12, 33, 53, 73],
    [-1, 13, 33, 53, 72],
    [-1, 13, 33, 52, 70],
    [-1, 14, 33, 51, 69],
    [-1, 15, 33, 50, 67],
    [-1, 15, 32, 49, 65],
    [-1, 16, 32, 48, 63],
    [0, 16, 32, 47, 61],
    [2, 17, 31, 45, 59],
    [3, 17, 31, 44, 57],
    [4, 17, 30, 43, 55],
    [5, 18, 30, 41, 52],
    [6, 18, 29, 40, 50],
    [6, 17, 27, 37, 47],
    [5, 15, 25, 34, 43],
    [5, 14, 23, 32, 40],
    [5, 13, 21, 29, 37],
    [4, 12, 20, 27, 33],
    [4, 11, 18, 24, 30],
    [3, 10, 16, 21, 27],
    [3, 9, 14, 19, 23],
    [3, 8, 12, 16, 20],
    [2, 7, 10, 14, 17],
    [2, 6, 9, 11, 13],
    [2, 5, 7, 8, 10],
    [1, 3, 5, 6, 6],
    [1, 2, 3, 3, 3],
    [1, 1, 1, 1, 1],
];

/// `g_s(p)` of [`APPENDIX_A`] for `s = 0..=92` (zeros from `s = 80`), -1 = NONE.
///
/// ```
/// assert_eq!(slarm_repro::papers::sung2006::reference::appendix_a(0, 5), 108);
/// assert_eq!(slarm_repro::papers::sung2006::reference::appendix_a(85, 5), 0);
/// ```
pub fn appendix_a(s: usize, p: usize) -> i64 {
    match APPENDIX_A.get(s) {
        Some(row) if (1..=5).contains(&p) => row[p - 1],
        _ => 0,
    }
}

/// Thesis §5.1.1 (1,000 streams): mean inter-arrival time (s) and its sd.
pub const MEAN_GAP_SECS: (f64, f64) = (394.17, 33.69);

/// Thesis §5.1.1 (1,000 streams): mean number of arrivals and its sd.
pub const MEAN_ARRIVALS: (f64, f64) = (145.27, 12.17);

/// Thesis Table 5.1: `(p_max, mean arrivals, mean inter-arrival time in s)`.
pub const TABLE_5_1: [(usize, f64, f64); 4] = [
    (5, 144.74, 393.52),
    (10, 291.06, 197.51),
    (20, 583.12, 99.04),
    (30, 878.38, 65.98),
];

/// Pr[some job late] with `p` static servers from time 0, from an independent Monte Carlo of
/// the thesis's generator (§5.1.1; 1M runs) made outside the thesis, which states only that four
/// servers are the minimum (§5.4.2): `(p, probability, 95 % half-width)`; 4 servers: no late
/// run in 1.02M runs.
pub const STATIC_MISS: [(usize, f64, f64); 3] =
    [(2, 0.8385, 0.0007), (3, 0.00884, 0.00018), (4, 0.0, 0.0)];

/// Thesis §5.4.1 (CF2): mean `n_85` (sd) under H3, H4, H5, explained by `g_84(5) = 9` and
/// `g_85(5) = 3`, which the stated model cannot produce: by our computation both are 0, as
/// `g_s(p) = 0` for every `s >= 80` (see [`APPENDIX_A`]).
pub const CF2_N85: [(&str, f64, f64); 3] = [
    ("H3", 0.837, 1.213),
    ("H4", 0.752, 1.094),
    ("H5", 0.905, 1.152),
];

/// Thesis §5.4.1: `g_84(p_max)` and `g_85(p_max)`.
pub const THESIS_G_84_85: (i64, i64) = (9, 3);

/// Our own run of 20,000 streams of the thesis's generator (§5.1.1): expected arrivals per
/// 15-min interval `s = 0..=63`, the shape of the thesis's Fig. 5.3.
pub const ARRIVALS_PER_INTERVAL: [f64; 64] = [
    0.93, 0.96, 1.01, 1.06, 1.11, 1.18, 1.24, 1.30, 1.37, 1.46, 1.52, 1.63, 1.73, 1.81, 1.91, 2.01,
    2.12, 2.27, 2.38, 2.50, 2.66, 2.78, 2.93, 3.06, 3.18, 3.30, 3.42, 3.51, 3.60, 3.66, 3.71, 3.74,
    3.76, 3.72, 3.68, 3.65, 3.54, 3.44, 3.37, 3.25, 3.13, 2.99, 2.89, 2.76, 2.63, 2.49, 2.38, 2.24,
    2.14, 2.02, 1.92, 1.83, 1.72, 1.65, 1.55, 1.48, 1.41, 1.34, 1.29, 1.22, 1.15, 1.10, 1.06, 0.99,
];

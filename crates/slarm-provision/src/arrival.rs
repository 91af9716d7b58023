//! The job arrival profile `a(x)` (Eq. 5.1) and the thesis's stream generator (Sung 2006, §5.1.1).

use rand::Rng;
use rand_distr::{Distribution, Exp1};

use crate::error::{ProvisionError, Result};

/// The arrival profile: gaps are `Exp(base_mean) · a(last arrival)` until `u_secs`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrivalProfile {
    /// Mean of the base exponential in seconds (480, or 2400 / p_max in Table 5.1).
    pub base_mean_secs: f64,
    /// End of the submission window in seconds (57,600).
    pub u_secs: f64,
    /// Coefficients `[c0, c1, c2]` of `a(x) = c0 + c1 x + c2 x^2` (x in seconds).
    pub coefficients: [f64; 3],
}

/// Per-stream statistics of the generator, as the thesis reports them (§5.1.1).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StreamStats {
    /// Number of arrivals.
    pub count: usize,
    /// Mean gap including the first gap from time 0 (= last arrival / count); 0 if empty.
    pub mean_gap_secs: f64,
}

impl ArrivalProfile {
    /// Eq. 5.1 with the printed coefficients and base mean 480 s, window 57,600 s.
    pub fn thesis() -> Self {
        Self {
            base_mean_secs: 480.0,
            u_secs: 57_600.0,
            coefficients: [2.0, -1.041_67e-4, 1.808_45e-9],
        }
    }

    /// The scalability variant of Table 5.1: base mean `2400 / p_max` s (our rule: it reproduces
    /// the thesis's Table 5.1).
    pub fn scaled_for(p_max: usize) -> Result<Self> {
        if p_max == 0 {
            return Err(ProvisionError::invalid("p_max", p_max, "must be >= 1"));
        }
        Self {
            base_mean_secs: 2400.0 / p_max as f64,
            ..Self::thesis()
        }
        .validated()
    }

    /// Checks that the base mean and window are positive and `a(x) > 0` on the window.
    pub fn validated(self) -> Result<Self> {
        for (what, v) in [
            ("base_mean_secs", self.base_mean_secs),
            ("u_secs", self.u_secs),
        ] {
            if !v.is_finite() {
                return Err(ProvisionError::NonFinite { what, value: v });
            }
            if v <= 0.0 {
                return Err(ProvisionError::invalid(what, v, "must be positive"));
            }
        }
        for c in self.coefficients {
            if !c.is_finite() {
                return Err(ProvisionError::NonFinite {
                    what: "arrival coefficient",
                    value: c,
                });
            }
        }
        // a is quadratic: its minimum on [0, U] is at an end point or the vertex.
        let [_, c1, c2] = self.coefficients;
        let mut pts = vec![0.0, self.u_secs];
        if c2 != 0.0 {
            let v = -c1 / (2.0 * c2);
            if v > 0.0 && v < self.u_secs {
                pts.push(v);
            }
        }
        if pts.iter().any(|&x| self.a(x) <= 0.0) {
            return Err(ProvisionError::invalid(
                "coefficients",
                format!("{:?}", self.coefficients),
                "a(x) must be positive on [0, u]",
            ));
        }
        Ok(self)
    }

    /// The scaling function `a(x)`, x in seconds since time 0.
    pub fn a(&self, x: f64) -> f64 {
        let [c0, c1, c2] = self.coefficients;
        c0 + x * (c1 + x * c2)
    }

    /// The Poisson-rate approximation `λ(t) = 1 / (base · a(t))` per second, 0 after `u`.
    pub fn rate(&self, t_secs: f64) -> f64 {
        if t_secs > self.u_secs || t_secs < 0.0 {
            0.0
        } else {
            1.0 / (self.base_mean_secs * self.a(t_secs))
        }
    }

    /// One arrival stream, exactly as the thesis's generator (§5.1.1): `t = x + z · a(x)`
    /// with `z ~ Exp(base)`, stopping (and discarding) at the first `t > u`.
    ///
    /// ```
    /// use slarm_provision::ArrivalProfile;
    /// let mut rng = slarm_stats::RngStreams::new(7).stream(&[0]);
    /// let s = ArrivalProfile::thesis().generate(&mut rng);
    /// assert!(s.windows(2).all(|w| w[0] <= w[1]) && s.iter().all(|&t| t <= 57_600.0));
    /// ```
    pub fn generate<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        // A capacity hint only: `as` saturates, and the hint is capped.
        let expected = (self.u_secs / self.base_mean_secs * 0.7) as usize;
        let mut out = Vec::with_capacity(expected.min(1 << 20).saturating_add(8));
        let mut x = 0.0;
        loop {
            let z: f64 = Exp1.sample(rng);
            let t = x + z * self.base_mean_secs * self.a(x);
            if t > self.u_secs {
                return out;
            }
            out.push(t);
            x = t;
        }
    }

    /// Expected number of arrivals under the Poisson approximation, `∫_0^u λ(t) dt`
    /// (Simpson's rule, 2,000 panels).
    pub fn expected_count(&self) -> f64 {
        let n = 2000;
        let h = self.u_secs / n as f64;
        let mut acc = self.rate(0.0) + self.rate(self.u_secs);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            acc += w * self.rate(i as f64 * h);
        }
        acc * h / 3.0
    }
}

/// Statistics of one stream (the thesis's definition of mean gap, §5.1.1).
pub fn stream_stats(stream: &[f64]) -> StreamStats {
    let count = stream.len();
    let mean_gap_secs = match stream.last() {
        Some(&last) => last / count as f64,
        None => 0.0,
    };
    StreamStats {
        count,
        mean_gap_secs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_values() {
        // Eq. 5.1: a(28,800) = 0.49999, a(57,600) = 1.99998
        let p = ArrivalProfile::thesis();
        assert!((p.a(0.0) - 2.0).abs() < 1e-12);
        assert!((p.a(28_800.0) - 0.49999).abs() < 1e-4);
        assert!((p.a(57_600.0) - 1.99998).abs() < 1e-4);
        // expected count 145.1 (thesis: 145.27 over 1,000 streams)
        assert!((p.expected_count() - 145.1).abs() < 0.2);
    }

    #[test]
    fn bad_profiles_rejected() {
        assert!(ArrivalProfile {
            base_mean_secs: -1.0,
            ..ArrivalProfile::thesis()
        }
        .validated()
        .is_err());
        assert!(ArrivalProfile {
            coefficients: [-1.0, 0.0, 0.0],
            ..ArrivalProfile::thesis()
        }
        .validated()
        .is_err());
        assert!(ArrivalProfile::scaled_for(0).is_err());
    }
}

//! Exact and semi-analytic validators (Sung 2006, §4.2.3, §4.3.4): the pure-death
//! chain for `s >= u` (absorption probability `Q` and one-interval transition `k`) by
//! uniformisation, the saturated one-interval shift as a convolution of arrival counts with
//! Poisson completions, and the backward Kolmogorov ODE of the `M_t/M/p` approximation.

use slarm_stats::summary::ln_gamma;

use crate::arrival::ArrivalProfile;
use crate::params::Params;

/// Poisson(`lambda`) probabilities `P[0..=J]` with the tail beyond `J` below about `1e-15`.
pub fn poisson_weights(lambda: f64) -> Vec<f64> {
    if lambda <= 0.0 {
        return vec![1.0];
    }
    let mut out = Vec::new();
    let mut cum = 0.0;
    let mut j = 0usize;
    loop {
        let lw = -lambda + (j as f64) * lambda.ln() - ln_gamma(j as f64 + 1.0);
        let w = lw.exp();
        out.push(w);
        cum += w;
        // past the mode the tail beyond j is below w_j * λ / (j + 1 - λ)
        let tail = if (j as f64) + 1.0 > lambda {
            w * lambda / (j as f64 + 1.0 - lambda)
        } else {
            1.0
        };
        if (j as f64) > lambda && (1.0 - cum < 1e-15 || tail < 1e-16) {
            return out;
        }
        j += 1;
    }
}

/// `h[k] = Pr[a pure-death chain with rate min(k, p)/x started at k is absorbed in 0
/// within time t]` for `k = 0..=n_max`, with `t_over_x = t / x`. Exact up to 1e-15
/// (uniformisation at rate `p / x`).
pub fn pure_death_absorb(p: usize, t_over_x: f64, n_max: usize) -> Vec<f64> {
    let p = p.max(1);
    let w = poisson_weights(p as f64 * t_over_x);
    let mut v = vec![0.0; n_max + 1];
    v[0] = 1.0;
    let mut h: Vec<f64> = v.iter().map(|x| x * w[0]).collect();
    let pf = p as f64;
    for (j, &wj) in w.iter().enumerate().skip(1) {
        let top = j.min(n_max);
        for k in (1..=top).rev() {
            let a = (k.min(p) as f64) / pf;
            v[k] = a * v[k - 1] + (1.0 - a) * v[k];
        }
        for k in 0..=top {
            h[k] += wj * v[k];
        }
    }
    h
}

/// Distribution of the jobs left after `t_over_x` mean service times when `n` jobs are
/// present, `q` servers, and no arrivals (the exact `k_s(q, n, ·)` for `s >= u`):
/// `probs[m]` for `m = 0..=n`.
pub fn pure_death_transition(q: usize, n: usize, t_over_x: f64) -> Vec<f64> {
    let q = q.max(1);
    let w = poisson_weights(q as f64 * t_over_x);
    let mut pi = vec![0.0; n + 1];
    pi[n] = 1.0;
    let mut out: Vec<f64> = pi.iter().map(|x| x * w[0]).collect();
    let qf = q as f64;
    for &wj in w.iter().skip(1) {
        for m in 0..=n {
            let stay = 1.0 - (m.min(q) as f64) / qf;
            let inflow = if m < n {
                pi[m + 1] * ((m + 1).min(q) as f64) / qf
            } else {
                0.0
            };
            pi[m] = pi[m] * stay + inflow;
        }
        for m in 0..=n {
            out[m] += wj * pi[m];
        }
    }
    out
}

/// `g` from a row `Q(n), n = 0..`: the largest `n` with `Q(0..=n) >= y`, `None` if `Q(0) < y`.
pub fn g_from_row(q: &[f64], y: f64) -> Option<u32> {
    let k = q.iter().take_while(|&&v| v >= y).count();
    if k == 0 {
        None
    } else {
        Some((k - 1) as u32)
    }
}

/// Backward Kolmogorov solution of the `M_t/M/p` queue with Poisson arrivals at the profile's rate
/// (a Poisson approximation of the thesis's generator): `Q[s][k]` for `s = 0..=d`,
/// `k = 0..=n_states`, solved with a midpoint RK2 step of `dt_secs` seconds; states above `n_states`
/// count as failure.
pub fn kolmogorov_q(
    params: &Params,
    profile: &ArrivalProfile,
    p: usize,
    n_states: usize,
    dt_secs: f64,
) -> Vec<Vec<f64>> {
    let n = n_states + 1;
    let mu = 1.0 / params.mean_service_secs;
    let deriv = |t: f64, h: &[f64], out: &mut [f64]| {
        let lam = profile.rate(t);
        for k in 0..n {
            let up = if k + 1 < n { h[k + 1] } else { 0.0 };
            let down = if k > 0 { h[k - 1] } else { h[0] };
            let mk = (k.min(p) as f64) * mu;
            out[k] = lam * (up - h[k]) + mk * (down - h[k]);
        }
    };
    let mut h = vec![0.0; n];
    h[0] = 1.0;
    let mut rows = vec![Vec::new(); params.d + 1];
    rows[params.d] = h.clone();
    let mut k1 = vec![0.0; n];
    let mut mid = vec![0.0; n];
    let mut k2 = vec![0.0; n];
    let steps_per = (params.delta_secs / dt_secs).round().max(1.0) as usize;
    let dt = params.delta_secs / steps_per as f64;
    for s in (0..params.d).rev() {
        for i in 0..steps_per {
            let t = (s + 1) as f64 * params.delta_secs - i as f64 * dt;
            deriv(t, &h, &mut k1);
            for k in 0..n {
                mid[k] = h[k] + 0.5 * dt * k1[k];
            }
            deriv(t - 0.5 * dt, &mid, &mut k2);
            for k in 0..n {
                h[k] += dt * k2[k];
            }
        }
        rows[s] = h.clone();
    }
    rows
}

/// Mean and variance of the saturated one-interval change `δ = A - C` with `C ~ Poisson(q Δ / x)`,
/// given the empirical distribution of arrivals in the interval (`arrival_pmf[a]`): the exact
/// convolution behind the saturated regime of §4.3.4. Returns the distribution of `δ` as
/// `(offset, probs)` with `δ = offset + index`.
pub fn saturated_convolution(
    arrival_pmf: &[f64],
    q: usize,
    interval_over_x: f64,
) -> (i64, Vec<f64>) {
    let c = poisson_weights(q as f64 * interval_over_x);
    let jc = c.len() as i64 - 1;
    let mut out = vec![0.0; arrival_pmf.len() + c.len() - 1];
    for (a, &pa) in arrival_pmf.iter().enumerate() {
        for (k, &pc) in c.iter().enumerate() {
            // δ = a - k; index = δ + jc
            let idx = (a as i64 - k as i64 + jc) as usize;
            out[idx] += pa * pc;
        }
    }
    (-jc, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_sums_to_one() {
        for l in [0.0, 0.75, 3.75, 105.0, 630.0] {
            let w = poisson_weights(l);
            let s: f64 = w.iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "{l}: {s}");
        }
    }

    #[test]
    fn one_job_one_interval() {
        // one job finishes within one interval w.p. 1 - e^{-0.75} = 0.527633
        let h = pure_death_absorb(1, 0.75, 1);
        assert!((h[1] - 0.527_633).abs() < 1e-6);
        // binomial for n <= q
        let k = pure_death_transition(5, 3, 0.75);
        let e = (-0.75f64).exp();
        for m in 0..=3usize {
            let binom = [1.0, 3.0, 3.0, 1.0][m];
            let want = binom * e.powi(m as i32) * (1.0 - e).powi(3 - m as i32);
            assert!((k[m] - want).abs() < 1e-12);
        }
    }

    #[test]
    fn absorb_matches_hypoexponential_for_two_jobs_one_server() {
        // two jobs on one server: Erlang(2) with rate 1 => 1 - e^{-t}(1 + t)
        let t = 1.7;
        let h = pure_death_absorb(1, t, 2);
        assert!((h[2] - (1.0 - (-t).exp() * (1.0 + t))).abs() < 1e-12);
    }
}

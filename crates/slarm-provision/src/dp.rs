//! The backward recursion for the expected cost-to-go tables `L` (H3), `L'` (H4) and `L''` (H5)
//! with their argmin (decision) tables, exactly as Sung 2006, §4.3.4 ("Algorithm 4", Eqs.
//! 4.9-4.26): shared base case (Eq. 4.12, with the removal cost `L*` and the expected penalty),
//! forced branch when `n >= g_s(p_max)` (or `>` by switch), removal cost
//! `M* = (p - q) ∫_s^{s+r2} c`, the table domain `N[s] = min(K_s, 2γ)` with `m` clamped to
//! `N[s+1]` (the thesis's domain `n <= min(g_s(p_max), K_s)` is too small for the recursion), and
//! the p-independent expectation `E[q] = Σ_m k_s(q, n, m) L_{s+1}(q, m)` factored out.

use std::sync::Arc;

use ndarray::Array2;

use crate::cost::CostFunction;
use crate::error::{ProvisionError, Result};
use crate::gtable::GTable;
use crate::ktable::KTable;
use crate::params::{NextTable, Params, TieBreak};

/// Which cost-aware heuristic a table belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Variant {
    /// H3: `L`, full q range, removal term `M*`.
    H3,
    /// H4: `L'`, q range starts at `β` (the choice for `n - 1`, same `p`).
    H4,
    /// H5: `L''`, no removal term (independent of `p` for `s <= d - 2`).
    H5,
}

/// Cost integrals the recursion needs (§4.3.2-§4.3.4), in cost units.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CostInputs {
    /// `cbar[s] = ∫_s^{s+1} c_t dt`, `s = 0..d-1`.
    pub cbar: Vec<f64>,
    /// `rem[s] = ∫_s^{s+r2} c_t dt`.
    pub rem: Vec<f64>,
    /// Penalty per late job `P = x · c_max` (Eq. 4.10, x in units).
    pub penalty: f64,
}

impl CostInputs {
    /// From a cost function (exact integrals).
    pub fn new(params: &Params, cost: &dyn CostFunction) -> Result<Self> {
        let r2 = params.r2_secs / params.delta_secs;
        let cbar: Vec<f64> = (0..params.d)
            .map(|s| cost.integral(s as f64, s as f64 + 1.0))
            .collect();
        let rem: Vec<f64> = (0..params.d)
            .map(|s| cost.integral(s as f64, s as f64 + r2))
            .collect();
        let penalty = params.penalty_factor * params.x_units() * cost.c_max(params.d);
        for &v in cbar.iter().chain(&rem).chain(std::iter::once(&penalty)) {
            if !v.is_finite() {
                return Err(ProvisionError::NonFinite {
                    what: "cost integral",
                    value: v,
                });
            }
            if v < 0.0 {
                return Err(ProvisionError::NegativeCost { value: v, at: 0.0 });
            }
        }
        Ok(Self { cbar, rem, penalty })
    }
}

/// One cost table with its decisions: per decision point `s = 1..=d-1` a `p × n` table,
/// `values[s][[p - p_min, n]]` and `choice[s][[p - p_min, n]]` for `n = 0..=n_max[s]`
/// (`s = 0` is the empty 0 × 0 table). Serialised as nested lists `[s][p - p_min][n]`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CostTable {
    /// The heuristic.
    pub variant: Variant,
    /// Smallest server count.
    pub p_min: usize,
    /// Domain `N[s]` per decision point.
    pub n_max: Vec<usize>,
    /// Expected cost to go.
    #[cfg_attr(feature = "serde", serde(with = "crate::nd_serde::vec_array2"))]
    pub values: Vec<Array2<f64>>,
    /// The minimising (or forced) number of servers for `[s, s+1)`.
    #[cfg_attr(feature = "serde", serde(with = "crate::nd_serde::vec_array2"))]
    pub choice: Vec<Array2<u32>>,
    /// Terms `k_s(q, n, m) · L_{s+1}(q, m)` plus evaluations of `M_s` spent building it
    /// (machine-independent work, for timing comparisons as in Fig. 5.17).
    #[cfg_attr(feature = "serde", serde(default))]
    pub work: u64,
}

impl CostTable {
    /// `L_s(p, n)` with `n` clamped to the domain.
    pub fn value(&self, s: usize, p: usize, n: usize) -> f64 {
        self.values[s][[p - self.p_min, n.min(self.n_max[s])]]
    }
}

/// Everything the cost-aware heuristics need: tables `g`, `k` and the three cost tables.
/// (The tables inside are serialisable one by one.)
#[derive(Debug, Clone)]
pub struct Plan {
    /// Model parameters.
    pub params: Params,
    /// Confidence table.
    pub g: Arc<GTable>,
    /// Transition table.
    pub k: Arc<KTable>,
    /// Cost integrals.
    pub inputs: CostInputs,
    /// H3 table `L`.
    pub h3: CostTable,
    /// H4 table `L'`.
    pub h4: CostTable,
    /// H5 table `L''`.
    pub h5: CostTable,
}

/// Index of the minimiser of `m(q)` over `lo..=hi` under the tie rule (relative tol 1e-12).
fn argmin(lo: usize, hi: usize, p: usize, tie: TieBreak, m: &dyn Fn(usize) -> f64) -> usize {
    let mut best_q = lo;
    let mut best = m(lo);
    for q in lo + 1..=hi {
        let v = m(q);
        if v < best - 1e-12 * best.abs() {
            best = v;
            best_q = q;
        }
    }
    if tie == TieBreak::PreferCurrent && p >= lo && p <= hi && p != best_q {
        let vp = m(p);
        if (vp - best).abs() <= 1e-12 * best.abs().max(1e-300) {
            return p;
        }
    }
    best_q
}

/// Shared machinery of one recursion step.
struct Step<'a> {
    params: &'a Params,
    g: &'a GTable,
    k: &'a KTable,
    inputs: &'a CostInputs,
}

impl Step<'_> {
    fn forced(&self, s: usize, n: usize) -> bool {
        match self.g.get(s, self.params.p_max) {
            None => true,
            Some(gs) => {
                if self.params.forced_uses_ge {
                    n >= gs as usize
                } else {
                    n > gs as usize
                }
            }
        }
    }

    /// Base case decision `l_{d-1} = min(w_{d-1}, α)` (Eq. 4.9).
    fn base_choice(&self, n: usize) -> usize {
        let s = self.params.d - 1;
        self.params.w(s, n).min(self.g.v(s, n))
    }

    /// Base value `L_{d-1}(p, n)` (Eq. 4.12).
    fn base_value(&self, p: usize, n: usize) -> Result<(f64, usize)> {
        let s = self.params.d - 1;
        let l = self.base_choice(n);
        let pen = self.inputs.penalty * self.k.dist(s, l, n)?.mean();
        let lstar = if l < p {
            (p - l) as f64 * self.inputs.rem[s]
        } else {
            0.0
        };
        Ok((l as f64 * self.inputs.cbar[s] + lstar + pen, l))
    }

    /// `E[q] = Σ_m k_s(q, n, m) Lnext(q, min(m, N[s+1]))` for `q = p_min..=hi` into `e`;
    /// returns the number of terms summed.
    fn expectations(
        &self,
        s: usize,
        n: usize,
        hi: usize,
        next: &CostTable,
        e: &mut [f64],
    ) -> Result<u64> {
        let mut terms = 0;
        for q in self.params.p_min..=hi {
            let dist = self.k.dist(s, q, n)?;
            let row = next.values[s + 1].row(q - self.params.p_min);
            let top = next.n_max[s + 1];
            e[q - self.params.p_min] = dist
                .probs
                .iter()
                .enumerate()
                .map(|(i, pr)| pr * row[(dist.offset + i).min(top)])
                .sum();
            terms += dist.probs.len() as u64;
        }
        Ok(terms)
    }

    /// Decision and value at `(s, p, n)` given the expectations `e[q - p_min]` for `q <= hi`,
    /// with the number of `M_s` values compared.
    fn decide(
        &self,
        variant: Variant,
        s: usize,
        p: usize,
        n: usize,
        lo_h4: usize,
        e: &[f64],
    ) -> (f64, usize, u64) {
        let pm = self.params.p_min;
        let hi = self.params.w(s, n);
        let cb = self.inputs.cbar[s];
        let rem = self.inputs.rem[s];
        let mv = |q: usize| {
            let mstar = if variant != Variant::H5 && q <= p {
                (p - q) as f64 * rem
            } else {
                0.0
            };
            q as f64 * cb + e[q - pm] + mstar
        };
        if self.forced(s, n) {
            return (mv(hi), hi, 1);
        }
        let lo = if variant == Variant::H4 {
            lo_h4.clamp(pm, hi)
        } else {
            pm
        };
        let q = argmin(lo, hi, p, self.params.tie_break, &mv);
        (mv(q), q, (hi + 1 - lo) as u64)
    }
}

/// Builds one cost table by backward recursion. `next_override` supplies the literal-reading
/// next table (H3's `L`) for H4/H5 when [`NextTable::LiteralL`] is selected.
pub fn build_table(
    params: &Params,
    g: &GTable,
    k: &KTable,
    inputs: &CostInputs,
    variant: Variant,
    next_override: Option<&CostTable>,
) -> Result<CostTable> {
    let d = params.d;
    if g.d() != d
        || k.cells.nrows() != d
        || inputs.cbar.len() != d
        || g.p_min != params.p_min
        || g.p_max != params.p_max
    {
        return Err(ProvisionError::TableMismatch(
            "g, k and cost inputs must match params (d, p_min, p_max)".into(),
        ));
    }
    let np = params.n_counts();
    let cap = 2 * params.gamma();
    let n_max: Vec<usize> = (0..d).map(|s| k.k_bound(s).min(cap)).collect();
    let step = Step {
        params,
        g,
        k,
        inputs,
    };
    let mut t = CostTable {
        variant,
        p_min: params.p_min,
        n_max: n_max.clone(),
        values: vec![Array2::zeros((0, 0)); d],
        choice: vec![Array2::zeros((0, 0)); d],
        work: 0,
    };
    // base case (shared by all variants)
    let sb = d - 1;
    let mut vals = Array2::zeros((np, n_max[sb] + 1));
    let mut chs = Array2::zeros((np, n_max[sb] + 1));
    for n in 0..=n_max[sb] {
        for pi in 0..np {
            let (v, l) = step.base_value(params.p_min + pi, n)?;
            vals[[pi, n]] = v;
            chs[[pi, n]] = l as u32;
        }
    }
    t.values[sb] = vals;
    t.choice[sb] = chs;
    let mut e = vec![0.0; np];
    for s in (1..d.saturating_sub(1)).rev() {
        let nn = n_max[s] + 1;
        let mut vals = Array2::zeros((np, nn));
        let mut chs = Array2::zeros((np, nn));
        let mut beta = vec![params.p_min; np];
        for n in 0..nn {
            let hi = params.w(s, n);
            {
                let next: &CostTable = match (variant, params.h45_next_table, next_override) {
                    (Variant::H3, _, _) => &t,
                    (_, NextTable::LiteralL, Some(o)) => o,
                    _ => &t,
                };
                t.work += step.expectations(s, n, hi, next, &mut e)?;
            }
            for pi in 0..np {
                // H5 has no removal term: under the smallest-q tie rule every p gives the
                // p_min row (L''_s does not depend on p for s <= d - 2, §4.3.6)
                if variant == Variant::H5 && params.tie_break == TieBreak::Smallest && pi > 0 {
                    vals[[pi, n]] = vals[[0, n]];
                    chs[[pi, n]] = chs[[0, n]];
                    continue;
                }
                let (v, q, evals) = step.decide(variant, s, params.p_min + pi, n, beta[pi], &e);
                vals[[pi, n]] = v;
                chs[[pi, n]] = q as u32;
                beta[pi] = q;
                t.work += evals;
            }
        }
        t.values[s] = vals;
        t.choice[s] = chs;
    }
    Ok(t)
}

impl Plan {
    /// Builds `L`, `L'` and `L''` for one cost function.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use slarm_provision::{dp::{Plan, Variant}, ktable::k_table_no_arrivals, Cost, CostShape, GTable, Params};
    /// // a hand-checkable toy: no arrivals, d = 4, 1..3 servers, x = 0.5, y = 0.9
    /// let params = Params { delta_secs: 1.0, u: 0, d: 4, p_min: 1, p_max: 3, y: 0.9,
    ///     mean_service_secs: 0.5, r1_secs: 0.0, r2_secs: 0.1, ..Params::thesis() };
    /// let g = slarm_provision::gtable::g_table(&params, &slarm_provision::ArrivalProfile::thesis(),
    ///     &slarm_stats::RngStreams::new(0), &slarm_provision::gtable::GConfig { runs: 1, exact_after_u: true, p_max_only: false }).unwrap();
    /// let k = k_table_no_arrivals(&params, 6);
    /// let cost = Cost::series(vec![0.0, 4.0], vec![5.0, 1.0], true).unwrap(); // c_t = 5 - t
    /// let plan = Plan::build(&params, Arc::new(g), Arc::new(k), &cost).unwrap();
    /// assert!((plan.h3.value(3, 1, 1) - 1.838338).abs() < 1e-6);
    /// assert_eq!(plan.decide(Variant::H3, 2, 1, 4).unwrap(), 3); // forced: n >= g_2(3) = 4
    /// ```
    pub fn build(
        params: &Params,
        g: Arc<GTable>,
        k: Arc<KTable>,
        cost: &dyn CostFunction,
    ) -> Result<Self> {
        let inputs = CostInputs::new(params, cost)?;
        let h3 = build_table(params, &g, &k, &inputs, Variant::H3, None)?;
        let h4 = build_table(params, &g, &k, &inputs, Variant::H4, Some(&h3))?;
        let h5 = build_table(params, &g, &k, &inputs, Variant::H5, Some(&h3))?;
        Ok(Self {
            params: params.clone(),
            g,
            k,
            inputs,
            h3,
            h4,
            h5,
        })
    }

    /// The table of a variant.
    pub fn table(&self, v: Variant) -> &CostTable {
        match v {
            Variant::H3 => &self.h3,
            Variant::H4 => &self.h4,
            Variant::H5 => &self.h5,
        }
    }

    /// The number of servers to use in `[s, s+1)` at decision point `s` (1..=d-1) with `p` servers
    /// and `n` jobs (§4.3.3, §4.3.5, §4.3.6: H3/H4/H5): the stored argmin, Eq. 4.9 at `s = d-1`,
    /// and an on-the-fly evaluation of `M_s` with clamped `L_{s+1}` outside the table domain.
    pub fn decide(&self, v: Variant, s: usize, p: usize, n: usize) -> Result<usize> {
        let params = &self.params;
        if s == 0 || s >= params.d {
            return Err(ProvisionError::TableMismatch(format!(
                "no decision at s = {s}"
            )));
        }
        let p = p.clamp(params.p_min, params.p_max);
        let step = Step {
            params,
            g: &self.g,
            k: &self.k,
            inputs: &self.inputs,
        };
        if s == params.d - 1 {
            return Ok(step.base_choice(n));
        }
        let t = self.table(v);
        if n <= t.n_max[s] {
            return Ok(t.choice[s][[p - params.p_min, n]] as usize);
        }
        let next = match (v, params.h45_next_table) {
            (Variant::H3, _) | (_, NextTable::SameVariant) => t,
            (_, NextTable::LiteralL) => &self.h3,
        };
        let hi = params.w(s, n);
        let mut e = vec![0.0; params.n_counts()];
        step.expectations(s, n, hi, next, &mut e)?;
        let lo = t.choice[s][[p - params.p_min, t.n_max[s]]] as usize;
        Ok(step.decide(v, s, p, n, lo, &e).1)
    }
}

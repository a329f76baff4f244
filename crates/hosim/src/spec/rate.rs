//! Scenario keys of variable link rates (`net::rate`), shared by a graph link's
//! `[links.rate_model]` table and the `[hsdpa]` template. Keys that belong to another model
//! than the chosen one are ignored, so a preset can name all its levels and still switch model
//! with one `--set`.

use serde::Deserialize;

use super::error::{Check, ScenarioError};
use crate::engine::time::s_to_ns;
use crate::net::rate::{LevelDist, RateModel};

/// What a rate change does to the packet being serialized.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RateChange {
    /// Charge the bits sent so far at the old rate, finish the rest at the new one.
    #[default]
    Reschedule,
    /// The packet keeps the rate it started with; the change applies from the next packet
    /// (ns-2 behaviour, for comparison with ns-2 results).
    NextPacket,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RateModelName {
    /// Two levels, `high_bps` then `low_bps`, each held for `period_s`.
    Square,
    /// A new level every `period_s`: one of `levels_bps` (equally likely) if given, else uniform
    /// on [`min_bps`, `max_bps`].
    Random,
    /// Eq. (2) of Ren et al.: `mean_bps`, `alpha`, `beta`, innovation `std_bps`, one value
    /// per `period_s`, clamped to [`floor_bps`, `ceiling_bps`].
    Arma,
    /// A Mahimahi packet-delivery trace, `trace_file`, looped.
    Trace,
}

/// The parameters of every model; which ones are read depends on the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateParams {
    pub period_s: Option<f64>,
    pub high_bps: Option<f64>,
    pub low_bps: Option<f64>,
    pub min_bps: Option<f64>,
    pub max_bps: Option<f64>,
    pub levels_bps: Option<Vec<f64>>,
    pub mean_bps: Option<f64>,
    pub std_bps: Option<f64>,
    pub floor_bps: Option<f64>,
    pub ceiling_bps: Option<f64>,
    pub alpha: Option<Vec<f64>>,
    pub beta: Option<Vec<f64>>,
    pub trace_file: Option<String>,
}

/// A graph link's `rate_model` table: `model` and the keys of [`RateParams`].
///
/// The keys are spelled out here (and in `HsdpaSection`) rather than `#[serde(flatten)]`-ed
/// from `RateParams`, because serde's `flatten` cannot be combined with `deny_unknown_fields`,
/// and unknown keys must be rejected. Keep the three lists in step.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateSpec {
    pub model: RateModelName,
    pub period_s: Option<f64>,
    pub high_bps: Option<f64>,
    pub low_bps: Option<f64>,
    pub min_bps: Option<f64>,
    pub max_bps: Option<f64>,
    pub levels_bps: Option<Vec<f64>>,
    pub mean_bps: Option<f64>,
    pub std_bps: Option<f64>,
    pub floor_bps: Option<f64>,
    pub ceiling_bps: Option<f64>,
    pub alpha: Option<Vec<f64>>,
    pub beta: Option<Vec<f64>>,
    pub trace_file: Option<String>,
    #[serde(default)]
    pub rate_change: RateChange,
}

impl RateSpec {
    pub fn new(model: RateModelName, p: RateParams, rate_change: RateChange) -> RateSpec {
        RateSpec {
            model,
            rate_change,
            period_s: p.period_s,
            high_bps: p.high_bps,
            low_bps: p.low_bps,
            min_bps: p.min_bps,
            max_bps: p.max_bps,
            levels_bps: p.levels_bps,
            mean_bps: p.mean_bps,
            std_bps: p.std_bps,
            floor_bps: p.floor_bps,
            ceiling_bps: p.ceiling_bps,
            alpha: p.alpha,
            beta: p.beta,
            trace_file: p.trace_file,
        }
    }

    pub fn params(&self) -> RateParams {
        RateParams {
            period_s: self.period_s,
            high_bps: self.high_bps,
            low_bps: self.low_bps,
            min_bps: self.min_bps,
            max_bps: self.max_bps,
            levels_bps: self.levels_bps.clone(),
            mean_bps: self.mean_bps,
            std_bps: self.std_bps,
            floor_bps: self.floor_bps,
            ceiling_bps: self.ceiling_bps,
            alpha: self.alpha.clone(),
            beta: self.beta.clone(),
            trace_file: self.trace_file.clone(),
        }
    }
}

/// Defaults of each model: the paper's Fig. 3 square wave, the Section V random process
/// (uniform 1-2 Mb/s every 200 ms, a hosim choice; see docs/reproductions/hsdpa-proxy.md), and
/// an ARMA(1, 0) around 1.5 Mb/s in 10 ms steps.
pub const SQUARE_DEFAULTS: (f64, f64, f64) = (384e3, 38.4e3, 10.0);
pub const RANDOM_DEFAULTS: (f64, f64, f64) = (1e6, 2e6, 0.2);
pub const ARMA_DEFAULTS: (f64, f64, f64, f64) = (1.5e6, 0.9, 1e5, 0.01);

impl RateParams {
    /// Validates the keys of `model` and builds it. `prefix` is the dotted path of the table
    /// holding the keys, `model_key` the full key naming the model (for messages).
    pub fn to_model(
        &self,
        model: RateModelName,
        c: &Check,
        prefix: &str,
        model_key: &str,
    ) -> Result<RateModel, ScenarioError> {
        let k = |name: &str| format!("{prefix}.{name}");
        let period = |default: f64| -> Result<u64, ScenarioError> {
            let p = self.period_s.unwrap_or(default);
            c.positive(&k("period_s"), p)?;
            if p < 1e-6 {
                return Err(c.err(&k("period_s"), &format!("must be >= 1e-6 s, got {p}")));
            }
            Ok(s_to_ns(p))
        };
        let rate = |name: &str, v: f64| -> Result<f64, ScenarioError> {
            c.non_negative(&k(name), v)?;
            if v > 1e12 {
                return Err(c.err(&k(name), &format!("must be <= 1e12 bit/s, got {v}")));
            }
            Ok(v)
        };
        match model {
            RateModelName::Square => {
                let (dh, dl, dp) = SQUARE_DEFAULTS;
                let high = rate("high_bps", self.high_bps.unwrap_or(dh))?;
                let low = rate("low_bps", self.low_bps.unwrap_or(dl))?;
                if high <= 0.0 && low <= 0.0 {
                    return Err(c.err(&k("high_bps"), "high_bps or low_bps must be > 0 (the link would never send)"));
                }
                Ok(RateModel::Square {
                    first_bps: high.round() as u64,
                    second_bps: low.round() as u64,
                    interval_ns: period(dp)?,
                })
            }
            RateModelName::Random => {
                let (dmin, dmax, dp) = RANDOM_DEFAULTS;
                let dist = match &self.levels_bps {
                    Some(levels) => {
                        if levels.is_empty() {
                            return Err(c.err(&k("levels_bps"), "must list at least one level"));
                        }
                        let mut out = Vec::with_capacity(levels.len());
                        for (i, &v) in levels.iter().enumerate() {
                            out.push(rate(&format!("levels_bps[{i}]"), v)?.round() as u64);
                        }
                        if out.iter().all(|&v| v == 0) {
                            return Err(c.err(&k("levels_bps"), "at least one level must be > 0"));
                        }
                        LevelDist::Levels(out)
                    }
                    None => {
                        let min = rate("min_bps", self.min_bps.unwrap_or(dmin))?;
                        let max = rate("max_bps", self.max_bps.unwrap_or(dmax))?;
                        if max < min {
                            return Err(c.err(&k("max_bps"), &format!("must be >= min_bps ({min}), got {max}")));
                        }
                        if max <= 0.0 {
                            return Err(c.err(&k("max_bps"), "must be > 0 (the link would never send)"));
                        }
                        LevelDist::Uniform { min_bps: min, max_bps: max }
                    }
                };
                Ok(RateModel::Random { dist, period_ns: period(dp)? })
            }
            RateModelName::Arma => {
                let (dmean, dalpha, dstd, dp) = ARMA_DEFAULTS;
                let mean = rate("mean_bps", self.mean_bps.unwrap_or(dmean))?;
                if mean <= 0.0 {
                    return Err(c.err(&k("mean_bps"), "must be > 0"));
                }
                let std = rate("std_bps", self.std_bps.unwrap_or(dstd))?;
                let alpha = self.alpha.clone().unwrap_or_else(|| vec![dalpha]);
                let beta = self.beta.clone().unwrap_or_default();
                for (name, list) in [("alpha", &alpha), ("beta", &beta)] {
                    for (i, &v) in list.iter().enumerate() {
                        c.finite(&k(&format!("{name}[{i}]")), v)?;
                    }
                }
                let sum: f64 = alpha.iter().map(|a| a.abs()).sum();
                if sum >= 1.0 {
                    return Err(c.err(
                        &k("alpha"),
                        &format!("sum of |alpha_i| must be < 1 for a stationary rate with a long-run mean (theorem of eq. 12), got {sum}"),
                    ));
                }
                let min = rate("floor_bps", self.floor_bps.unwrap_or(0.0))?;
                let max = self.ceiling_bps.unwrap_or(1e12);
                rate("ceiling_bps", max)?;
                if max <= min {
                    return Err(c.err(&k("ceiling_bps"), &format!("must be > floor_bps ({min}), got {max}")));
                }
                Ok(RateModel::Arma {
                    mean_bps: mean,
                    alpha,
                    beta,
                    std_bps: std,
                    step_ns: period(dp)?,
                    min_bps: min,
                    max_bps: max,
                })
            }
            RateModelName::Trace => {
                let Some(path) = &self.trace_file else {
                    return Err(c.err(
                        &k("trace_file"),
                        &format!("required when {model_key} = \"trace\" (a Mahimahi packet-delivery trace)"),
                    ));
                };
                let text = std::fs::read_to_string(path)
                    .map_err(|e| c.err(&k("trace_file"), &format!("cannot read \"{path}\": {e}")))?;
                RateModel::from_mahimahi(&text).map_err(|e| c.err(&k("trace_file"), &format!("\"{path}\": {e}")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: RateModelName, p: RateParams) -> Result<RateModel, String> {
        p.to_model(name, &Check { source: "t.toml" }, "hsdpa", "hsdpa.bandwidth").map_err(|e| e.message)
    }

    #[test]
    fn defaults_build_each_model() {
        assert!(matches!(
            model(RateModelName::Square, RateParams::default()),
            Ok(RateModel::Square { first_bps: 384_000, second_bps: 38_400, .. })
        ));
        assert!(matches!(model(RateModelName::Random, RateParams::default()), Ok(RateModel::Random { .. })));
        assert!(matches!(model(RateModelName::Arma, RateParams::default()), Ok(RateModel::Arma { .. })));
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases: Vec<(RateModelName, RateParams, &str)> = vec![
            (RateModelName::Square, RateParams { period_s: Some(0.0), ..Default::default() }, "`hsdpa.period_s`"),
            (RateModelName::Square, RateParams { high_bps: Some(-1.0), ..Default::default() }, "`hsdpa.high_bps`"),
            (
                RateModelName::Square,
                RateParams { high_bps: Some(0.0), low_bps: Some(0.0), ..Default::default() },
                "`hsdpa.high_bps`",
            ),
            (RateModelName::Random, RateParams { min_bps: Some(3e6), ..Default::default() }, "`hsdpa.max_bps`"),
            (
                RateModelName::Random,
                RateParams { levels_bps: Some(vec![]), ..Default::default() },
                "`hsdpa.levels_bps`",
            ),
            (
                RateModelName::Random,
                RateParams { levels_bps: Some(vec![1e6, f64::NAN]), ..Default::default() },
                "`hsdpa.levels_bps[1]`",
            ),
            (RateModelName::Arma, RateParams { alpha: Some(vec![0.7, -0.4]), ..Default::default() }, "`hsdpa.alpha`"),
            (RateModelName::Arma, RateParams { mean_bps: Some(0.0), ..Default::default() }, "`hsdpa.mean_bps`"),
            (RateModelName::Arma, RateParams { std_bps: Some(f64::INFINITY), ..Default::default() }, "`hsdpa.std_bps`"),
            (RateModelName::Trace, RateParams::default(), "`hsdpa.trace_file`: required"),
            (
                RateModelName::Trace,
                RateParams { trace_file: Some("/nonexistent/x.mahi".into()), ..Default::default() },
                "`hsdpa.trace_file`: cannot read",
            ),
        ];
        for (m, p, want) in cases {
            let e = model(m, p).unwrap_err();
            assert!(e.contains(want), "{e} should name {want}");
            assert!(!e.contains('\n'));
        }
    }
}

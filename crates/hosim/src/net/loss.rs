//! Random loss on a link: none, Bernoulli, or the Gilbert-Elliott two-state burst model.

use rand::Rng as _;

use crate::engine::rng::Rng;

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// Two-state Markov chain evaluated once per packet. In the good state packets are lost
    /// with `loss_good`, in the bad state with `loss_bad`; the chain moves good->bad with
    /// `p_gb` and bad->good with `p_bg` before each packet.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
}

impl LossModel {
    /// Decides whether the next packet is lost, drawing from the link's own stream.
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.gen::<f64>() < *p,
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, bad } => {
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.gen::<f64>() < flip {
                    *bad = !*bad;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                rng.gen::<f64>() < p
            }
        }
    }

    /// Long-run loss probability of the model.
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => *p,
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, .. } => {
                let pi_bad = p_gb / (p_gb + p_bg);
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream_rng, StreamKind};

    fn empirical(model: &mut LossModel, n: usize) -> f64 {
        let mut rng = stream_rng(1, StreamKind::Link, 0);
        (0..n).filter(|_| model.lose(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        let f = empirical(&mut LossModel::Bernoulli { p: 0.01 }, 200_000);
        assert!((f - 0.01).abs() < 0.0015, "{f}");
    }

    #[test]
    fn gilbert_elliott_rate_matches_stationary_mean_and_is_bursty() {
        let mut m = LossModel::GilbertElliott { p_gb: 0.01, p_bg: 0.2, loss_good: 0.0, loss_bad: 0.5, bad: false };
        let mean = m.mean_loss();
        let f = empirical(&mut m, 400_000);
        assert!((f - mean).abs() < 0.004, "{f} vs {mean}");
        // Burstiness: the chance that a loss follows a loss is far above the mean rate.
        let mut rng = stream_rng(2, StreamKind::Link, 0);
        let mut m = LossModel::GilbertElliott { p_gb: 0.01, p_bg: 0.2, loss_good: 0.0, loss_bad: 0.5, bad: false };
        let seq: Vec<bool> = (0..400_000).map(|_| m.lose(&mut rng)).collect();
        let pairs = seq.windows(2).filter(|w| w[0]).count() as f64;
        let both = seq.windows(2).filter(|w| w[0] && w[1]).count() as f64;
        assert!(both / pairs > 3.0 * mean, "conditional {} vs mean {}", both / pairs, mean);
    }
}

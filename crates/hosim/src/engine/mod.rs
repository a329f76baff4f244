//! Discrete-event engine: integer time, the (time, sequence) ordered event queue and
//! per-component random streams. The run loop itself lives in the simulation layer (`sim`).

pub mod queue;
pub mod rng;
pub mod time;

pub use queue::{EventQueue, Lane};
pub use rng::stream_rng;
pub use time::{ns_to_s, s_to_ns, tx_time_ns, SimTime};

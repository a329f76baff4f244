//! Runs a scenario file or preset and prints the summary JSON: `cargo run --example run -- dumbbell`.
fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "dumbbell".into());
    let sets: Vec<(String, String)> = std::env::args()
        .skip(2)
        .filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let text = match hosim::scenario::presets::find(&arg) {
        Some(t) => t.to_string(),
        None => std::fs::read_to_string(&arg).expect("scenario file"),
    };
    let opts = hosim::RunOptions { seed: Some(1), overrides: sets, traces: false, ..Default::default() };
    match hosim::run(&text, &arg, &opts) {
        Ok(out) => println!("{}", serde_json::to_string_pretty(&out.summary).unwrap()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

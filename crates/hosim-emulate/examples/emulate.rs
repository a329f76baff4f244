//! `cargo run -p hosim-emulate --example emulate -- PRESET SERVER CLIENT [KEY=VALUE ...]`: one
//! emulated run of a preset, its summary's emulation section printed (development aid; the
//! user's entry point is `hosim emulate`). With MULTIPATH set in the environment, hosts with
//! several links get an interface each (`EmulateOptions::multipath`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = hosim::scenario::presets::find(&args[0]).expect("a preset name");
    let overrides = args[3..]
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("KEY=VALUE");
            (k.to_string(), v.to_string())
        })
        .collect();
    let opts = hosim_emulate::EmulateOptions {
        overrides,
        server: Some(args[1].clone()),
        client: Some(args[2].clone()),
        multipath: std::env::var_os("MULTIPATH").is_some(),
        ..Default::default()
    };
    match hosim_emulate::emulate(text, &args[0], &opts) {
        Ok(out) => println!("{}", serde_json::to_string(&out.summary).unwrap()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

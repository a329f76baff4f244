//! Packet capture (`observe::pcap`) through `hosim::run`: it does not change the run, and the
//! files hold, per link, the packets the summary says the link started to transmit.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hosim::{CaptureOptions, RunOptions};
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};

const PRESET: &str = "lte-x2";

fn run(capture: CaptureOptions) -> serde_json::Value {
    let text = hosim::scenario::presets::find(PRESET).expect("preset");
    let overrides = vec![("duration_s".to_string(), "2.6".to_string())];
    let opts = RunOptions { seed: Some(1), overrides, capture, ..Default::default() };
    let mut summary = hosim::run(text, PRESET, &opts).expect("run").summary;
    summary.as_object_mut().expect("an object").remove("wall_time_s");
    summary
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hosim-capture-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// (link name, packets in the file) of every captured link in the summary.
fn expected(summary: &serde_json::Value) -> BTreeMap<String, u64> {
    let links = summary["capture"]["links"].as_array().expect("capture.links");
    links.iter().map(|l| (l["name"].as_str().expect("name").to_string(), l["packets"].as_u64().expect("n"))).collect()
}

#[test]
fn capture_changes_nothing_in_the_run_but_the_capture_entry() {
    let dir = temp_dir("same");
    let plain = run(CaptureOptions::default());
    let mut captured = run(CaptureOptions {
        dir: Some(dir.clone()),
        links: Some(vec!["all".into()]),
        format: None,
        existing_dir: false,
    });
    assert!(captured.as_object_mut().expect("object").remove("capture").is_some());
    assert_eq!(plain, captured);
    std::fs::remove_dir_all(dir).expect("clean up");
}

#[test]
fn pcapng_holds_one_interface_per_link_and_the_packets_it_transmitted() {
    let dir = temp_dir("ng");
    let summary = run(CaptureOptions {
        dir: Some(dir.clone()),
        links: Some(vec!["all".into()]),
        format: None,
        existing_dir: false,
    });
    let mut reader = PcapNgReader::new(std::fs::File::open(dir.join("capture.pcapng")).expect("file")).expect("pcapng");
    let (mut names, mut counts) = (Vec::new(), BTreeMap::<String, u64>::new());
    while let Some(block) = reader.next_block() {
        match block.expect("a valid block") {
            Block::InterfaceDescription(_) => names.push(reader.interfaces().last().expect("the IDB").clone()),
            Block::EnhancedPacket(p) => {
                let idb = &names[p.interface_id as usize];
                let name = idb.options.iter().find_map(|o| match o {
                    pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption::IfName(n) => {
                        Some(n.to_string())
                    }
                    _ => None,
                });
                *counts.entry(name.expect("if_name")).or_default() += 1;
                assert!(etherparse::SlicedPacket::from_ip(&p.data).is_ok(), "an IPv4 packet");
            }
            _ => {}
        }
    }
    let want = expected(&summary);
    assert_eq!(names.len(), want.len());
    for (name, n) in &want {
        assert_eq!(counts.get(name).copied().unwrap_or(0), *n, "link {name}");
    }
    std::fs::remove_dir_all(dir).expect("clean up");
}

#[test]
fn classic_pcap_writes_a_file_per_chosen_link() {
    let dir = temp_dir("classic");
    let links = Some(vec!["router->senb".to_string(), "senb->router".to_string()]);
    let summary =
        run(CaptureOptions { dir: Some(dir.clone()), links, format: Some("pcap".into()), existing_dir: false });
    for (name, n) in expected(&summary) {
        let file = hosim::observe::pcap::pcap_file_name(&name);
        let mut reader = PcapReader::new(std::fs::File::open(dir.join(&file)).expect("file")).expect("pcap");
        assert_eq!(reader.header().ts_resolution, pcap_file::TsResolution::MicroSecond);
        let mut count = 0;
        while let Some(p) = reader.next_packet() {
            p.expect("a valid record");
            count += 1;
        }
        assert_eq!(count, n, "{file}");
    }
    std::fs::remove_dir_all(dir).expect("clean up");
}

#[test]
fn unknown_capture_link_is_an_input_error_naming_the_key() {
    let text = hosim::scenario::presets::find(PRESET).expect("preset");
    let capture = CaptureOptions {
        dir: Some(temp_dir("bad")),
        links: Some(vec!["nowhere".into()]),
        format: None,
        existing_dir: false,
    };
    let err = hosim::run(text, PRESET, &RunOptions { capture, ..Default::default() }).err().expect("an error");
    let msg = err.to_string();
    assert!(
        matches!(err, hosim::Error::Scenario(_)) && msg.contains("capture.links") && msg.contains("nowhere"),
        "{msg}"
    );
}

/// Two links whose names differ only in characters a file name cannot hold (`a>b` and `a<b`,
/// which were both `a_b.pcap`) and non-ASCII names each get a file of their own, whose name
/// reads back as the link's, and each file holds all its link's packets.
#[test]
fn classic_pcap_file_names_are_unique_and_give_back_the_link_name() {
    let text = r#"
        duration_s = 1.0
        [[nodes]]
        name = "h1"
        kind = "host"
        [[nodes]]
        name = "h2"
        kind = "host"
        [[nodes]]
        name = "r"
        kind = "router"
        [[links]]
        name = "a>b"
        from = "h1"
        to = "r"
        rate_bps = 10e6
        delay_s = 0.001
        [[links]]
        name = "a<b"
        from = "r"
        to = "h2"
        rate_bps = 10e6
        delay_s = 0.001
        [[flows]]
        src = "h1"
        dst = "h2"
    "#;
    // Overrides cannot rename links, so the non-ASCII names come from a second text.
    let text2 = text.replace("a>b", "ü/x").replace("a<b", "ü_x");
    for (i, text) in [text.to_string(), text2].iter().enumerate() {
        let dir = temp_dir(&format!("names{i}"));
        let capture = CaptureOptions {
            dir: Some(dir.clone()),
            links: Some(vec!["all".into()]),
            format: Some("pcap".into()),
            existing_dir: false,
        };
        let out = hosim::run(text, "names.toml", &RunOptions { capture, ..Default::default() }).expect("run");
        let want = expected(&out.summary);
        let files: Vec<String> = out.summary["capture"]["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f.as_str().expect("a name").to_string())
            .collect();
        assert_eq!(files.len(), want.len(), "a file per captured link: {files:?}");
        for (name, n) in &want {
            let file = hosim::observe::pcap::pcap_file_name(name);
            assert!(files.contains(&file), "{file} in {files:?}");
            assert_eq!(percent_decode(file.strip_suffix(".pcap").expect(".pcap")), *name);
            let mut reader = PcapReader::new(std::fs::File::open(dir.join(&file)).expect("file")).expect("pcap");
            let mut count = 0;
            while let Some(p) = reader.next_packet() {
                p.expect("a whole record: the file was not shared");
                count += 1;
            }
            assert_eq!(count, *n, "{file}");
        }
        std::fs::remove_dir_all(dir).expect("clean up");
    }
}

fn percent_decode(s: &str) -> String {
    let (mut out, b) = (Vec::new(), s.as_bytes());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).expect("hex"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn a_link_name_too_long_for_a_pcap_file_is_refused_before_the_run() {
    let dir = temp_dir("long");
    let capture = CaptureOptions {
        dir: Some(dir.clone()),
        links: Some(vec!["all".into()]),
        format: Some("pcap".into()),
        existing_dir: false,
    };
    // 100 `>` become 300 bytes of `%3E`.
    let long = format!(
        "duration_s = 1.0\n[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[nodes]]\nname = \"b\"\nkind = \"host\"\n\
         [[links]]\nname = \"{}\"\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e6\ndelay_s = 0.01\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n",
        ">".repeat(100)
    );
    let err = hosim::run(&long, "long.toml", &RunOptions { capture, ..Default::default() }).err().expect("refused");
    let msg = err.to_string();
    assert!(matches!(err, hosim::Error::Scenario(_)) && msg.contains("capture.format") && !msg.contains('\n'), "{msg}");
    assert!(!dir.join(hosim::observe::pcap::pcap_file_name(&">".repeat(100))).exists());
}

/// `links = ["flows"]` captures each flow once, where its receiver is: every packet (its
/// IPv4 source, destination and id: the same on every hop) appears once, data and ACKs of
/// every flow are there, and far fewer packets than `all` (each packet once per hop).
#[test]
fn capturing_flows_holds_each_packet_once_at_its_receiver() {
    let dir = temp_dir("flows");
    let summary = run(CaptureOptions {
        dir: Some(dir.clone()),
        links: Some(vec!["flows".into()]),
        format: None,
        existing_dir: false,
    });
    let mut reader = PcapNgReader::new(std::fs::File::open(dir.join("capture.pcapng")).expect("file")).expect("pcapng");
    let mut seen = BTreeMap::<([u8; 4], [u8; 4], u16), u32>::new();
    while let Some(block) = reader.next_block() {
        if let Block::EnhancedPacket(p) = block.expect("a valid block") {
            let ip = etherparse::Ipv4HeaderSlice::from_slice(&p.data).expect("IPv4");
            *seen.entry((ip.source(), ip.destination(), ip.identification())).or_default() += 1;
        }
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "captured more than once: {:?}", &twice[..twice.len().min(5)]);
    let pairs: std::collections::BTreeSet<_> = seen.keys().map(|(s, d, _)| (*s, *d)).collect();
    let flows = summary["flows"].as_array().expect("flows").len();
    assert_eq!(pairs.len(), 2 * flows, "data and ACKs of every flow: {pairs:?}");
    let all = run(CaptureOptions {
        dir: Some(dir.join("all")),
        links: Some(vec!["all".into()]),
        format: None,
        existing_dir: false,
    });
    let total = |s: &serde_json::Value| expected(s).values().sum::<u64>();
    assert!(total(&summary) as usize == seen.len() && 2 * total(&summary) < total(&all));
    std::fs::remove_dir_all(dir).expect("clean up");
}

#[test]
fn a_capture_into_an_existing_directory_that_is_gone_fails_and_does_not_make_it_again() {
    // bench/fuzz_outdir.py (seed 635, case 604): `hosim run`'s main thread gave a run up on
    // SIGTERM and removed its staging directory; the core, still building the scenario, made it
    // again (`create_dir_all`) and `.capture-<pid>-*` stayed in DIR.
    let dir = temp_dir("gone");
    let text = hosim::scenario::presets::find(PRESET).expect("preset");
    let capture =
        CaptureOptions { dir: Some(dir.clone()), links: Some(vec!["all".into()]), format: None, existing_dir: true };
    let opts = RunOptions { seed: Some(1), capture, ..Default::default() };
    let err = hosim::run(text, PRESET, &opts).err().expect("the capture directory is gone");
    assert!(err.to_string().contains("the directory is gone"), "{err}");
    assert!(!dir.exists(), "made again");
}

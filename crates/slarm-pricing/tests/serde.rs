//! Deserialization validates the configurations as their constructors do.
#![cfg(feature = "serde")]
#![allow(clippy::unwrap_used)]

#[test]
fn configurations_validate_when_deserialized() {
    let cfg = slarm_pricing::admission::AdmissionConfig::default();
    let text = serde_json::to_string(&cfg).unwrap();
    assert_eq!(
        serde_json::from_str::<slarm_pricing::admission::AdmissionConfig>(&text).unwrap(),
        cfg
    );
    let bad = text.replace("168.0", "-168.0");
    assert!(serde_json::from_str::<slarm_pricing::admission::AdmissionConfig>(&bad).is_err());
    let jc = slarm_pricing::node::JobControl::default();
    let text = serde_json::to_string(&jc).unwrap();
    assert_eq!(
        serde_json::from_str::<slarm_pricing::node::JobControl>(&text).unwrap(),
        jc
    );
    let bad = text.replace("60.0", "0.0");
    assert!(serde_json::from_str::<slarm_pricing::node::JobControl>(&bad).is_err());
    // Finite capacities: JSON has no infinity.
    let node = slarm_pricing::node::Node::new(0, 168.0)
        .and_then(|n| n.with_capacity(64.0, 100.0))
        .unwrap();
    let text = serde_json::to_string(&node).unwrap();
    assert_eq!(text, r#"{"id":0,"rating":168.0,"mem":64.0,"disk":100.0}"#);
    assert!(
        serde_json::from_str::<slarm_pricing::node::Node>(&text.replace("64.0", "-64.0")).is_err()
    );
    let cfg = slarm_pricing::timeshare::TimeSharedConfig::new(
        vec![node],
        slarm_pricing::admission::AdmissionConfig::default(),
        slarm_pricing::node::JobControl::default(),
    )
    .unwrap();
    let text = serde_json::to_string(&cfg).unwrap();
    assert_eq!(
        serde_json::from_str::<slarm_pricing::timeshare::TimeSharedConfig>(&text).unwrap(),
        cfg
    );
    let bad = text.replacen("\"rating\":168.0", "\"rating\":-1.0", 1);
    assert!(serde_json::from_str::<slarm_pricing::timeshare::TimeSharedConfig>(&bad).is_err());
    let empty = r#"{"nodes":[],"admission":ADM,"control":CTL}"#
        .replace("ADM", &serde_json::to_string(cfg.admission()).unwrap())
        .replace("CTL", &serde_json::to_string(cfg.control()).unwrap());
    assert!(serde_json::from_str::<slarm_pricing::timeshare::TimeSharedConfig>(&empty).is_err());
    let q = slarm_pricing::workload::QosSynthesis::default();
    let text = serde_json::to_string(&q).unwrap();
    assert!(text.contains(r#""high_urgency_pct":20.0"#), "{text}");
    assert_eq!(
        serde_json::from_str::<slarm_pricing::workload::QosSynthesis>(&text).unwrap(),
        q
    );
    let bad = text.replace(r#""high_urgency_pct":20.0"#, r#""high_urgency_pct":120.0"#);
    assert!(serde_json::from_str::<slarm_pricing::workload::QosSynthesis>(&bad).is_err());
}
